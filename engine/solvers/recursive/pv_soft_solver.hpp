#pragma once
// `pv-soft`: the soft Gauss principle through the ABA recursion (paper 000 §VI):
//   minimise Σ ½‖a_i - H_i⁻¹f_i‖²_{H_i} + ½ Σ_c ‖K_c a - k_c‖²_{W_c}   (eq. 50)
// is a tree problem without motion constraints once each constrained body's
// inertia and force take the penalty (eq. 52, with the erratum K_iᵀ R_i⁻¹ k_i):
//   H_i ← H_i + K_iᵀ W K_i,   f_i ← f_i + K_iᵀ W k_i,
// then plain ABA; λ = W (k - J v̇). O(n + m). The problem is soft-ltl's
// (same weights, same Baumgarte target k): both must agree to round-off.
//
// Eq. 52 in floating point: the penalty W KᵀK enters the articulated
// inertias, and ABA's projections Ia - U D⁻¹ Uᵀ subtract terms of size W to
// leave the O(1) inertia of the directions the constraint does not hold, so
// v̇ carries an error of about ε κ, κ = 1 + λ_max(W^½ J M⁻¹ Jᵀ W^½) the
// penalty's stiffness relative to the tree's inertia; λ = W (k - J v̇) divides
// the constraint error by the compliance and has the same error. (Measured
// against the soft problem solved in long double: 1e-11 at W = 1e6 and 1e-5 at
// W = 1e12 on the humanoid; tests/unit/test_recursive_solvers.cpp.) So eq. 52 is
// used only when a bound on κ, known at bind time, keeps that error below
// 1e-11; otherwise the same problem is solved in its compliance form, where
// the weight enters as W⁻¹ and no term of size W is formed, by one of two
// recursions chosen at bind time from the tree's structure:
// - PV with the multipliers kept, (L^A + W⁻¹) λ = -(l + K a) at the root
//   (pv_recursion.hpp; O(n + m²d + m³), small constants, O(n + md) when each
//   constrained end has its own branch from the base, as on Atlas and Go1);
// - early elimination with W⁻¹ carried by the travelling rows
//   (pv_early_recursion.hpp; O(n + m), larger constants than PV's), when
//   PV's row work would exceed early elimination's by
//   kEarlyEliminationCostRatio (pv_soft_solver.cpp counts both).
// SolveStats::path says which: "eq. 52", PV's path with "+ W⁻¹", or
// "early elimination + W⁻¹".
//
// The bound: λ_max of a positive semidefinite block matrix is at most the sum
// of its diagonal blocks' λ_max, and constraint c's block J_c M⁻¹ J_cᵀ is at
// most K_c H_c⁻¹ K_cᵀ, H_c the rigid inertia of c's body alone (its joints,
// the rest of the tree, armature and added inertia only add inertia against a
// force on it). K_c is constant in the body's frame, so
//   κ ≤ 1 + Σ_c w_c λ_max(K_c H_c⁻¹ K_cᵀ)
// for every state.
#include <optional>

#include <loopsim/solvers/recursive/pv_early_recursion.hpp>
#include <loopsim/solvers/recursive/pv_recursion.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class PvSoftSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError on internal loops, couplings, or bad weights.
  PvSoftSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "pv-soft"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true, .redundant = true, .soft = true};
  }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

  /// Whether the compliance form is early elimination (else PV), fixed at bind time.
  bool usesEarlyElimination() const { return early_.has_value(); }
  /// PV's row work over early elimination's (pv_soft_solver.cpp) above which
  /// the compliance form is early elimination: about where the two cost the
  /// same on paper 000 Fig. 4b's ladder (measurements: docs/performance.md).
  static constexpr double kEarlyEliminationCostRatio = 6.0;
  /// The bind-time bound on eq. 52's κ (see above).
  double stiffnessBound() const { return stiffness_bound_; }
  /// Largest stiffness bound at which eq. 52 is used: its error ε κ stays
  /// below about 1e-11 with the measured constant.
  static constexpr double kMaxEq52Stiffness = 1e4;

 private:
  SolveStats solveEq52(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                       const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                       Eigen::Ref<VectorX> lambda);

  TreeRecursion& tree() { return early_ ? early_->tree() : pv_->tree(); }

  // The compliance form, one of the two (its tree also runs eq. 52).
  std::optional<PvRecursion> pv_;
  std::optional<PvEarlyRecursion> early_;
  VectorX weights_;  // W per row, global order
  double stiffness_bound_ = 0.0;
};

}  // namespace loopsim
