#pragma once
// `pv-osim-fast` (paper 000 §VII-B, eqs. 53-55): solves with the Delassus
// matrix of a floating-base tree without forming it. PV's backward sweep stops
// below the floating base b, where L_b^A is block diagonal over b's branches;
// with Λ_b = (L_b^A)⁻¹ (per branch) and L_K = Λ_b K_b^A, the matrix inversion
// lemma on eq. 48 gives
//   (J M⁻¹ Jᵀ)⁻¹ = (L_b^A + K_b^A D_b⁻¹ K_b^Aᵀ)⁻¹ = Λ_b - L_K (D_b + K_b^Aᵀ L_K)⁻¹ L_Kᵀ,
// D_b = H_b^A (+ the base's armature). Valid only when L_b^A is invertible:
// factor() refuses (ModelError, with the reason) when a constraint sits on the
// base link, a branch carries more rows than it can move (Atlas on 4-point
// feet), or a pivot collapses (straight knee). Body frames, as pv-osim.
#include <Eigen/Cholesky>
#include <string_view>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/solvers/recursive/tree_recursion.hpp>

namespace loopsim {

class PvOsimFast {
 public:
  /// Throws ModelError unless the model has a floating base carrying every
  /// constraint (world constraints only).
  explicit PvOsimFast(const ConstraintSet& set);

  /// The backward sweep and the per-branch factors at q. Throws ModelError
  /// when L_b^A is singular (the reason named). No allocation otherwise.
  void factor(const Eigen::Ref<const VectorX>& q);
  /// x ← (J M⁻¹ Jᵀ)⁻¹ x (constraint set's row order). No allocation.
  void solveInPlace(Eigen::Ref<VectorX> x);

  /// Smallest pivot² / largest diagonal accepted in L_b^A's branch factors.
  static constexpr double kPivotRatio = 1e-10;

 private:
  const ConstraintSet& set_;
  VectorX no_added_inertia_;
  TreeRecursion tree_;
  int base_ = 1;
  MatrixX factor_;                                   // per-branch Cholesky of L_b^A
  Eigen::Matrix<double, Eigen::Dynamic, 6> LK_;     // L_K = Λ_b K_b^A
  Eigen::LLT<Matrix6> schur_;                       // D_b + K_b^Aᵀ L_K
  VectorX work_;
};

}  // namespace loopsim
