#pragma once
// `constrained-aba`: the augmented-Lagrangian recursion for world constraints
// (paper 001 Alg. 1-3, LCABA without neighbours: §IV-A "constraints with
// respect to ground", eq. 35 — the paper's constrainedABA).
//
// Iteration k minimises the augmented Lagrangian over v̇ (paper 001 eq. 7a):
// every constrained body B gets H_B += μ K¹ᵀK¹ and f_B += K¹ᵀ(μ t + λᵏ) (eqs.
// 25/35 with loopsim's λ = -λ_paper and t the target on ABA's a_gf, which
// absorbs eq. 35's -μ K¹ a_0), then ABA; the multipliers follow eq. 33:
// λᵏ⁺¹ = λᵏ + μ (t - K¹ a_B). The inertias do not depend on λ, so iterations
// after the first reuse them: the reduced two-sweep (Alg. 2) propagates only
// the force change Δf_B = μ K¹ᵀ(t - K¹ a_B) (Alg. 3 line 7, "-=" with the
// paper's sign). Redundant sets are fine (the method of multipliers converges
// in v̇ and Jᵀλ). It stops when ‖J v̇ - k‖∞ <= tolerance, after
// max_iterations primal solves, or when the residual stops decreasing
// (round-off floor; reported not converged). The returned λ is λᵏ⁺¹ of the
// last primal solve, so M v̇ + h = τ + Jᵀλ holds exactly and only J v̇ = k is
// approximate. Warm start: λ⁰ is the previous solve's λ.
#include <loopsim/solvers/common/tree_recursion.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class ConstrainedAbaSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError on internal loops, couplings, or bad mu / tolerance /
  /// max_iterations.
  ConstrainedAbaSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "constrained-aba"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true, .redundant = true, .iterative = true, .penalty_in_inertia = true};
  }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

 private:
  TreeRecursion tree_;
  VectorX lambda_;  // internal row order; the warm start
  VectorX step_;    // internal row order: the row errors, then the multiplier step μ(t - K¹ a_B)
};

}  // namespace loopsim
