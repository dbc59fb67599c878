#include <loopsim/sim/simulation.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/energy.hpp>
#include <loopsim/algorithms/integrator.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/sim/implicit_damping.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/model/number_text.hpp>
#include <loopsim/scene/run_length.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {

namespace {

// Checks the scene fields the loop relies on and fills defaulted initial
// states (empty q0: neutral; empty v0: zero). Returns the completed copy.
Scene checkedScene(const Scene& scene) {
  if (!scene.model) throw ModelError(scene.source_file, "scene", "has no model");
  const Model& model = *scene.model;
  auto fail = [&](const std::string& element, const std::string& why) {
    throw ModelError(scene.source_file, element, why);
  };
  if (!std::isfinite(scene.dt) || scene.dt <= 0.0) fail("dt", "must be > 0 (got " + numberText(scene.dt) + ")");
  if (!std::isfinite(scene.duration) || scene.duration < 0.0) {
    fail("duration", "must be >= 0 (got " + numberText(scene.duration) + ")");
  }
  Scene out = scene;
  if (out.q0.size() == 0) out.q0 = neutral(model);
  if (out.v0.size() == 0) out.v0 = VectorX::Zero(model.nv);
  if (out.q0.size() != model.nq) fail("initial positions", "size " + std::to_string(out.q0.size()) + ", expected nq = " + std::to_string(model.nq));
  if (out.v0.size() != model.nv) fail("initial velocities", "size " + std::to_string(out.v0.size()) + ", expected nv = " + std::to_string(model.nv));
  if (!out.q0.allFinite() || !out.v0.allFinite()) fail("initial state", "has a NaN or Inf value");
  return out;
}

std::size_t defaultTimingSamples(const Scene& scene) {
  const double steps = std::ceil(scene.duration / scene.dt) + 1.0;
  return static_cast<std::size_t>(std::clamp(steps, 1.0, 1e6));
}

double microseconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

}  // namespace

Simulation::Simulation(const Scene& scene, const SimulationOptions& options)
    : scene_(checkedScene(scene)),
      options_(options),
      constraints_(std::make_unique<ConstraintSet>(*scene_.model, scene_.constraints, scene_.time_constant)),
      controller_(std::make_unique<Controller>(*scene_.model, scene_.controller, scene_.actuated_joints, scene_.q0)),
      data_(*scene_.model),
      observed_data_(*scene_.model),
      cdata_(*constraints_),
      q_(scene_.q0),
      v_(scene_.v0),
      v_previous_(VectorX::Zero(scene_.model->nv)),
      vdot_(VectorX::Zero(scene_.model->nv)),
      lambda_(VectorX::Zero(constraints_->dimension())),
      tau_applied_(VectorX::Zero(scene_.model->nv)),
      tau_damping_(VectorX::Zero(scene_.model->nv)),
      tau_total_(VectorX::Zero(scene_.model->nv)),
      damping_diagonal_(implicitDampingDiagonal(scene_, *controller_)),
      derivative_gains_(scene_.damping == DampingIntegration::Implicit ? controller_->derivativeGains()
                                                                     : VectorX::Zero(scene_.model->nv)),
      joint_damping_(damping_diagonal_ - derivative_gains_),
      tau_effective_(VectorX::Zero(scene_.model->nv)),
      step_gains_(VectorX::Zero(scene_.model->nv)),
      v_next_(VectorX::Zero(scene_.model->nv)),
      step_added_inertia_(VectorX::Zero(scene_.model->nv)),
      fext_(static_cast<std::size_t>(scene_.model->nbodies())),
      perturbation_data_(*scene_.model),
      contact_data_(*scene_.model),
      statistics_(constraints_->dimension(),
                  options.timing_samples > 0 ? options.timing_samples : defaultTimingSamples(scene_)) {
  if (!(options.violation_threshold > 0.0)) {
    throw ModelError(scene_.source_file, "simulation", "violation threshold must be > 0");
  }
  if (options.consistent_start && constraints_->dimension() > 0) {
    initial_projection_ = makeConsistent(*constraints_, q_, v_, scene_.held_joints);
  }
  // The holding torques belong to the pose actually simulated: the consistent start.
  if (scene_.controller.feedforward == ControllerSpec::Feedforward::Hold) {
    // On contacts, the hold balances against the contacts the pose stands on.
    supports_ = supportsAt(scene_, q_);
    if (supports_.empty()) {
      controller_->hold(*constraints_, q_);
    } else {
      const ConstraintSet holding(*scene_.model, holdingConstraints(scene_, supports_), scene_.time_constant);
      controller_->hold(holding, q_);
    }
    start_warnings_ = controller_->holdWarnings();
    for (const std::string& w : supportWarnings(scene_, supports_, controller_->holding())) {
      spdlog::warn("{}", w);
      start_warnings_.push_back(w);
    }
  }
  if (scene_.projection && constraints_->dimension() > 0) {
    projector_ = std::make_unique<ConstraintProjector>(*constraints_);
  }
  std::vector<LimitedDof> limited;
  if (scene_.joint_limits.enabled) limited = limitedDofs(*scene_.model);
  if (scene_.geometry) collision_ = std::make_unique<CollisionData>(*scene_.geometry);
  if (!limited.empty() || collision_) {
    unilateral_step_ = std::make_unique<UnilateralStep>(*constraints_, std::move(limited), scene_.joint_limits,
                                                        scene_.contact_solver, scene_.contact_settings,
                                                        scene_.contact_factorization);
  }
  // Bound at the consistent start, the state `auto` choices are made for.
  bindAt(scene_.solver, scene_.solver_settings, scene_.dt * damping_diagonal_);  // implicit damping: M + dt·D
  energy_.initial = energy().total();
}

ContactRowSource contactRowSource(const ContactPoint& c) {
  return {c.body_a, c.body_b, c.position_in_a, c.position_in_b, c.frame, c.distance, c.friction, c.id};
}

const std::vector<ContactPoint>& Simulation::contacts() const {
  static const std::vector<ContactPoint> none;
  return collision_ ? collision_->contacts() : none;
}

void Simulation::detectContacts() {
  forwardKinematics(*scene_.model, contact_data_, q_);
  const std::vector<ContactPoint>& found = computeContacts(*scene_.geometry, contact_data_, *collision_);
  contact_rows_.clear();
  for (const ContactPoint& c : found) contact_rows_.push_back(contactRowSource(c));
}

const ConstraintData& Simulation::currentTerms() const {
  if (!terms_current_) {
    computeConstraintTerms(*constraints_, observed_data_, q_, v_, cdata_, kConstraintErrors);
    terms_current_ = true;
  }
  return cdata_;
}

const EnergyTerms& Simulation::energy() const {
  if (!energy_current_) {
    currentTerms();  // leaves the kinematics at (q, v) in observed_data_
    const MechanicalEnergy e = energyAtKinematics(*scene_.model, observed_data_, q_, v_);
    energy_.kinetic = e.kinetic;
    energy_.potential = e.potential;
    energy_current_ = true;
  }
  return energy_;
}

void Simulation::restartEnergyBalance() {
  energy_.initial = energy().total();
  energy_.applied_work = energy_.damping_work = 0.0;
}

double Simulation::positionViolation() const {
  const VectorX& phi = constraintError();
  return phi.size() > 0 ? phi.lpNorm<Eigen::Infinity>() : 0.0;
}

double Simulation::velocityViolation() const {
  const VectorX& phidot = constraintVelocityError();
  return phidot.size() > 0 ? phidot.lpNorm<Eigen::Infinity>() : 0.0;
}

RunSummary Simulation::summary() const {
  const EnergyTerms& e = energy();
  if (state_booked_) return statistics_.summary(e);
  const ConstraintData& terms = currentTerms();
  return statistics_.summary(e, terms.phi.data(), terms.phidot.data());
}

bool Simulation::saturatedDofs() {
  step_gains_.setZero();
  const VectorX& saturated = controller_->saturatedNow();
  bool any = false;
  for (int i = 0; i < scene_.model->nv; ++i) {
    if (derivative_gains_[i] != 0.0 && saturated[i] != 0.0) {
      step_gains_[i] = derivative_gains_[i];
      any = true;
    }
  }
  return any;
}

bool Simulation::bookCurrentState(const ConstraintData& terms) {
  if (state_booked_) return true;
  state_booked_ = true;
  statistics_.addViolation(terms.phi.data(), terms.phidot.data());
  divergence_ = detectDivergence(*constraints_, q_, v_, terms.phi, options_.violation_threshold, time_, steps_);
  return !divergence_;
}

bool Simulation::step() {
  if (divergence_) return false;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const Model& model = *scene_.model;
  const double dt = scene_.dt;

  controller_->compute(time_, q_, v_, tau_applied_);
  passiveForces(model, data_, q_, v_);
  tau_damping_ = -model.damping.cwiseProduct(v_);
  tau_total_ = tau_applied_ + data_.passive;

  // A dof the controller saturated at its effort limit has a constant τ over
  // the step: its kd is not integrated implicitly this step (nor booked below).
  const bool saturated = saturatedDofs();
  if (saturated) solver_->setAddedInertia(dt * (damping_diagonal_ - step_gains_));

  // A perturbation enters fext (only then: an unperturbed step passes none, as before).
  const int perturbed = perturbed_body_;
  double perturbation_power_start = 0.0;
  if (perturbed > 0) {
    forwardKinematics(model, perturbation_data_, q_, v_);
    const Motion& body_velocity = perturbation_data_.v[static_cast<std::size_t>(perturbed)];
    perturbation_power_start = perturbation_.n.dot(body_velocity.w) + perturbation_.f.dot(body_velocity.v);
  }
  const std::span<const Force> fext = perturbed > 0 ? std::span<const Force>(fext_) : std::span<const Force>();
  const Clock::time_point solve_start = Clock::now();
  const SolveStats solve = solver_->solve(q_, v_, tau_total_, fext, vdot_, lambda_);
  const Clock::time_point solve_end = Clock::now();
  if (saturated) solver_->setAddedInertia(dt * damping_diagonal_);

  // The solve has evaluated φ, J v at this state, the one the previous step
  // produced: book its violation now (no kinematics pass of our own) and stop
  // before integrating if it diverged.
  const ConstraintData* solved = solver_->solvedConstraintTerms();
  if (!bookCurrentState(solved != nullptr ? *solved : currentTerms())) return false;

  if (unilateral_step_) {
    if (collision_) detectContacts();
    v_next_ = v_ + dt * vdot_;
    step_added_inertia_ = dt * (damping_diagonal_ - step_gains_);
    last_unilateral_ = unilateral_step_->apply(q_, v_, dt, step_added_inertia_, constraints_->timeConstant(),
                                               contact_rows_, v_next_, lambda_);
    // Untouched when there is no contact and no bound is reached.
    if (last_unilateral_.active_rows > 0 || last_unilateral_.contacts > 0) vdot_ = (v_next_ - v_) / dt;
    limit_totals_.add(last_unilateral_);
    contact_totals_.add(last_unilateral_);
  }

  // The forces the step integrated: with implicit damping the damping and the
  // derivative terms act at the end-of-step velocity v + dt·v̇ (before projection).
  tau_effective_ = tau_applied_;
  tau_effective_.noalias() -= dt * (derivative_gains_ - step_gains_).cwiseProduct(vdot_);
  tau_damping_.noalias() -= dt * joint_damping_.cwiseProduct(vdot_);

  v_previous_ = v_;
  semiImplicitEulerStep(model, q_, v_, vdot_, dt);
  if (projector_) projector_->project(q_, v_, options_.projection_iterations);
  ++steps_;
  time_ = static_cast<double>(steps_) * dt;
  terms_current_ = energy_current_ = false;
  state_booked_ = false;

  // Work over the step with the midpoint velocity (the forces were held constant over it).
  energy_.applied_work += 0.5 * dt * tau_effective_.dot(v_previous_ + v_);
  energy_.damping_work += 0.5 * dt * tau_damping_.dot(v_previous_ + v_);
  if (perturbed > 0 && v_.allFinite() && q_.allFinite()) {
    forwardKinematics(model, perturbation_data_, q_, v_);
    const Motion& body_velocity = perturbation_data_.v[static_cast<std::size_t>(perturbed)];
    const double power_end = perturbation_.n.dot(body_velocity.w) + perturbation_.f.dot(body_velocity.v);
    energy_.applied_work += 0.5 * dt * (perturbation_power_start + power_end);
  }

  last_step_.solve_us = microseconds(solve_end - solve_start);
  last_step_.iterations = solve.iterations;
  last_step_.solver_residual = solve.residual;
  last_step_.converged = solve.converged;
  // NaN or Inf now; the violation when the next step (or run()) books this state.
  if (!q_.allFinite() || !v_.allFinite()) {
    divergence_ = detectDivergence(*constraints_, q_, v_, VectorX(), options_.violation_threshold, time_, steps_);
  }
  last_step_.step_us = microseconds(Clock::now() - start);
  statistics_.addStep(last_step_, dt);
  return !divergence_;
}

void Simulation::bindAt(const std::string& name, const SolverSettings& settings, const VectorX& added_inertia) {
  // The probe's τ: the passive forces and the controller's feedforward at the
  // state. Not controller_->compute(): that would count a call the run never made.
  passiveForces(*scene_.model, data_, q_, v_);
  tau_total_ = controller_->feedforward() + data_.passive;
  BoundSolver bound = bindSolver(scene_.solverProblem(), *constraints_, name, settings, q_, v_, tau_total_, added_inertia);
  if (bound.refusal) throwRefusal(scene_.source_file, *bound.refusal);
  solver_ = std::move(bound.solver);
  binding_ = std::move(bound.binding);
  // The scene says what runs: records store the resolved name and μ, so a
  // replay builds exactly this solver without probing again.
  scene_.solver = binding_.solver;
  scene_.solver_settings = binding_.settings;
  wireProjector();
}

void Simulation::wireProjector() {
  if (!projector_) return;
  // Projecting on a joint-space solver's terms leaves its next solve (at the
  // projected q) the placements, M and J already computed.
  projector_->shareTerms(solver_ ? solver_->sharedProjectionTerms() : nullptr);
  // The velocity metric is the step's own inertia M + dt·D (implicit damping;
  // M when damping is explicit or absent): the correction is then the impulse
  // the implicit step itself would take, (M + dt·D) Δv = Jᵀp with J(v + Δv) = 0,
  // and with the solver's terms shared its next solve keeps M's factors and Λ.
  projector_->setMetricDiagonal(solver_ ? &solver_->addedInertia() : nullptr);
  // The O(n) loop solvers project through their own recursion (the same
  // metric: their added inertia) instead of the dense Delassus matrix.
  projector_->useImpulseSolver(solver_ && solver_->supportsImpulseSolve() ? solver_.get() : nullptr);
}

void Simulation::setSolver(const std::string& name, const SolverSettings& settings) {
  // bindAt replaces nothing until the new solver is built: on an error the old one stays.
  const VectorX added = solver_->addedInertia();
  bindAt(name, settings, added);
}

void Simulation::setContactSolver(ContactSolverKind kind) {
  if (!unilateral_step_) {
    throw ModelError(scene_.source_file, "contact solver",
                     std::string(contactSolverName(kind)) + ": the scene has neither contacts nor joint limits to solve");
  }
  unilateral_step_->setSolverKind(kind);
  scene_.contact_solver = kind;
}

void Simulation::setPerturbation(int body, const Force& wrench) {
  if (body <= 0 || body >= scene_.model->nbodies()) {
    throw ModelError(scene_.source_file, "perturbation", "body " + std::to_string(body) + " is not a moving body");
  }
  if (perturbed_body_ > 0) fext_[static_cast<std::size_t>(perturbed_body_)] = Force();
  perturbed_body_ = body;
  perturbation_ = wrench;
  fext_[static_cast<std::size_t>(body)] = wrench;
}

void Simulation::clearPerturbation() {
  if (perturbed_body_ > 0) fext_[static_cast<std::size_t>(perturbed_body_)] = Force();
  perturbed_body_ = 0;
  perturbation_ = Force();
}

void Simulation::snapshot(SimulationSnapshot& out) const {
  out.time = time_;
  out.steps = steps_;
  out.q = q_;
  out.v = v_;
  out.applied_work = energy_.applied_work;
  out.damping_work = energy_.damping_work;
}

void Simulation::setStabilization(double time_constant, bool projection) {
  constraints_->setTimeConstant(time_constant);  // the solvers read the gains at every evaluation of the terms
  scene_.time_constant = time_constant;
  scene_.projection = projection;
  if (projection && constraints_->dimension() > 0 && !projector_) {
    projector_ = std::make_unique<ConstraintProjector>(*constraints_);
    wireProjector();
  }
  if (!projection) projector_.reset();
  terms_current_ = false;
}

void Simulation::restore(const SimulationSnapshot& s) {
  if (s.q.size() != q_.size() || s.v.size() != v_.size()) {
    throw ModelError(scene_.source_file, "simulation", "restore: the snapshot is of another model");
  }
  time_ = s.time;
  steps_ = s.steps;
  q_ = s.q;
  v_ = s.v;
  energy_.applied_work = s.applied_work;
  energy_.damping_work = s.damping_work;
  divergence_.reset();
  terms_current_ = energy_current_ = false;
  state_booked_ = false;  // checked (and booked) again by the next step
  if (solver_->capabilities().iterative) {  // no warm start from the dropped future
    std::unique_ptr<ConstrainedSolver> cold = makeSolver(scene_.solver, *constraints_, scene_.solver_settings);
    cold->setAddedInertia(solver_->addedInertia());
    solver_ = std::move(cold);
    wireProjector();
  }
}

bool Simulation::run(double duration) {
  // NaN, a negative or a never-ending duration is refused, not run as 0 steps.
  const long target = steps_ + scheduledStep(duration, scene_.dt, "run: duration");
  while (steps_ < target) {
    if (!step()) return false;
  }
  return checkState();
}

bool Simulation::checkState() {
  // The final state is booked by no later step: evaluate it once here.
  if (!divergence_) bookCurrentState(currentTerms());
  return !diverged();
}

}  // namespace loopsim
