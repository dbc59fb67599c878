#pragma once
// The dense joint-space terms of `kkt`: M + diag(added) from CRBA and its
// dense Cholesky M = G Gᵀ (every entry, none of M's sparsity), J, W = J G⁻ᵀ
// by dense substitution and Λ = J M⁻¹ Jᵀ = W Wᵀ. Kept per q like
// JointSpaceTerms keeps its sparse factors, so that a post-step velocity
// projection on them (ProjectionTerms) leaves the next solve at the projected
// q only its velocity terms: the same bits as a full pass.
#include <span>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/linalg/dense_cholesky.hpp>
#include <loopsim/solvers/joint_space/held_position_terms.hpp>
#include <loopsim/solvers/joint_space/projection_terms.hpp>

namespace loopsim {

class DenseJointSpaceTerms final : public ProjectionTerms {
 public:
  /// `added_inertia` (size nv, owned by the solver, read at every evaluate)
  /// is added to M's diagonal: see ConstrainedSolver::setAddedInertia.
  DenseJointSpaceTerms(const ConstraintSet& set, const VectorX& added_inertia);

  /// Kinematics at (q, v), h − Σ Jᵀ f_ext (RNEA at zero acceleration, in
  /// bias()), M + diag(added_inertia) and its Cholesky, k and J, J G⁻ᵀ and
  /// Λ. The position terms of the previous evaluate / evaluateDelassus are
  /// kept when q is the same bits (and M's factors, J G⁻ᵀ and Λ too when the
  /// added diagonal is). No allocation.
  void evaluate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v, std::span<const Force> fext);

  void evaluateDelassus(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                        const VectorX& added) override;
  const ConstraintData& constraintData() const override { return cdata_; }
  const MatrixX& delassus() const override { return delassus_; }
  void inverseMassTimesJt(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> out) const override;

  const VectorX& bias() const { return data_.tau; }  // h − Σ Jᵀ f_ext
  const DenseCholesky& massCholesky() const { return mass_cholesky_; }

 private:
  void factorizeMass(const VectorX& added);  // CRBA on placeBodiesInWorld's inertias, + diag(added), Cholesky
  void refactorMass(const VectorX& added);   // the same M with another added diagonal
  void factorizeHeldMass();                  // Cholesky of data_.M; throws when it is not positive definite
  void reduceJacobian();                     // J G⁻ᵀ and Λ

  const ConstraintSet& set_;
  const VectorX& added_inertia_;
  Data data_;
  ConstraintData cdata_;
  std::vector<int> end_bodies_;  // bodies a constraint attaches to (not the world)
  DenseCholesky mass_cholesky_;  // dense: every entry of M, none of its sparsity
  MatrixX reduced_jacobian_;  // W = J G⁻ᵀ with M = G Gᵀ
  MatrixX delassus_;  // J M⁻¹ Jᵀ
  HeldPositionTerms held_;  // the q and added diagonal of the position terms
};

}  // namespace loopsim
