#pragma once
// Constrained forward dynamics at one state, (q, v, τ) -> (v̇, λ), exactly as
// a simulation step computes it before integrating: the passive joint forces
// (damping, springs) are added to τ, and with the scene's implicit damping
// (the default) the solver sees M + dt·D (sim/implicit_damping.hpp). It is
// what `loopsim eval` runs on every row (record/state_evaluation.hpp), so a
// result equals the CLI's bit for bit. It is the equality dynamics: a step
// that reaches a joint limit corrects v̇ afterwards (contact/unilateral_step.hpp),
// which the evaluator does not.
//
// Lifetimes: the evaluator shares ownership of the scene's Model and owns its
// ConstraintSet and solver; the Scene itself may go away after construction.
// evaluate() does not allocate. A near-singular state shows in the returned
// SolveStats (residual = ‖J v̇ − k‖∞, converged); at a state where the
// constraint Jacobian is numerically rank deficient an exact solver throws
// ModelError naming the dependent rows (ConstrainedSolver::solve), while
// proximal and soft solvers return a least-squares answer; a singular M may
// give non-finite v̇ or λ (check allFinite(), as eval does).
#include <memory>
#include <string>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/scene/scene.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

struct EvaluatorOptions {
  std::string solver;         // a registered solver's name; empty: the scene's (never "auto")
  bool stabilization = true;  // false: Baumgarte gains 0, also the constraints' own kp, kd (k = −J̇v)
};

class StateEvaluator {
 public:
  /// Throws ModelError for an unknown solver, one lacking a capability the
  /// constraints need, or "auto" (a timing probe picks differently per run).
  explicit StateEvaluator(const Scene& scene, const EvaluatorOptions& options = {});

  /// Another evaluator with the same model, constraints and settings and its
  /// own solver and workspace: one per thread (the shared parts are const).
  StateEvaluator worker() const;

  /// τ is the applied generalised force (nv). Writes v̇ (nv) and λ
  /// (constraints().dimension(); docs/conventions.md's sign and frame). Iterative
  /// solvers start cold at every call, so a result depends on its state alone.
  SolveStats evaluate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                      const Eigen::Ref<const VectorX>& tau, Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda);

  const Model& model() const { return *shared_->model; }
  const ConstraintSet& constraints() const { return *shared_->constraints; }
  const std::string& solverName() const { return shared_->solver_name; }
  /// The settings the solver runs with (mu: auto resolved at the scene's q0; warm_start off).
  const SolverSettings& settings() const { return shared_->settings; }
  /// dt·D, the diagonal the solver adds to M (zero with explicit damping).
  const VectorX& addedInertia() const { return shared_->added_inertia; }

 private:
  struct Shared {
    std::shared_ptr<const Model> model;
    std::unique_ptr<const ConstraintSet> constraints;
    std::string solver_name;
    SolverSettings settings;
    VectorX added_inertia;
  };
  explicit StateEvaluator(std::shared_ptr<const Shared> shared);

  std::shared_ptr<const Shared> shared_;
  std::unique_ptr<ConstrainedSolver> solver_;
  Data data_;
  VectorX tau_total_;
};

/// The failure message when a spherical or floating joint's quaternion in q is
/// not unit (to 1e-6), appending ", joint 'name'" to `where`; "" when all are
/// unit. eval refuses such a state (a normalised copy would be a guess).
std::string nonUnitQuaternion(const Model& model, const VectorX& q, std::string& where);

/// One state of a batch, checked and evaluated as `loopsim eval` and the
/// Python evaluate() do it: refuses a NaN or Inf in (q, v, τ) and a non-unit
/// quaternion, evaluates, and refuses an exact solver's rank-deficiency
/// ModelError (see evaluate) and a non-finite v̇ or λ. Returns the
/// failure message ("" when v̇ and λ hold the result); `where` names the
/// state and is extended as nonUnitQuaternion does.
std::string evaluateBatchState(StateEvaluator& evaluator, const VectorX& q, const VectorX& v, const VectorX& tau,
                               VectorX& vdot, VectorX& lambda, std::string& where);

}  // namespace loopsim
