#include <loopsim/solvers/recursive/pv_soft_solver.hpp>

#include <loopsim/solvers/recursive/soft_weights.hpp>

#include <algorithm>
#include <cmath>

namespace loopsim {

PvSoftSolver::PvSoftSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      tree_(constraints, added_inertia_, "solver 'pv-soft'"),
      weights_(rowWeights(constraints, settings, "pv-soft")) {}

SolveStats PvSoftSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                               const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                               Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  tree_.forwardSweep(q, v, tau, fext);
  // Eq. 52 on each constrained body (the target t includes gravity, as ABA's a_gf).
  for (int r = 0; r < tree_.dimension(); ++r) {
    const double w = weights_[tree_.toGlobal(r)];
    tree_.addRowPenalty(r, w, w * tree_.target[r]);
  }
  for (int i = model().nbodies() - 1; i >= 1; --i) tree_.eliminateJoint(i, false);  // plain ABA
  tree_.rollout(tree_.l, false, vdot);
  // λ = W (k - J v̇): the penalty force on each constrained body.
  SolveStats stats;
  stats.iterations = 1;
  stats.residual = 0.0;  // = ‖W⁻¹λ‖∞ (TreeRecursion::residual()): the softness, not an error
  for (int r = 0; r < tree_.dimension(); ++r) {
    const int g = tree_.toGlobal(r);
    const double error = tree_.rowError(r);
    lambda[g] = -weights_[g] * error;
    stats.residual = std::max(stats.residual, std::abs(error));
  }
  return stats;
}

}  // namespace loopsim
