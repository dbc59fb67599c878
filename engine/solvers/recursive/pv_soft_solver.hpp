#pragma once
// `pv-soft`: the soft Gauss principle through the ABA recursion (paper 000 §VI):
//   minimise Σ ½‖a_i - H_i⁻¹f_i‖²_{H_i} + ½ Σ_c ‖K_c a - k_c‖²_{W_c}   (eq. 50)
// is a tree problem without motion constraints once each constrained body's
// inertia and force take the penalty (eq. 52, with the erratum K_iᵀ R_i⁻¹ k_i):
//   H_i ← H_i + K_iᵀ W K_i,   f_i ← f_i + K_iᵀ W k_i,
// then plain ABA; λ = W (k - J v̇). O(n + m). The problem is soft-ltl's
// (same weights, same Baumgarte target k): both must agree to round-off.
#include <loopsim/solvers/recursive/tree_recursion.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class PvSoftSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError on internal loops, couplings, or bad weights.
  PvSoftSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "pv-soft"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() { return {true, false, false, true, true, false, false}; }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

 private:
  TreeRecursion tree_;
  VectorX weights_;  // W per row, global order
};

}  // namespace loopsim
