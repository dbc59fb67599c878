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

// The extra work of the compliance form's two recursions over ABA, counted
// from the structure (multiply-adds per joint i of nv_i dofs): PV carries
// all s_i rows of i's subtree (6 nv_i + 42 each for K S, the projection and
// the move to the parent; s_i² nv_i / 2 for L) and factors each root's block
// (m_r³ / 6); early elimination carries at most the rows of i's own
// constraints plus what each child could not eliminate (its rows minus its
// dofs), n_i ≤ s_i, with the same per-row work and about 4 n_i² for the
// reflections and C. Returns PV's count over early elimination's.
double pvOverEarlyWork(const TreeRecursion& tree) {
  const Model& model = tree.model();
  std::vector<int> passed_on(model.nbodies(), 0);
  double pv = 0.0, early = 0.0;
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    const double nv = model.joint_nv[i], s = tree.rowsEnd(i) - tree.rowsBegin(i);
    int n = tree.ownRowsEnd(i) - tree.rowsBegin(i);
    for (int child : model.children[i]) n += passed_on[child];
    n = std::min<int>(n, static_cast<int>(s));
    passed_on[i] = std::max(0, n - model.joint_nv[i]);
    pv += s * (6.0 * nv + 42.0) + 0.5 * s * s * nv;
    early += n * (6.0 * nv + 42.0) + 4.0 * n * n;
  }
  for (int root : tree.roots()) pv += std::pow(tree.rowsEnd(root) - tree.rowsBegin(root), 3) / 6.0;
  return early > 0.0 ? pv / early : 0.0;
}

}  // namespace

PvSoftSolver::PvSoftSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      weights_(rowWeights(constraints, settings, "pv-soft")) {
  pv_.emplace(constraints, added_inertia_, "solver 'pv-soft'");
  if (pvOverEarlyWork(pv_->tree()) > kEarlyEliminationCostRatio) {
    pv_.reset();
    early_.emplace(constraints, added_inertia_, "solver 'pv-soft'");
  }
  stiffness_bound_ = 1.0 + eq52StiffnessBound(tree(), weights_);
  const VectorX compliance = weights_.cwiseInverse();
  if (early_) early_->setCompliance(compliance);
  if (pv_) pv_->setCompliance(compliance);
}

SolveStats PvSoftSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                               const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                               Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  if (stiffness_bound_ <= kMaxEq52Stiffness) return solveEq52(q, v, tau, fext, vdot, lambda);
  SolveStats stats;
  if (early_) {
    if (!early_->solve(q, v, tau, fext, vdot, lambda, stats)) {
      throw ModelError(model().source_file, "solver 'pv-soft'",
                       "Σ + W⁻¹ is not positive definite at a joint (non-finite state?)");
    }
  } else {
    if (!pv_->solve(q, v, tau, fext, vdot, lambda, stats)) {
      throw ModelError(model().source_file, "solver 'pv-soft'",
                       "L^A + W⁻¹ is not positive definite (non-finite state?)");
    }
    // The PV path's name, marked as the compliance form.
    stats.path = stats.path == "eq. 49"      ? "eq. 49 + W⁻¹"
                 : stats.path == "eq. 47-48" ? "eq. 47-48 + W⁻¹"
                                             : "eq. 43 + W⁻¹";
  }
  stats.residual = 0.0;  // = ‖W⁻¹λ‖∞: the softness, not an error (as soft-ltl)
  for (int r = 0; r < lambda.size(); ++r) stats.residual = std::max(stats.residual, std::abs(lambda[r]) / weights_[r]);
  return stats;
}

SolveStats PvSoftSolver::solveEq52(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                                   Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  TreeRecursion& tree = this->tree();
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
