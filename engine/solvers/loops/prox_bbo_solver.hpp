#pragma once
// `prox-bbo`: the proximal BBO algorithm (paper 001 §V, Alg. 4-6): the dual
// proximal-point method on Gauss' principle, each iteration solved by
// non-serial dynamic programming in which the multipliers are nodes of the
// elimination graph (multiplier_elimination.hpp).
//
// Iteration k solves (paper 001 eqs. 37-39, loopsim's λ = -λ_paper)
//   M v̇ + h = τ + Jᵀλ,   J v̇ - k + μ⁻¹(λ - λᵏ) = 0.
// Every constraint j starts as the row block K¹a₁ + K²a₂ + l_j + L_jj λ_j = 0
// with L_jj = μ⁻¹I and l_j = -t_j - μ⁻¹λᵏ_j (eq. 42; t the target on ABA's
// gravity-shifted accelerations a_gf). Links are eliminated children first:
// ABA's step, plus PV's transport of the supported rows K̄_{i,N_i} to the
// parent (eqs. 46c-46e; L accumulates (K̄S)D⁻¹(K̄S)ᵀ, the dual Hessian). At a
// loop's root τ_j both ends' rows have met and λ_j is eliminated early
// (eqs. 49-52): a Cholesky of L_RR one multiplier block at a time, over
// the blocks that elimination couples (rooted_factor.hpp), whose solves
// fold μ⁻¹-regularised stiffness K̄ᵀL⁻¹K̄ into the link's inertia.
// Constraints that reach the world are solved there (§IV-A: a_0 is known).
// The roll-out gives v̇ (eq. 45) and the eliminated λ (eq. 51).
//
// Only l depends on λᵏ, so iterations after the first run Alg. 5's reduced
// two-sweep on Δl = -μ⁻¹(λᵏ - λᵏ⁻¹), reusing every factorisation. Stopping
// (Alg. 6 line 7): ‖v̇ᵏ - v̇ᵏ⁻¹‖∞ or μ⁻¹‖λᵏ - λᵏ⁻¹‖∞ (= ‖J v̇ᵏ - k‖∞) below the
// tolerance (converged), max_iterations solves, or a stalled residual
// (round-off floor; not converged). L_RR and the world block are positive
// definite for any J: redundant sets are fine. Warm start: λ⁰ = the previous λ.
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/solvers/loops/multiplier_elimination.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class ProxBboSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError on joint couplings or bad mu / tolerance / max_iterations.
  ProxBboSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "prox-bbo"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true, .internal_loops = true, .redundant = true, .iterative = true};
  }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

  /// Alg. 4-6 at (q, v = 0) without gravity, τ or external forces and with the
  /// target r: the impulse Δ with (M + diag(d)) Δ = Jᵀp, J Δ = r (solver.hpp).
  bool supportsImpulseSolve() const override { return true; }
  SolveStats solveImpulse(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& r,
                          Eigen::Ref<VectorX> delta) override;

  /// φ and φ̇ of the last solve(); a solveImpulse() leaves those of q at v = 0.
  const ConstraintData* solvedConstraintTerms() const override { return &cdata_; }
  const MultiplierElimination& graph() const { return graph_; }

 private:
  using StackedRows = Eigen::Matrix<double, Eigen::Dynamic, 6, Eigen::RowMajor>;

  // Alg. 6 from the first pass's state on; λ in lambda_. The target is k_link
  // plus gravity (solve), or *impulse_target (solveImpulse).
  SolveStats iterate(Eigen::Ref<VectorX> vdot, const Eigen::Ref<const VectorX>* impulse_target);
  void initialiseConstraints(const Eigen::Ref<const VectorX>* impulse_target);  // Alg. 4 lines 4-7 (eq. 42)
  void eliminateRooted(int i);            // Alg. 4 lines 9-11 (eqs. 49-52)
  void copyRootedPattern(const LinkMultipliers& link, MatrixX& F) const;  // L_RR's pattern blocks into F
  void eliminateLink(int i);              // Alg. 4 lines 12-17 (eqs. 46)
  void solveWorld(bool reduced);          // §IV-A: the constraints that reach the world
  void rollout(int i, Eigen::Ref<VectorX> vdot);        // Alg. 4 lines 19-23
  void reducedBackward(int i);            // Alg. 5 lines 2-8
  double reducedForward(int i, Eigen::Ref<VectorX> vdot);  // Alg. 5 lines 11-16; returns ‖Δv̇_i‖∞
  double residual() const;                // ‖J v̇ - k‖∞ on the link accelerations
  /// L_{a,b} += sign M_{a,b} over every pair of blocks (M's rows start at first_row).
  void addToL(const std::vector<MultiplierBlock>& blocks, int first_row, const Eigen::Ref<const MatrixX>& M,
              double sign);

  MultiplierElimination graph_;
  Data data_;
  ConstraintData cdata_;
  VectorX target_;                 // t per row: K¹a₁ + K²a₂ = t on a_gf
  StackedRows Kbar_;               // K̄_{i,N_i} per link (R_i rows, then U_i rows)
  MatrixX KS_;                     // K̄_{i,U_i} S_i at the U_i rows (first nv_i columns)
  MatrixX YK_;                     // L_RR⁻¹ K̄_{i,R_i} at the R_i rows
  VectorX yl_, dyl_;               // L_RR⁻¹ l_R (and Δl_R) at the R_i rows
  std::vector<MatrixX> factor_;    // Cholesky of L_RR per link (its pattern blocks only)
  std::vector<MatrixX> YU_;        // L_RR⁻¹ L_RU per link
  MatrixX L_;                      // m x m dual Hessian (only coupledPairs() blocks nonzero)
  VectorX l_, dl_;                 // per row; Δl for the reduced sweeps
  MatrixX world_factor_;           // L_WW's factor over its pattern (factorRooted)
  VectorX world_rhs_;
  VectorX lambda_, lambda_prev_, dlambda_;
  VectorX impulse_, impulse_prev_;  // solveImpulse's λ, λᵏ⁻¹: swapped with lambda_, lambda_prev_ around it
  VectorX zero_nv_;                 // v = τ = 0 of the impulse solve
  MatrixX gather_;                 // workspace: L_RU, then K̄S D⁻¹ and (K̄S)D⁻¹(K̄S)ᵀ
  MatrixX carried_update_;         // workspace: u x u updates of L_UU
  VectorX rooted_l_;               // workspace: l_R
  std::vector<Force> delta_force_;  // Alg. 5's Δf as ABA's Δp
  std::vector<Motion> delta_a_;
  VectorX delta_u_;
  AlignedVector<Matrix6> rigid_inertias_;   // Inertia::matrix() per body, constant
};

}  // namespace loopsim
