#pragma once
// Paper 000 Alg. 1 (Popov-Vereshchagin) on a tree with world constraints, with
// an optional compliance per row: the sweeps and root solves shared by `pv`
// (no compliance) and `pv-soft`'s compliance form (eq. 52's problem with the
// multipliers kept, see pv_soft_solver.hpp).
//
// With a compliance C = W⁻¹ per row the constraint reads K a + W⁻¹ λ = k
// (λ = W (k - K a), the soft Gauss principle eq. 50), so every use of
// L^A at a root becomes L^A + C: eq. 43 solves (L_0^A + C) λ = -(l_0 + K_0 a_0)
// and eq. 49 factors L_b^A + C. This is paper 001 eq. 13's damped system with
// μ⁻¹I replaced by W⁻¹ and no previous λ. L^A + C is positive definite for any
// positive C, and has no large entries however large W is: the weight enters
// only as 1/W.
#include <string_view>

#include <loopsim/solvers/common/tree_recursion.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class PvRecursion {
 public:
  /// Throws ModelError (element `owner`) on internal loops or couplings.
  PvRecursion(const ConstraintSet& set, const VectorX& added_inertia, std::string_view owner);

  /// One PV solve (Alg. 1 lines 1-17). stats.path says which floating-base
  /// path was taken ("eq. 43", "eq. 49", "eq. 47-48"). Returns false, with
  /// vdot and lambda unset, when L_0^A + C is singular at a root (a rank
  /// deficient set without compliance). lambda in the set's row order.
  /// stats.residual is left to the caller (pv: ‖J v̇ - k‖∞, tree().residual();
  /// pv-soft: the softness ‖W⁻¹λ‖∞). No allocation.
  bool solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
             const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
             Eigen::Ref<VectorX> lambda, SolveStats& stats);

  /// C per row in the set's row order (size m; zero = hard, the default).
  /// Must be positive wherever it is not zero.
  void setCompliance(const VectorX& compliance);

  /// Smallest pivot² / largest diagonal of (L_b^A + C)'s Cholesky below which
  /// eq. 49 is not used (its error grows like L_b^A + C's condition number).
  static constexpr double kEq49PivotRatio = 1e-6;

  /// The recursion's workspace, for solvers that also run other passes on it.
  TreeRecursion& tree() { return tree_; }

 private:
  bool solveFloatingRootEq49(int root, Eigen::Ref<VectorX> vdot);
  bool solveRootEq43(int root);
  // factor_'s block of rows [b, b + n) = L^A + C, lower triangle.
  void loadCompliantBlock(int b, int n);

  TreeRecursion tree_;
  const VectorX& added_inertia_;
  VectorX compliance_;  // internal row order
  bool has_compliance_ = false;
  VectorX lambda_;      // internal row order
  MatrixX factor_;      // Cholesky workspace, m x m
  // Eq. 49's [Z z] = G⁻¹ [K_b^A  l'] with L_b^A + C = G Gᵀ, one 8-wide row per
  // constraint row (column 7 is padding: a row is one cache line and one
  // AVX-512 vector).
  Eigen::Matrix<double, Eigen::Dynamic, 8, Eigen::RowMajor> Z_;
};

}  // namespace loopsim
