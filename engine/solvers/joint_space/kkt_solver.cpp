#include <loopsim/solvers/joint_space/kkt_solver.hpp>

#include <loopsim/solvers/joint_space/joint_space_terms.hpp>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>

namespace loopsim {

KktSolver::KktSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      data_(constraints.model()),
      cdata_(constraints),
      mass_llt_(constraints.model().nv),
      delassus_llt_(constraints.dimension()),
      minv_jt_(MatrixX::Zero(constraints.model().nv, constraints.dimension())),
      delassus_(MatrixX::Zero(constraints.dimension(), constraints.dimension())),
      vdot_free_(VectorX::Zero(constraints.model().nv)),
      rhs_(VectorX::Zero(constraints.dimension())),
      external_(VectorX::Zero(constraints.model().nv)) {}

SolveStats KktSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                            const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                            Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  const Model& model = this->model();
  // h - Σ Jᵀ f_ext from RNEA at zero acceleration (fext folded in), then M.
  // One kinematics pass shared by RNEA, CRBA and the constraint terms.
  forwardKinematics(model, data_, q, v, cdata_.zero_nv);
  biasForcesAtKinematics(model, data_, fext);
  external_ = data_.tau;  // h - Σ Jᵀ f_ext
  crbaAtKinematics(model, data_);        // data_.M is ours: only its pattern is ever written
  data_.M.diagonal() += added_inertia_;  // implicit damping: M + dt·D
  evaluateConstraints(constraints_, data_, q, v, cdata_, kConstraintErrors | kConstraintJacobian);

  mass_llt_.compute(data_.M);
  vdot_free_ = tau - external_;
  mass_llt_.solveInPlace(vdot_free_);  // v̇_free = M⁻¹(τ - h + Σ Jᵀ f_ext)
  const int m = constraints_.dimension();
  if (m == 0) {
    vdot = vdot_free_;
    return {};
  }
  minv_jt_ = cdata_.J.transpose();
  mass_llt_.solveInPlace(minv_jt_);
  delassus_.noalias() = cdata_.J * minv_jt_;
  delassus_llt_.compute(delassus_);
  // A rank-deficient set makes Λ singular: the factorisation fails or a pivot
  // collapses relative to the diagonal.
  if (choleskyCollapsed(delassus_, delassus_llt_)) throwRankDeficient(constraints_, cdata_.J, name());

  rhs_ = cdata_.k;
  rhs_.noalias() -= cdata_.J * vdot_free_;
  delassus_llt_.solveInPlace(rhs_);
  lambda = rhs_;  // Λ λ = k - J v̇_free
  vdot = vdot_free_;
  vdot.noalias() += minv_jt_ * lambda;

  SolveStats stats;
  stats.iterations = 1;
  rhs_ = cdata_.k;
  rhs_.noalias() -= cdata_.J * vdot;
  stats.residual = rhs_.lpNorm<Eigen::Infinity>();
  return stats;
}

}  // namespace loopsim
