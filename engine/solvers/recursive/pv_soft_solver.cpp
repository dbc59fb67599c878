#include <loopsim/solvers/recursive/pv_soft_solver.hpp>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/solvers/recursive/soft_weights.hpp>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>

namespace loopsim {

namespace {

// Σ_c w_c λ_max(K_c H_c⁻¹ K_cᵀ) (pv_soft_solver.hpp); infinite when a
// constrained body has a singular rigid inertia.
double eq52StiffnessBound(TreeRecursion& tree, const VectorX& weights) {
  const ConstraintSet& set = tree.constraints();
  const Model& model = tree.model();
  tree.forwardSweepPositions(neutral(model));  // K¹ is constant in the body frame
  double bound = 0.0;
  for (int c = 0; c < set.size(); ++c) {
    const int d = set[c].dimension();
    const Matrix6 H = model.body_inertias[set[c].body1].matrix();
    const Eigen::SelfAdjointEigenSolver<Matrix6> inertia(H);
    if (!(inertia.eigenvalues().minCoeff() > 0.0)) return std::numeric_limits<double>::infinity();
    const MatrixX K = tree.cdata.K1[c].topRows(d);
    const MatrixX KHK = K * inertia.operatorInverseSqrt() * inertia.operatorInverseSqrt() * K.transpose();
    const Eigen::SelfAdjointEigenSolver<MatrixX> delassus(KHK, Eigen::EigenvaluesOnly);
    bound += weights[set.rowOffset(c)] * delassus.eigenvalues().maxCoeff();
  }
  return bound;
}

}  // namespace

PvSoftSolver::PvSoftSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      pv_(constraints, added_inertia_, "solver 'pv-soft'"),
      weights_(rowWeights(constraints, settings, "pv-soft")) {
  stiffness_bound_ = 1.0 + eq52StiffnessBound(pv_.tree(), weights_);
  pv_.setCompliance(weights_.cwiseInverse());
}

SolveStats PvSoftSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                               const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                               Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  if (stiffness_bound_ <= kMaxEq52Stiffness) return solveEq52(q, v, tau, fext, vdot, lambda);
  SolveStats stats;
  if (!pv_.solve(q, v, tau, fext, vdot, lambda, stats)) {
    throw ModelError(model().source_file, "solver 'pv-soft'",
                     "L^A + W⁻¹ is not positive definite (non-finite state?)");
  }
  // The PV path's name, marked as the compliance form.
  stats.path = stats.path == "eq. 49" ? "eq. 49 + W⁻¹" : stats.path == "eq. 47-48" ? "eq. 47-48 + W⁻¹" : "eq. 43 + W⁻¹";
  stats.residual = 0.0;  // = ‖W⁻¹λ‖∞: the softness, not an error (as soft-ltl)
  for (int r = 0; r < lambda.size(); ++r) stats.residual = std::max(stats.residual, std::abs(lambda[r]) / weights_[r]);
  return stats;
}

SolveStats PvSoftSolver::solveEq52(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                                   Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  TreeRecursion& tree = pv_.tree();
  tree.forwardSweep(q, v, tau, fext);
  // Eq. 52 on each constrained body (the target t includes gravity, as ABA's a_gf).
  for (int r = 0; r < tree.dimension(); ++r) {
    const double w = weights_[tree.toGlobal(r)];
    tree.addRowPenalty(r, w, w * tree.target[r]);
  }
  for (int i = model().nbodies() - 1; i >= 1; --i) tree.eliminateJoint(i, false);  // plain ABA
  tree.rollout(tree.l, false, vdot);
  // λ = W (k - J v̇): the penalty force on each constrained body.
  SolveStats stats;
  stats.iterations = 1;
  stats.path = "eq. 52";
  stats.residual = 0.0;  // = ‖W⁻¹λ‖∞ (TreeRecursion::residual()): the softness, not an error
  for (int r = 0; r < tree.dimension(); ++r) {
    const int g = tree.toGlobal(r);
    const double error = tree.rowError(r);
    lambda[g] = -weights_[g] * error;
    stats.residual = std::max(stats.residual, std::abs(error));
  }
  return stats;
}

}  // namespace loopsim
