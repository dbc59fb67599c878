#include <loopsim/solvers/joint_space/dense_joint_space_terms.hpp>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/constraints/constraint_position_terms.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

DenseJointSpaceTerms::DenseJointSpaceTerms(const ConstraintSet& set, const VectorX& added_inertia)
    : ProjectionTerms(set.dimension()),
      set_(set),
      added_inertia_(added_inertia),
      data_(set.model()),
      cdata_(set),
      end_bodies_(set.endBodies()),
      mass_cholesky_(set.model().nv),
      reduced_jacobian_(MatrixX::Zero(set.dimension(), set.model().nv)),
      delassus_(MatrixX::Zero(set.dimension(), set.dimension())),
      held_(set.model().nq, set.model().nv) {}

void DenseJointSpaceTerms::evaluate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                    std::span<const Force> fext) {
  const Model& model = set_.model();
  const bool same_factors = held_.sameFactors(q, added_inertia_);
  // Placements, world subspaces and inertias once per q, shared by RNEA
  // (world frame), CRBA and the constraint terms (as JointSpaceTerms).
  const bool same_q = held_.sameQ(q);
  if (!same_q) placeBodiesInWorld(model, data_, q);
  biasForcesInWorldFrame(model, data_, v, fext);
  bodyMotionsFromWorldFrame(model, data_, end_bodies_);
  if (!same_q) {
    factorizeMass(added_inertia_);
  } else if (!same_factors) {
    refactorMass(added_inertia_);
  }
  // k at the new v; J only at a new q.
  evaluateConstraints(set_, data_, q, v, cdata_, same_q ? kConstraintErrors : kConstraintErrors | kConstraintJacobian);
  if (!same_factors) {
    reduceJacobian();
    held_.hold(q, added_inertia_);
  }
}

void DenseJointSpaceTerms::evaluateDelassus(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                            const VectorX& added) {
  // Placements only: a projection needs φ, J and J v, not the velocity
  // products (the next solve at q computes those at its own v).
  placeBodiesInWorld(set_.model(), data_, q);
  factorizeMass(added);
  evaluatePositionTerms(set_, data_, q, cdata_);
  cdata_.phidot.noalias() = cdata_.J * v;
  reduceJacobian();
  held_.hold(q, added);
}

void DenseJointSpaceTerms::inverseMassTimesJt(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> out) const {
  out.noalias() = reduced_jacobian_.transpose() * lambda;
  mass_cholesky_.solveUpper(out);
}

void DenseJointSpaceTerms::factorizeMass(const VectorX& added) {
  crbaAtWorldInertias(set_.model(), data_);  // data_.M is ours: only its pattern is ever written
  held_.addToDiagonal(data_.M, added);
  factorizeHeldMass();
}

void DenseJointSpaceTerms::refactorMass(const VectorX& added) {
  held_.replaceDiagonal(data_.M, added);
  factorizeHeldMass();
}

void DenseJointSpaceTerms::factorizeHeldMass() {
  if (mass_cholesky_.factorize(data_.M) == 0.0) {
    const Model& model = set_.model();
    throw ModelError(model.source_file, "model '" + model.name + "'",
                     "joint-space inertia matrix is not positive definite (dense Cholesky of M + diag(added))");
  }
}

void DenseJointSpaceTerms::reduceJacobian() {
  if (set_.dimension() == 0) return;
  // With M = G Gᵀ: W = J G⁻ᵀ (m x nv) and Λ = J M⁻¹ Jᵀ = W Wᵀ; M⁻¹ Jᵀ λ is
  // then G⁻ᵀ (Wᵀ λ), one back substitution per use.
  reduced_jacobian_ = cdata_.J;
  mass_cholesky_.solveLowerTransposedRows(reduced_jacobian_);
  delassus_.noalias() = reduced_jacobian_ * reduced_jacobian_.transpose();
  delassusChanged();
}

}  // namespace loopsim
