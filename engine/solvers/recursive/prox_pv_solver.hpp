#pragma once
// `prox-pv`: the dual proximal-point iteration (paper 001 §III-D, Alg. 4-6
// restricted to world constraints, §IV-A) on PV's recursion. The backward
// sweep is PV's (paper 000 eq. 42), with the floating base eliminated as a
// 6-dof joint (eq. 48), so that the world holds L_0^A = J M⁻¹ Jᵀ; the
// proximal term adds μ⁻¹I there and the multipliers are eliminated at the
// root like eqs. 43/47, one Cholesky of L_0^A + μ⁻¹I per solve:
//   (L_0^A + μ⁻¹I) λᵏ⁺¹ = -(l_0 + K_0^A a_0) + μ⁻¹ λᵏ   (loopsim's λ sign).
// Later iterations only re-solve with the factor (the inertias and L do not
// depend on λ); one roll-out gives v̇. It keeps PV's m³ root solve: O(n +
// m²d + m³). L + μ⁻¹I is positive definite for any J: redundant sets are fine.
// Stopping as prox-ltl: the estimate μ⁻¹‖λᵏ⁺¹ - λᵏ‖∞ of ‖J v̇ - k‖∞, then
// the true residual after the roll-out; a stalled residual (round-off floor)
// stops the iteration, reported not converged. Warm start from the last λ.
#include <loopsim/solvers/common/tree_recursion.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class ProxPvSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError on internal loops, couplings, or bad mu / tolerance /
  /// max_iterations.
  ProxPvSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "prox-pv"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true, .redundant = true, .iterative = true};
  }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

 private:
  TreeRecursion tree_;
  MatrixX factor_;   // Cholesky of L_0^A + μ⁻¹I per world child's block
  VectorX rhs_;      // -(l_0 + K_0^A a_0)
  VectorX lambda_, lambda_prev_;  // internal row order
};

}  // namespace loopsim
