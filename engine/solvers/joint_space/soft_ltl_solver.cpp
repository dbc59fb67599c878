#include <loopsim/solvers/joint_space/soft_ltl_solver.hpp>

#include <cmath>
#include <string>

#include <loopsim/model/errors.hpp>

namespace loopsim {

SoftLtlSolver::SoftLtlSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      terms_(constraints, added_inertia_),
      compliance_(VectorX::Zero(constraints.dimension())),
      soft_delassus_(MatrixX::Zero(constraints.dimension(), constraints.dimension())),
      soft_delassus_llt_(constraints.dimension()) {
  const std::string& file = constraints.model().source_file;
  const std::string element = "solver 'soft-ltl'";
  const auto& weights = settings.soft_weights;
  if (!weights.empty() && static_cast<int>(weights.size()) != constraints.size()) {
    throw ModelError(file, element,
                     "soft_weights has " + std::to_string(weights.size()) + " entries for " +
                         std::to_string(constraints.size()) + " constraints (one per constraint, or none)");
  }
  for (int c = 0; c < constraints.size(); ++c) {
    const double w = weights.empty() ? settings.soft_weight : weights[c];
    if (!(w > 0.0) || !std::isfinite(w)) {
      throw ModelError(file, element + ", constraint '" + constraints[c].name + "'",
                       "soft weight must be positive and finite, got " + std::to_string(w));
    }
    compliance_.segment(constraints.rowOffset(c), constraints[c].dimension()).setConstant(1.0 / w);
  }
}

SolveStats SoftLtlSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                                Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  terms_.evaluate(q, v, tau, fext);
  if (terms_.dimension() == 0) {
    terms_.acceleration(lambda, vdot);  // λ is empty: the free acceleration
    return {};
  }
  // (Λ + W⁻¹) λ = k - J v̇_free: paper 000 eq. 52's penalty, moved to constraint space.
  soft_delassus_ = terms_.delassus();
  soft_delassus_.diagonal() += compliance_;
  soft_delassus_llt_.compute(soft_delassus_);
  if (soft_delassus_llt_.info() != Eigen::Success) {
    throw ModelError(model().source_file, "solver 'soft-ltl'",
                     "J M⁻¹ Jᵀ + W⁻¹ is not positive definite (non-finite state?)");
  }
  lambda = terms_.rhs();
  soft_delassus_llt_.solveInPlace(lambda);
  terms_.acceleration(lambda, vdot);

  SolveStats stats;
  stats.iterations = 1;
  stats.residual = terms_.residual(vdot);  // = ‖W⁻¹λ‖∞: the softness, not an error
  return stats;
}

}  // namespace loopsim
