#pragma once
// `pv`: the Popov-Vereshchagin solver for kinematic trees with world
// constraints on any link, fixed or floating base (paper 000 Alg. 1,
// eqs. 41-49). O(n + m²d + m³) worst case; O(n + md) when the tree branches
// at the base with one constrained end per branch (paper 000 §V-C).
//
// Floating base: the multipliers and the base acceleration are the saddle
// point of eq. 44. Eq. 49 (eliminate λ first, 6 x 6 solve; Alg. 1 lines 13-14)
// needs L_b^A invertible, which fails when a constraint sits on the base link,
// when a branch carries more rows than dofs, or at a straight knee; then the
// base joint is eliminated like any 6-dof joint (eq. 48) and the m x m system
// eq. 47 is solved. The choice is made per solve by the pivots of L_b^A's
// Cholesky and reported in SolveStats::path.
#include <loopsim/solvers/recursive/tree_recursion.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class PvSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError when the set has internal loops or couplings.
  PvSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "pv"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() { return {true, false, false, false, false, false, false}; }

  /// Throws ModelError naming the dependent rows when the set is rank deficient.
  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

  /// Smallest pivot² / largest diagonal of L_b^A's Cholesky below which eq. 49
  /// is not used (its error grows like L_b^A's condition number).
  static constexpr double kEq49PivotRatio = 1e-6;

 private:
  bool solveFloatingRootEq49(int root, Eigen::Ref<VectorX> vdot);
  bool solveRootEq43(int root);
  [[noreturn]] void throwRankDeficient(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v) const;

  TreeRecursion tree_;
  VectorX lambda_;  // internal row order
  MatrixX factor_;  // Cholesky workspace, m x m
  // Eq. 49's [Z z] = G⁻¹ [K_b^A  l'] with L_b^A = G Gᵀ, one 8-wide row per
  // constraint row (column 7 is padding: a row is one cache line and one
  // AVX-512 vector).
  Eigen::Matrix<double, Eigen::Dynamic, 8, Eigen::RowMajor> Z_;
};

}  // namespace loopsim
