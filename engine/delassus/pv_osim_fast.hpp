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
//
// Damped (paper 001 eq. 13's Λ_μ = J M⁻¹ Jᵀ + μ⁻¹I, the matrix prox-pv
// eliminates with): with a damping μ the same lemma runs on L_b^A + μ⁻¹I, so
// x ← (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹ x. μ⁻¹I keeps every branch block positive definite,
// and the base link's own rows (a zero block of L_b^A) become the block μ⁻¹I:
// the damped variant takes the sets the undamped one refuses.
#include <Eigen/Cholesky>
#include <string_view>
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/solvers/common/tree_recursion.hpp>

namespace loopsim {

class PvOsimFast {
 public:
  /// Throws ModelError unless the model has a floating base carrying every
  /// constraint (world constraints only). damping = μ > 0 (finite) solves with
  /// J M⁻¹ Jᵀ + μ⁻¹I; 0 (the default) with J M⁻¹ Jᵀ. Throws ModelError naming
  /// the value when negative or not finite.
  explicit PvOsimFast(const ConstraintSet& set, double damping = 0.0);

  /// The backward sweep and the per-branch factors at q. Throws ModelError
  /// when L_b^A is singular (the reason named). No allocation otherwise.
  void factor(const Eigen::Ref<const VectorX>& q);
  /// x ← (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹ x (constraint set's row order; μ⁻¹ = 0 undamped). No allocation.
  void solveInPlace(Eigen::Ref<VectorX> x);
  /// out (m x m) = (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹ by eq. 55 as matrices: the branches'
  /// block inverses minus the rank-6 L_K (D_b + K_bᵀ L_K)⁻¹ L_Kᵀ, never a
  /// solve per column. No allocation.
  void inverse(Eigen::Ref<MatrixX> out);

  /// Smallest pivot² / largest diagonal accepted in L_b^A's branch factors.
  static constexpr double kPivotRatio = 1e-10;

 private:
  const ConstraintSet& set_;
  VectorX no_added_inertia_;
  TreeRecursion tree_;
  int base_ = 1;
  double inverse_damping_ = 0.0;  // μ⁻¹
  // Diagonal blocks of L_b^A: the base's own rows (damped only), then one per
  // constrained branch (body: the base, or the branch's first link).
  struct Block {
    int first_row, rows, body;
  };
  std::vector<Block> blocks_;
  MatrixX factor_;                                   // per-branch Cholesky of L_b^A
  Eigen::Matrix<double, Eigen::Dynamic, 6> LK_;     // L_K = Λ_b K_b^A
  Eigen::LLT<Matrix6> schur_;                       // D_b + K_b^Aᵀ L_K
  VectorX work_;
  MatrixX inverse_;                                  // inverse()'s m x m in the internal row order
  Eigen::Matrix<double, 6, Eigen::Dynamic> schur_LKt_;  // (D_b + K_bᵀ L_K)⁻¹ L_Kᵀ
};

}  // namespace loopsim
