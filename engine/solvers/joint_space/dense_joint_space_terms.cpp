#include <loopsim/solvers/joint_space/dense_joint_space_terms.hpp>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/constraints/constraint_position_terms.hpp>

namespace loopsim {

DenseJointSpaceTerms::DenseJointSpaceTerms(const ConstraintSet& set, const VectorX& added_inertia)
    : set_(set),
      added_inertia_(added_inertia),
      data_(set.model()),
      cdata_(set),
      mass_llt_(set.model().nv),
      minv_jt_(MatrixX::Zero(set.model().nv, set.dimension())),
      delassus_(MatrixX::Zero(set.dimension(), set.dimension())),
      held_(set.model().nq, set.model().nv) {}

void DenseJointSpaceTerms::evaluate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                    std::span<const Force> fext) {
  const Model& model = set_.model();
  const bool same_factors = held_.sameFactors(q, added_inertia_);
  // One kinematics pass shared by RNEA, CRBA and the constraint terms.
  const bool same_q = held_.kinematicsAt(model, data_, q, v, cdata_.zero_nv);
  biasForcesAtKinematics(model, data_, fext);
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
  forwardKinematics(set_.model(), data_, q);
  factorizeMass(added);
  evaluatePositionTerms(set_, data_, q, cdata_);
  cdata_.phidot.noalias() = cdata_.J * v;
  reduceJacobian();
  held_.hold(q, added);
}

void DenseJointSpaceTerms::inverseMassTimesJt(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> out) const {
  out.noalias() = minv_jt_ * lambda;
}

void DenseJointSpaceTerms::factorizeMass(const VectorX& added) {
  crbaAtKinematics(set_.model(), data_);  // data_.M is ours: only its pattern is ever written
  held_.addToDiagonal(data_.M, added);
  mass_llt_.compute(data_.M);
}

void DenseJointSpaceTerms::refactorMass(const VectorX& added) {
  held_.replaceDiagonal(data_.M, added);
  mass_llt_.compute(data_.M);
}

void DenseJointSpaceTerms::reduceJacobian() {
  if (set_.dimension() == 0) return;
  minv_jt_ = cdata_.J.transpose();
  mass_llt_.solveInPlace(minv_jt_);
  delassus_.noalias() = cdata_.J * minv_jt_;
}

}  // namespace loopsim
