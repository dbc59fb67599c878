#include <loopsim/solvers/loops/projection_method_solver.hpp>

#include <cmath>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

ProjectionMethodSolver::ProjectionMethodSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      structure_(constraints, settings.independent_dofs, "solver 'projection-method'"),
      spanning_(structure_),
      data_(constraints.model()),
      cdata_(constraints),
      end_bodies_(constraints.endBodies()),
      G_(MatrixX::Zero(constraints.model().nv, structure_.independentDofs())),
      g_(VectorX::Zero(constraints.model().nv)),
      HG_(MatrixX::Zero(constraints.model().nv, structure_.independentDofs())),
      reduced_(MatrixX::Zero(structure_.independentDofs(), structure_.independentDofs())),
      cholesky_(structure_.independentDofs()),
      force_(VectorX::Zero(constraints.model().nv)),
      ydd_(VectorX::Zero(structure_.independentDofs())),
      joint_force_(VectorX::Zero(constraints.model().nv)),
      residual_(VectorX::Zero(constraints.dimension())) {}

void ProjectionMethodSolver::assembleSpanning() {
  // Eq. 3 for the whole tree: G is block diagonal over the clusters, each
  // cluster's independent columns in structure_.independentDofIndices() order.
  int column = 0;
  const auto& clusters = structure_.clusters();
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    const MatrixX& Gk = spanning_.G(static_cast<int>(k));
    const VectorX& gk = spanning_.g(static_cast<int>(k));
    for (int d = 0; d < cl.dofCount(); ++d) {
      G_.row(cl.dofs[d]).segment(column, cl.independentCount()) = Gk.row(d);
      g_[cl.dofs[d]] = gk[d];
    }
    column += cl.independentCount();
  }
}

SolveStats ProjectionMethodSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                         const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                                         Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  const Model& m = model();
  SolveStats stats;
  stats.iterations = 1;
  // H and c from one kinematics pass (CRBA and RNEA in the world frame, as kkt).
  placeBodiesInWorld(m, data_, q);
  const VectorX& bias = biasForcesInWorldFrame(m, data_, v, fext);  // c = h - Σ Jᵀ f_ext
  bodyMotionsFromWorldFrame(m, data_, end_bodies_);
  MatrixX& H = data_.M;
  crbaAtWorldInertias(m, data_);
  H.diagonal() += added_inertia_;
  double pivot_ratio = 1.0;
  if (constraints_.dimension() > 0) {
    evaluateConstraints(constraints_, data_, q, v, cdata_, kConstraintErrors | kConstraintJacobian);
    pivot_ratio = spanning_.update(cdata_);
  }
  assembleSpanning();

  // ÿ = (Gᵀ H G)⁻¹ Gᵀ (τ - c - H g) (paper 004 §II-D), q̈ = G ÿ + g (eq. 3).
  HG_.noalias() = H * G_;
  reduced_.noalias() = G_.transpose() * HG_;
  force_ = tau - bias;
  ydd_.noalias() = G_.transpose() * force_;
  ydd_.noalias() -= HG_.transpose() * g_;  // Gᵀ H g = (H G)ᵀ g, H symmetric
  if (cholesky_.factorize(reduced_) == 0.0) {
    throw ModelError(m.source_file, "solver 'projection-method'",
                     "the projected inertia Gᵀ H G is not positive definite at this state");
  }
  cholesky_.solveInPlace(ydd_);
  vdot = g_;
  vdot.noalias() += G_ * ydd_;

  if (constraints_.dimension() > 0) {
    joint_force_ = bias - tau;
    joint_force_.noalias() += H * vdot;  // Jᵀλ = H q̈ + c - τ
    spanning_.multipliersFromJointForce(joint_force_, lambda);
    residual_.noalias() = cdata_.J * vdot;
    residual_ -= cdata_.k;
    stats.residual = residual_.lpNorm<Eigen::Infinity>();
  }
  stats.converged = pivot_ratio > kSingularPivotRatio && std::isfinite(stats.residual);
  return stats;
}

}  // namespace loopsim
