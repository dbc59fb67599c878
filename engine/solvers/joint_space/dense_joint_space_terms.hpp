#pragma once
// The dense joint-space terms of `kkt`: M + diag(added) from CRBA and its dense
// Cholesky, J, M⁻¹ Jᵀ by dense solves and Λ = J M⁻¹ Jᵀ. Kept per q like
// JointSpaceTerms keeps its sparse factors, so that a post-step velocity
// projection on them (ProjectionTerms) leaves the next solve at the projected
// q only its velocity terms: the same bits as a full pass.
#include <Eigen/Cholesky>
#include <span>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/solvers/joint_space/held_position_terms.hpp>
#include <loopsim/solvers/joint_space/projection_terms.hpp>

namespace loopsim {

class DenseJointSpaceTerms final : public ProjectionTerms {
 public:
  /// `added_inertia` (size nv, owned by the solver, read at every evaluate)
  /// is added to M's diagonal: see ConstrainedSolver::setAddedInertia.
  DenseJointSpaceTerms(const ConstraintSet& set, const VectorX& added_inertia);

  /// Kinematics at (q, v), h − Σ Jᵀ f_ext (RNEA at zero acceleration, in
  /// bias()), M + diag(added_inertia) and its Cholesky, k and J, M⁻¹ Jᵀ and
  /// Λ. The position terms of the previous evaluate / evaluateDelassus are
  /// kept when q is the same bits (and M's factors, M⁻¹ Jᵀ and Λ too when the
  /// added diagonal is). No allocation.
  void evaluate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v, std::span<const Force> fext);

  void evaluateDelassus(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                        const VectorX& added) override;
  const ConstraintData& constraintData() const override { return cdata_; }
  const MatrixX& delassus() const override { return delassus_; }
  void inverseMassTimesJt(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> out) const override;

  const VectorX& bias() const { return data_.tau; }  // h − Σ Jᵀ f_ext
  const Eigen::LLT<MatrixX>& massCholesky() const { return mass_llt_; }
  const MatrixX& inverseMassTimesJt() const { return minv_jt_; }  // M⁻¹ Jᵀ, nv x m

 private:
  void factorizeMass(const VectorX& added);  // CRBA on the current kinematics, + diag(added), Cholesky
  void refactorMass(const VectorX& added);   // the same M with another added diagonal
  void reduceJacobian();                     // M⁻¹ Jᵀ and Λ

  const ConstraintSet& set_;
  const VectorX& added_inertia_;
  Data data_;
  ConstraintData cdata_;
  Eigen::LLT<MatrixX> mass_llt_;
  MatrixX minv_jt_;   // M⁻¹ Jᵀ
  MatrixX delassus_;  // J M⁻¹ Jᵀ
  HeldPositionTerms held_;  // the q and added diagonal of the position terms
};

}  // namespace loopsim
