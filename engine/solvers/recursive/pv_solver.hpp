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
#include <loopsim/solvers/recursive/pv_recursion.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class PvSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError when the set has internal loops or couplings.
  PvSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "pv"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true};
  }

  /// Throws ModelError naming the dependent rows when the set is rank deficient.
  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

 private:
  [[noreturn]] void throwRankDeficient(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v) const;

  PvRecursion pv_;  // Alg. 1's sweeps and root solves (no compliance)
};

}  // namespace loopsim
