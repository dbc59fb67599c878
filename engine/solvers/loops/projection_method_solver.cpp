#include <loopsim/solvers/loops/projection_method_solver.hpp>

#include <cmath>

#include <loopsim/algorithms/dynamics.hpp>

namespace loopsim {

ProjectionMethodSolver::ProjectionMethodSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      structure_(constraints, settings.independent_dofs, "solver 'projection-method'"),
      spanning_(structure_),
      data_(constraints.model()),
      cdata_(constraints),
      end_bodies_(constraints.endBodies()),
      projected_(constraints.model().nv, structure_.independentDofs()),
      force_(VectorX::Zero(constraints.model().nv)),
      ydd_(VectorX::Zero(structure_.independentDofs())),
      correction_(VectorX::Zero(structure_.independentDofs())),
      joint_force_(VectorX::Zero(constraints.model().nv)),
      residual_(VectorX::Zero(constraints.dimension())) {}

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
  projected_.factor(H, spanning_, m.source_file, "solver 'projection-method'");
  const MatrixX& G = projected_.G();

  // ÿ = (Gᵀ H G)⁻¹ Gᵀ (τ - c - H g) (paper 004 §II-D), q̈ = G ÿ + g (eq. 3).
  force_ = tau - bias;
  ydd_.noalias() = G.transpose() * force_;
  ydd_.noalias() -= projected_.HG().transpose() * projected_.g();  // Gᵀ H g = (H G)ᵀ g, H symmetric
  projected_.cholesky().solveInPlace(ydd_);
  spanning_.spanningAcceleration(ydd_, vdot);

  if (constraints_.dimension() > 0) {
    joint_force_ = bias - tau;
    joint_force_.noalias() += H * vdot;  // Jᵀλ = H q̈ + c - τ
    // One step of iterative refinement on the same factor: Gᵀ(H q̈ + c - τ)
    // should vanish; its round-off, magnified where |q̈| is large, is what λ
    // recovered from the joint force would carry. Costs n² + n n_y.
    correction_.noalias() = -G.transpose() * joint_force_;
    projected_.cholesky().solveInPlace(correction_);
    vdot.noalias() += G * correction_;
    joint_force_.noalias() += projected_.HG() * correction_;
    spanning_.multipliersFromJointForce(joint_force_, lambda);
    residual_.noalias() = cdata_.J * vdot;
    residual_ -= cdata_.k;
    stats.residual = residual_.lpNorm<Eigen::Infinity>();
  }
  stats.converged = pivot_ratio > kSingularPivotRatio && std::isfinite(stats.residual);
  return stats;
}

}  // namespace loopsim
