#include <loopsim/solvers/recursive/prox_pv_solver.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <loopsim/model/errors.hpp>

namespace loopsim {

ProxPvSolver::ProxPvSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      tree_(constraints, added_inertia_, "solver 'prox-pv'"),
      factor_(MatrixX::Zero(constraints.dimension(), constraints.dimension())),
      rhs_(VectorX::Zero(constraints.dimension())),
      lambda_(VectorX::Zero(constraints.dimension())),
      lambda_prev_(VectorX::Zero(constraints.dimension())) {
  requireProximalSettings(constraints, settings, "prox-pv");
}

SolveStats ProxPvSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                               const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                               Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  const Model& model = this->model();
  const double mu_inv = 1.0 / settings_.muValue();
  // PV's sweeps to the world (paper 000 Alg. 1 lines 1-12, eq. 48 at a floating base).
  tree_.forwardSweep(q, v, tau, fext);
  tree_.clearL();
  for (int i = model.nbodies() - 1; i >= 1; --i) tree_.eliminateJoint(i, true);
  // Factor L_0^A + μ⁻¹I once per world child (their rows do not couple).
  const Vector6 a0 = tree_.worldAcceleration().toVector();
  for (int root : tree_.roots()) {
    const int b = tree_.rowsBegin(root), n = tree_.rowsEnd(root) - b;
    if (n == 0) continue;
    auto G = factor_.block(b, b, n, n);
    G = tree_.L.block(b, b, n, n);
    G.diagonal().array() += mu_inv;
    if (!(choleskyInPlace(G) > 0.0)) {
      throw ModelError(model.source_file, "solver 'prox-pv'",
                       "L + μ⁻¹I is not positive definite (non-finite state?)");
    }
    rhs_.segment(b, n) = -tree_.l.segment(b, n);
    rhs_.segment(b, n).noalias() -= tree_.K.middleRows(b, n) * a0;
  }
  if (!settings_.warm_start) lambda_prev_.setZero();

  SolveStats stats;
  stats.converged = tree_.dimension() == 0;
  double previous_residual = std::numeric_limits<double>::infinity();
  for (int k = 1; k <= settings_.max_iterations && tree_.dimension() > 0; ++k) {
    // Paper 001 eq. 13 on the recursion: (L + μ⁻¹I) λᵏ⁺¹ = rhs + μ⁻¹ λᵏ.
    lambda_ = rhs_ + mu_inv * lambda_prev_;
    for (int root : tree_.roots()) {
      const int b = tree_.rowsBegin(root), n = tree_.rowsEnd(root) - b;
      if (n > 0) choleskySolveInPlace(factor_.block(b, b, n, n), lambda_.segment(b, n));
    }
    const double estimate = mu_inv * (lambda_prev_ - lambda_).lpNorm<Eigen::Infinity>();
    lambda_prev_ = lambda_;
    stats.iterations = k;
    if (estimate > settings_.tolerance && k < settings_.max_iterations) continue;
    tree_.rollout(lambda_, true, vdot);
    stats.residual = tree_.residual();
    if (stats.residual <= settings_.tolerance) {
      stats.converged = true;
      break;
    }
    if (stats.residual > 0.9 * previous_residual) break;  // round-off floor: stop, not converged
    previous_residual = stats.residual;
  }
  if (tree_.dimension() == 0) tree_.rollout(lambda_, true, vdot);
  for (int r = 0; r < tree_.dimension(); ++r) lambda[tree_.toGlobal(r)] = lambda_[r];
  return stats;
}

}  // namespace loopsim
