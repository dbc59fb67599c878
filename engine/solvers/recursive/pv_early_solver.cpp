#include <loopsim/solvers/recursive/pv_early_solver.hpp>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/constraints/constraint_rank.hpp>

namespace loopsim {

PvEarlySolver::PvEarlySolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings), early_(constraints, added_inertia_, "solver 'pv-early'") {}

SolveStats PvEarlySolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                                Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  SolveStats stats;
  if (!early_.solve(q, v, tau, fext, vdot, lambda, stats)) throwRankDeficient(q, v);
  stats.residual = early_.tree().residual();
  return stats;
}

void PvEarlySolver::throwRankDeficient(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v) const {
  ConstraintData cdata(constraints_);
  Data data(model());
  computeConstraintTerms(constraints_, data, q, v, cdata, kConstraintErrors | kConstraintJacobian);
  loopsim::throwRankDeficient(constraints_, cdata.J, name());
}

}  // namespace loopsim
