#include <loopsim/solvers/joint_space/prox_ltl_solver.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <loopsim/model/errors.hpp>

namespace loopsim {

ProxLtlSolver::ProxLtlSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      terms_(constraints, added_inertia_),
      damped_delassus_cholesky_(constraints.dimension()),
      lambda_(VectorX::Zero(constraints.dimension())),
      lambda_prev_(VectorX::Zero(constraints.dimension())) {
  requireProximalSettings(constraints, settings, "prox-ltl");
}

SolveStats ProxLtlSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                                Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  terms_.evaluate(q, v, tau, fext);
  if (terms_.dimension() == 0) {
    terms_.acceleration(lambda, vdot);  // λ is empty: the free acceleration
    return {};
  }
  const double mu_inv = 1.0 / settings_.muValue();
  // Factor once: Λ_μ = J M⁻¹ Jᵀ + μ⁻¹ I (paper 001 §III-E).
  if (damped_delassus_cholesky_.factorize(terms_.delassus(), mu_inv) == 0.0) {
    throw ModelError(model().source_file, "solver 'prox-ltl'",
                     "the damped Delassus matrix J M⁻¹ Jᵀ + μ⁻¹I is not positive definite (non-finite state?)");
  }
  if (!settings_.warm_start) lambda_prev_.setZero();

  SolveStats stats;
  stats.converged = false;
  double previous_residual = std::numeric_limits<double>::infinity();
  for (int k = 1; k <= settings_.max_iterations; ++k) {
    // Paper 001 eq. 13 (λ flipped): Λ_μ λ^{k+1} = k - J v̇_free + μ⁻¹ λ^k.
    lambda_ = terms_.rhs() + mu_inv * lambda_prev_;
    damped_delassus_cholesky_.solveInPlace(lambda_);
    // ‖Λλ^{k+1} - b‖∞ = μ⁻¹‖λ^k - λ^{k+1}‖∞ estimates ‖J v̇ - k‖∞.
    const double estimate = mu_inv * (lambda_prev_ - lambda_).lpNorm<Eigen::Infinity>();
    lambda_prev_ = lambda_;
    stats.iterations = k;
    if (estimate > settings_.tolerance && k < settings_.max_iterations) continue;
    terms_.acceleration(lambda_, vdot);
    stats.residual = terms_.residual(vdot);
    if (stats.residual <= settings_.tolerance) {
      stats.converged = true;
      break;
    }
    // The estimate says converged but the true residual does not improve:
    // the tolerance is below round-off for this state. Stop (not converged).
    if (stats.residual > 0.9 * previous_residual) break;
    previous_residual = stats.residual;
  }
  lambda = lambda_;
  return stats;
}

}  // namespace loopsim
