#include <loopsim/solvers/joint_space/ltl_solver.hpp>

namespace loopsim {

LtlSolver::LtlSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings), terms_(constraints, added_inertia_) {}

SolveStats LtlSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                            const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                            Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  terms_.evaluate(q, v, tau, fext);
  if (terms_.dimension() == 0) {
    terms_.acceleration(lambda, vdot);  // λ is empty: the free acceleration
    return {};
  }
  // Λ's factors: after a step's projection at this q, the projection's own.
  double pivot_ratio = 0.0;
  const SmallCholesky& delassus_cholesky = terms_.factoredDelassus(pivot_ratio);
  if (pivot_ratio <= kCholeskyCollapseRatio) terms_.throwRankDeficient(name());
  lambda = terms_.rhs();
  delassus_cholesky.solveInPlace(lambda);  // Λ λ = k - J v̇_free (paper 001 eq. 13 at μ = ∞, λ flipped)
  terms_.acceleration(lambda, vdot);

  SolveStats stats;
  stats.iterations = 1;
  stats.residual = terms_.residual(vdot);
  return stats;
}

}  // namespace loopsim
