#include <loopsim/sim/state_evaluator.hpp>

#include <cmath>
#include <utility>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/sim/controller.hpp>
#include <loopsim/sim/implicit_damping.hpp>
#include <loopsim/solvers/selection/auto_mu.hpp>
#include <loopsim/solvers/registry.hpp>

#include <cmath>
#include <cstdio>

namespace loopsim {

namespace {

std::shared_ptr<const Model> requireModel(const Scene& scene) {
  if (!scene.model) throw ModelError(scene.source_file, "scene '" + scene.name + "'", "has no model");
  return scene.model;
}

}  // namespace

// The scene loader refuses non-unit quaternions; so does eval (a normalised
// copy would be a silent guess at what the user meant).
std::string nonUnitQuaternion(const Model& model, const VectorX& q, std::string& where) {
  constexpr double kTolerance = 1e-6;
  for (int j = 1; j < model.nbodies(); ++j) {
    const JointType type = model.joint_types[j];
    if (type != JointType::Spherical && type != JointType::Floating) continue;
    const int first = model.idx_q[j] + (type == JointType::Floating ? 3 : 0);
    const double norm = q.segment<4>(first).norm();
    if (std::abs(norm - 1.0) > kTolerance) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", norm);
      where += ", joint '" + model.joint_names[j] + "'";
      return std::string("quaternion [qx qy qz qw] has norm ") + text + "; it must be unit (to 1e-6)";
    }
  }
  return "";
}

std::string evaluateBatchState(StateEvaluator& evaluator, const VectorX& q, const VectorX& v, const VectorX& tau,
                               VectorX& vdot, VectorX& lambda, std::string& where) {
  if (!q.allFinite() || !v.allFinite() || !tau.allFinite()) {
    // Which value: the first non-finite entry of q, v or τ, by its coordinate.
    for (const auto& [name, values] : {std::pair{"q", &q}, std::pair{"v", &v}, std::pair{"tau", &tau}}) {
      for (Eigen::Index k = 0; k < values->size(); ++k) {
        const double x = (*values)[k];
        if (!std::isfinite(x)) {
          return std::string("state has a NaN or Inf value (") + name + "[" + std::to_string(k) + "] = " +
                 (std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf") + ")";
        }
      }
    }
  }
  if (std::string message = nonUnitQuaternion(evaluator.model(), q, where); !message.empty()) return message;
  try {
    evaluator.evaluate(q, v, tau, vdot, lambda);
  } catch (const ModelError& e) {
    // An exact solver's documented refusal of a rank-deficient constraint set
    // at this state (solver.hpp): a failure of this state, named as such.
    return e.element() + ": " + e.message();
  }
  if (!vdot.allFinite() || !lambda.allFinite()) {
    return "the dynamics at this state are not finite (vdot or lambda is NaN or Inf); "
           "check its values (velocities of 1e300 overflow)";
  }
  return "";
}

StateEvaluator::StateEvaluator(const Scene& scene, const EvaluatorOptions& options)
    : StateEvaluator([&] {
        auto shared = std::make_shared<Shared>();
        shared->model = requireModel(scene);
        const Model& model = *shared->model;
        std::vector<Constraint> constraints = scene.constraints;
        if (!options.stabilization) {
          for (auto& c : constraints) c.kp.reset(), c.kd.reset();
        }
        shared->constraints = std::make_unique<const ConstraintSet>(model, std::move(constraints),
                                                                    options.stabilization ? scene.time_constant : 0.0);
        shared->solver_name = options.solver.empty() ? scene.solver : options.solver;
        if (shared->solver_name == "auto") {
          throw ModelError(scene.source_file, "solver 'auto'",
                           "picks by timing, which may differ between runs: name a solver (a record's summary names "
                           "the one its run picked)");
        }
        // As in a step: with implicit damping the solver sees M + dt·D (the
        // scene's dt, joint damping and controller derivative gains).
        const VectorX q0 = scene.q0.size() == model.nq ? scene.q0 : neutral(model);
        const Controller controller(model, scene.controller, scene.actuated_joints, q0);
        shared->added_inertia = scene.dt * implicitDampingDiagonal(scene, controller);
        // mu: auto at the scene's q0 (deterministic: the same μ in every worker).
        const SolverInfo* info = findSolver(shared->solver_name);  // unknown: makeSolver says so
        shared->settings = resolveAutoMu(scene.solver_settings,
                                         info != nullptr ? info->capabilities : SolverCapabilities{}, *shared->constraints, q0,
                                         shared->added_inertia);
        shared->settings.warm_start = false;  // each state on its own (header)
        return std::shared_ptr<const Shared>(std::move(shared));
      }()) {}

StateEvaluator::StateEvaluator(std::shared_ptr<const Shared> shared)
    : shared_(std::move(shared)),
      solver_(makeSolver(shared_->solver_name, *shared_->constraints, shared_->settings)),
      data_(*shared_->model),
      tau_total_(shared_->model->nv) {
  solver_->setAddedInertia(shared_->added_inertia);
}

StateEvaluator StateEvaluator::worker() const { return StateEvaluator(shared_); }

SolveStats StateEvaluator::evaluate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                    const Eigen::Ref<const VectorX>& tau, Eigen::Ref<VectorX> vdot,
                                    Eigen::Ref<VectorX> lambda) {
  const Model& model = *shared_->model;
  // τ + τ_passive as a step forms it (sim/simulation.cpp).
  passiveForces(model, data_, q, v);
  tau_total_ = tau;
  tau_total_ += data_.passive;
  return solver_->solve(q, v, tau_total_, {}, vdot, lambda);
}

}  // namespace loopsim
