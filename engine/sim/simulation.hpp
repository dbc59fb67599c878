#pragma once
// The simulation loop. One step (docs/conventions.md, "Equations of motion"):
//   τ_applied = controller(t, q, v),  τ = τ_applied + τ_passive (damping, springs)
//   v̇, λ = solver.solve(q, v, τ)                       (constrained forward dynamics, Baumgarte k;
//                                                      implicit damping: M + dt·D, implicit_damping.hpp)
//   contacts and joint limits: the contacts the detection finds at q (collision/), and the
//                 limited dofs v + dt v̇ would carry past a bound, correct v̇ by the velocity-level
//                 problem of those rows and the equality rows (contact/unilateral_step.hpp)
//   v ← v + dt v̇,  q ← q ⊕ dt v                         (semi-implicit Euler, paper 001 eqs. 54-55)
//   optional: project q then v onto the constraint manifold (scene.projection)
//   stats: timings and the work of the applied and damping forces.
// Cost: a step adds no kinematics pass of its own, so it costs little more than its solve. The violation
// φ, J v of the state a step produces is booked (and checked for divergence)
// by the next step, from the terms its solve evaluates at that state anyway;
// the run's final state is evaluated once, by run() or on request. Energies
// and the current φ, J v are evaluated on request (energy(), constraintError()).
// The constructor projects the scene's initial state onto the manifold
// (consistent start). step() never allocates after its first call.
#include <chrono>
#include <memory>
#include <optional>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/collision/collision_detection.hpp>
#include <loopsim/sim/contact_support.hpp>
#include <loopsim/contact/unilateral_step.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/scene/scene.hpp>
#include <loopsim/sim/controller.hpp>
#include <loopsim/sim/divergence.hpp>
#include <loopsim/sim/run_statistics.hpp>
#include <loopsim/solvers/selection/solver_binding.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

/// A detected contact as the step's rows need it.
ContactRowSource contactRowSource(const ContactPoint& c);

struct SimulationOptions {
  bool consistent_start = true;        // project (q0, v0) at construction
  double violation_threshold = 1e-1;   // divergence when ‖φ‖∞ exceeds it (m or rad)
  int projection_iterations = 3;       // Gauss-Newton steps of the post-step projection
  std::size_t timing_samples = 0;      // kept for medians; 0 = duration / dt + 1 (capped at 1e6)
};

/// What a run needs to continue from a past state (the GUI's history): the
/// time, the step count, (q, v) and the work booked so far.
struct SimulationSnapshot {
  double time = 0.0;
  long steps = 0;
  VectorX q, v;
  double applied_work = 0.0, damping_work = 0.0;
};

class Simulation {
 public:
  /// Builds the constraint set, the solver (scene.solver), the controller and
  /// the workspace; throws ModelError on a bad scene or an inconsistent start.
  explicit Simulation(const Scene& scene, const SimulationOptions& options = {});

  /// Advances one step of scene.dt. Returns false (and stops advancing) on divergence.
  bool step();
  /// Steps until `duration` of simulated time has passed or divergence, then
  /// checks the final state (checkState); returns !diverged(). Throws
  /// ModelError for a duration that is not finite, is negative or lies more
  /// than kMaxRunSteps steps ahead (scheduledStep).
  bool run(double duration);
  /// Books the current state's violation (once) and checks it for divergence,
  /// as the next step() would; for callers that stop stepping. Returns !diverged().
  bool checkState();

  /// Makes q the controller's held pose: its PD target and, with feedforward:
  /// hold, the holding torques at q (for the GUI's joint sliders; q should
  /// satisfy the constraints). Throws ModelError when q cannot be held.
  void holdPose(const Eigen::Ref<const VectorX>& q) { controller_->hold(*constraints_, q); }
  const Controller& controller() const { return *controller_; }

  /// Replaces the solver from the next step on, keeping the state (t, q, v,
  /// energy, statistics): the new solver starts cold (no warm start) with the
  /// current addedInertia(); `auto` and mu: auto are resolved at the current
  /// state. Throws ModelError (registry capability check) and keeps the old
  /// solver when the new one cannot take the constraint set.
  void setSolver(const std::string& name, const SolverSettings& settings);
  /// Replaces the contact solver (admm, pgs) from the next step on, state kept.
  /// Throws ModelError when the scene has neither contact geometry nor joint limits.
  void setContactSolver(ContactSolverKind kind);
  /// What was asked for and what runs (scene().solver and solver_settings are
  /// the resolved name and μ), with the auto-μ estimate and the auto probe.
  const SolverBinding& solverBinding() const { return binding_; }

  /// The current state as a snapshot (no allocation once `out` is sized).
  void snapshot(SimulationSnapshot& out) const;
  /// Continues from a snapshot of this simulation (the future is dropped): t,
  /// steps, q, v and the work are restored, a divergence is cleared and the
  /// state is checked again by the next step. A direct solver gives the
  /// original trajectory again bit for bit; an iterative one restarts cold
  /// (no warm start from the dropped future). Statistics (timings,
  /// violations) keep counting every step computed.
  void restore(const SimulationSnapshot& snapshot);

  /// Baumgarte time constant T (<= 0: off; constraints with their own gains
  /// keep them) and the post-step projection, from the next step on, state
  /// kept (the GUI's live settings). Records note the change (step, T,
  /// projection) so that replay applies it at the same step. Throws
  /// ModelError for a non-finite T.
  void setStabilization(double time_constant, bool projection);

  /// An external wrench on one body (in its frame, about its origin) for the
  /// following steps until changed or cleared: the GUI's mouse perturbation.
  /// It enters the solver's fext, and its work (midpoint velocity of the
  /// body) is booked as applied work. Records keep it (column group
  /// `perturbation`), so a perturbed run replays bit for bit.
  void setPerturbation(int body, const Force& wrench);
  void clearPerturbation();
  /// The body perturbed in the following steps (0: none) and its wrench.
  int perturbedBody() const { return perturbed_body_; }
  const Force& perturbation() const { return perturbation_; }

  double time() const { return time_; }
  long stepCount() const { return steps_; }
  const VectorX& q() const { return q_; }
  const VectorX& v() const { return v_; }
  const VectorX& vdot() const { return vdot_; }
  const VectorX& lambda() const { return lambda_; }
  const VectorX& appliedTorque() const { return tau_applied_; }
  /// φ and J v at the current state (evaluated on request).
  const VectorX& constraintError() const { return currentTerms().phi; }
  const VectorX& constraintVelocityError() const { return currentTerms().phidot; }
  /// ‖φ‖∞ and ‖J v‖∞ at the current state (m or rad, m/s or rad/s).
  double positionViolation() const;
  double velocityViolation() const;

  const Scene& scene() const { return scene_; }
  const Model& model() const { return *scene_.model; }
  const ConstraintSet& constraints() const { return *constraints_; }
  ConstrainedSolver& solver() { return *solver_; }
  const ProjectionResult& initialProjection() const { return initial_projection_; }

  const StepRecord& lastStep() const { return last_step_; }
  /// The contacts and joint limits of the last step (contacts 0 and active_rows 0: none;
  /// null when the scene has neither contact geometry nor limited dofs with the limits on).
  const UnilateralStep* unilateralStep() const { return unilateral_step_.get(); }
  const UnilateralStepResult& lastUnilateralStep() const { return last_unilateral_; }
  /// Whether the limits are simulated (the scene has limited dofs and does not turn them off).
  bool jointLimitsOn() const { return unilateral_step_ && !unilateral_step_->dofs().empty(); }
  /// The contacts the last step detected (empty without contact geometry).
  const std::vector<ContactPoint>& contacts() const;
  /// The contacts the holding feed-forward balanced against at the start
  /// (contact_support.hpp; empty without feedforward: hold or contact geometry).
  const std::vector<Support>& supports() const { return supports_; }
  /// What the start warned about (holding torques beyond effort limits, supports
  /// that would pull or slide), for the window as well as the log.
  const std::vector<std::string>& startWarnings() const { return start_warnings_; }
  /// Over every step computed (as the statistics: a restore keeps counting).
  const JointLimitTotals& jointLimitTotals() const { return limit_totals_; }
  const ContactTotals& contactTotals() const { return contact_totals_; }
  /// Energies at the current state (evaluated on request) and the work so far.
  const EnergyTerms& energy() const;
  /// The energy balance starts again at the current state (E0 = its energy,
  /// no work done yet): after the state was set by hand (a joint slider), the
  /// old balance would carry the edit as an error for good.
  void restartEnergyBalance();
  /// D of implicit damping (zero when the scene integrates damping explicitly).
  const VectorX& implicitDamping() const { return damping_diagonal_; }
  const std::optional<Divergence>& divergence() const { return divergence_; }
  bool diverged() const { return divergence_.has_value(); }
  /// Exact over every state the run produced (the current one included).
  RunSummary summary() const;

 private:
  const ConstraintData& currentTerms() const;
  void detectContacts();  // contact_rows_ at q_
  /// Marks (step_gains_) the implicitly damped dofs the controller saturated at
  /// their effort limit this step; true when there is one.
  bool saturatedDofs();
  /// Books the violation of the current state once; false on divergence.
  bool bookCurrentState(const ConstraintData& terms);
  /// Builds the solver for (name, settings) at the current state (solver_binding.hpp).
  void bindAt(const std::string& name, const SolverSettings& settings, const VectorX& added_inertia);
  void wireProjector();  // the solver's terms the projector projects on

  Scene scene_;
  SimulationOptions options_;
  std::unique_ptr<ConstraintSet> constraints_;
  std::unique_ptr<ConstrainedSolver> solver_;  // built by bindAt, after the consistent start
  SolverBinding binding_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<ConstraintProjector> projector_;  // post-step projection (null when off)
  std::unique_ptr<UnilateralStep> unilateral_step_;  // null without contact geometry and limited dofs
  UnilateralStepResult last_unilateral_;
  std::vector<Support> supports_;
  std::vector<std::string> start_warnings_;
  JointLimitTotals limit_totals_;
  ContactTotals contact_totals_;
  std::unique_ptr<CollisionData> collision_;  // null without contact geometry
  std::vector<ContactRowSource> contact_rows_;
  Data data_;
  // φ, J v and energies of the current state, evaluated on request.
  mutable Data observed_data_;
  mutable ConstraintData cdata_;
  mutable bool terms_current_ = false;   // cdata_ holds the current state's φ, J v
  mutable bool energy_current_ = false;  // energy_ holds the current state's energies
  bool state_booked_ = true;             // the current state's violation is in statistics_ (or is the start)
  ProjectionResult initial_projection_;

  double time_ = 0.0;
  long steps_ = 0;
  VectorX q_, v_, v_previous_, vdot_, lambda_;
  VectorX tau_applied_, tau_damping_, tau_total_;
  VectorX damping_diagonal_;   // D = joint damping + derivative gains (implicit), else 0
  VectorX derivative_gains_;   // the controller's part of D (implicit), else 0
  VectorX joint_damping_;      // the joints' part of D (implicit), else 0
  VectorX tau_effective_;      // the applied force the step actually integrated
  VectorX step_gains_;         // kd of the dofs saturated this step (not implicit this step)
  VectorX v_next_, step_added_inertia_;  // the joint limits' v + dt v̇ and dt·D

  // The perturbation: fext (size nbodies, zero but at perturbed_body_) and the kinematics for its work.
  std::vector<Force> fext_;
  int perturbed_body_ = 0;
  Force perturbation_;
  Data perturbation_data_;
  Data contact_data_;  // the kinematics of the detection

  StepRecord last_step_;
  mutable EnergyTerms energy_;
  RunStatistics statistics_;
  std::optional<Divergence> divergence_;
};

}  // namespace loopsim
