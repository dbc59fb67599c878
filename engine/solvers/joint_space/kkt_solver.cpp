#include <loopsim/solvers/joint_space/kkt_solver.hpp>

#include <loopsim/solvers/joint_space/joint_space_terms.hpp>

namespace loopsim {

KktSolver::KktSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      terms_(constraints, added_inertia_),
      delassus_cholesky_(constraints.dimension()),
      vdot_free_(VectorX::Zero(constraints.model().nv)),
      rhs_(VectorX::Zero(constraints.dimension())) {}

SolveStats KktSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                            const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                            Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  // h - Σ Jᵀ f_ext (RNEA at zero acceleration, fext folded in), the Cholesky
  // of M + dt·D, k, J, J G⁻ᵀ and Λ = J M⁻¹ Jᵀ, from one kinematics pass.
  terms_.evaluate(q, v, fext);
  const ConstraintData& cdata = terms_.constraintData();
  vdot_free_ = tau - terms_.bias();
  terms_.massCholesky().solveInPlace(vdot_free_);  // v̇_free = M⁻¹(τ - h + Σ Jᵀ f_ext)
  const int m = constraints_.dimension();
  if (m == 0) {
    vdot = vdot_free_;
    return {};
  }
  // A rank-deficient set makes Λ singular: the factorisation fails or a pivot
  // collapses relative to the diagonal (pivot² <= 1e-12 max diag Λ).
  if (delassus_cholesky_.factorize(terms_.delassus()) <= kCholeskyCollapseRatio) {
    throwRankDeficient(constraints_, cdata.J, name());
  }

  rhs_ = cdata.k;
  rhs_.noalias() -= cdata.J * vdot_free_;
  delassus_cholesky_.solveInPlace(rhs_);
  lambda = rhs_;  // Λ λ = k - J v̇_free
  terms_.inverseMassTimesJt(lambda, vdot);
  vdot += vdot_free_;

  SolveStats stats;
  stats.iterations = 1;
  rhs_ = cdata.k;
  rhs_.noalias() -= cdata.J * vdot;
  stats.residual = rhs_.lpNorm<Eigen::Infinity>();
  return stats;
}

}  // namespace loopsim
