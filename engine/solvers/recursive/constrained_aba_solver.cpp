#include <loopsim/solvers/recursive/constrained_aba_solver.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <loopsim/model/errors.hpp>

namespace loopsim {

ConstrainedAbaSolver::ConstrainedAbaSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      tree_(constraints, added_inertia_, "solver 'constrained-aba'"),
      lambda_(VectorX::Zero(constraints.dimension())),
      step_(VectorX::Zero(constraints.dimension())) {
  requireProximalSettings(constraints, settings, "constrained-aba");
}

SolveStats ConstrainedAbaSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                       const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                                       Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  const double mu = settings_.muValue();
  const int m = tree_.dimension();
  if (!settings_.warm_start) lambda_.setZero();

  // Alg. 1: first forward sweep with the constraint updates (lines 1-10,
  // eq. 35), backward sweep (lines 11-23), roll-out (lines 24-26). Gravity
  // as bias forces: μ K¹ᵀK¹ then multiplies true accelerations, which vanish
  // at rest (tree_recursion.hpp, FirstPassGravity).
  tree_.forwardSweep(q, v, tau, fext, FirstPassGravity::AsBiasForce);
  step_ = mu * tree_.target + lambda_;  // g = μ t + λ (step_ is free until the first residual)
  tree_.addPenalties(mu, step_);
  for (int i = model().nbodies() - 1; i >= 1; --i) tree_.eliminateJoint(i, false);
  // The rows read only the constrained branches: the others roll out once,
  // after the last iteration (Alg. 2's force changes never reach them).
  tree_.rolloutConstrained(vdot);

  SolveStats stats;
  stats.converged = m == 0;
  stats.iterations = 1;
  double previous = std::numeric_limits<double>::infinity();
  while (m > 0) {
    // Alg. 3 lines 5-8: residual, multiplier update (eq. 33), force change.
    tree_.rowErrors(step_);  // K¹ a_B - t
    const double residual = step_.lpNorm<Eigen::Infinity>();
    step_ *= -mu;
    lambda_ += step_;
    tree_.addRowForces(step_);  // Δf_B = μ K¹ᵀ(t - K¹ a_B)
    stats.residual = residual;
    if (residual <= settings_.tolerance) {
      stats.converged = true;
      break;
    }
    if (stats.iterations >= settings_.max_iterations || residual > 0.9 * previous) break;
    previous = residual;
    // Alg. 2: the reduced two-sweep for the force change.
    tree_.reducedSweeps(tree_.delta_force, vdot);
    ++stats.iterations;
  }
  // The last force change was not swept: reducedSweeps expects it zero.
  for (Force& f : tree_.delta_force) f = Force(Vector6::Zero());
  tree_.rolloutUnconstrained(vdot);
  for (int r = 0; r < m; ++r) lambda[tree_.toGlobal(r)] = lambda_[r];
  return stats;
}

}  // namespace loopsim
