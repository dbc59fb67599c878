#pragma once
// `lcaba`: the loop-constrained articulated body algorithm (paper 001 §IV,
// Alg. 1-3): the augmented-Lagrangian method on Gauss' principle, each inner
// problem solved by non-serial dynamic programming over the spanning tree.
//
// Iteration k minimises the augmented Lagrangian over v̇ (paper 001 eq. 7a
// with the erratum's μAᵀA). Every constraint adds μ K¹ᵀK¹ and μ K²ᵀK² to its
// links' inertias, the coupling μ K¹ᵀK² between them (eq. 22) and the forces
// K¹ᵀ(μ t + λᵏ), K²ᵀ(μ t + λᵏ) (eq. 25; loopsim's λ is -λ_paper, and t, the
// target on ABA's gravity-shifted accelerations a_gf, absorbs eq. 35's
// -μ K a_0 for world ends). Links are then eliminated leaf by leaf in the
// minimum-degree order fixed at bind time (elimination_ordering.hpp): each
// elimination is ABA's articulated-body step plus the coupling updates of
// eqs. 30c-30e and 34 among the link's neighbours. λ follows eq. 33,
// λᵏ⁺¹ = λᵏ + μ (t - K¹a₁ - K²a₂). The inertias do not depend on λ, so
// iterations after the first run Alg. 2's reduced two-sweep on the force
// change alone, reusing the factorisation.
//
// Stopping (Alg. 3 line 9): ‖v̇ᵏ - v̇ᵏ⁻¹‖∞ or ‖J v̇ - k‖∞ below the tolerance
// (converged), max_iterations primal solves, or a residual that stops
// decreasing (round-off floor; not converged). The returned λ is λᵏ⁺¹ of the
// last primal solve, so M v̇ + h = τ + Jᵀλ holds exactly and only J v̇ = k is
// approximate. Redundant sets converge in v̇ and Jᵀλ. Warm start: λ⁰ is the
// previous solve's λ. Accuracy falls as μ grows far beyond J M⁻¹ Jᵀ's scale
// (the penalty enters the articulated inertias; paper 001 §VI, Fig. 11).
#include <optional>
#include <utility>
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/solvers/loops/elimination_ordering.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class LcabaSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError on joint couplings or bad mu / tolerance / max_iterations.
  LcabaSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "lcaba"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true, .internal_loops = true, .redundant = true, .iterative = true,
            .penalty_in_inertia = true};
  }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

  /// Alg. 1-3 at (q, v = 0) without gravity, τ or external forces and with the
  /// target r: the impulse Δ with (M + diag(d)) Δ = Jᵀp, J Δ = r (solver.hpp).
  bool supportsImpulseSolve() const override { return true; }
  SolveStats solveImpulse(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& r,
                          Eigen::Ref<VectorX> delta) override;

  /// φ and φ̇ of the last solve(); a solveImpulse() leaves those of q at v = 0.
  const ConstraintData* solvedConstraintTerms() const override { return &cdata_; }
  const EliminationOrdering& ordering() const { return ordering_; }

 private:
  // Alg. 3 from the first pass's state on: Alg. 1's constraint terms, sweeps
  // and roll-out, then the multiplier iterations; λ in lambda_. The target is
  // k_link plus gravity (solve), or *impulse_target (solveImpulse).
  SolveStats iterate(Eigen::Ref<VectorX> vdot, const Eigen::Ref<const VectorX>* impulse_target);
  void addConstraintTerms(const Eigen::Ref<const VectorX>* impulse_target);  // Alg. 1 lines 4-10
  void eliminate(const EliminationStep& step);           // Alg. 1 lines 12-23
  void rollout(const EliminationStep& step, Eigen::Ref<VectorX> vdot);  // Alg. 1 lines 25-26
  double updateMultipliers();                            // Alg. 3 lines 5-8; returns ‖J v̇ - k‖∞
  double reducedSweeps(Eigen::Ref<VectorX> vdot);        // Alg. 2 on the links in reduced_order_; returns their ‖Δv̇‖∞
  double freeStepNorm();                                 // ‖Δv̇‖∞ of the last reduced sweep on the links in free_order_
  template <bool kApply>
  double forwardChanges(const std::vector<int>& order, double* vdot);  // Alg. 2 lines 7-12 over `order`
  Force addConstraintForceChange(int i, Force dp) const;  // Alg. 3 line 7 at link i

  void addCoupling(const CouplingRef& ref, const Matrix6& h) {
    if (ref.transposed) {
      coupling_[ref.slot] += h.transpose();
    } else {
      coupling_[ref.slot] += h;
    }
  }

  EliminationOrdering ordering_;
  AlignedVector<Matrix6> rigid_inertias_;   // Inertia::matrix() per body, constant
  Data data_;            // kinematics, Ia = H_{i,i}, pa = -f_i (ABA's sign), U, D⁻¹, u, a_gf
  ConstraintData cdata_;  // K¹, K², k_link
  AlignedVector<Matrix6> coupling_;   // H_{j,k}, one per slot of the ordering
  Matrix6X neighbour_S_;            // (H̄_{i,N_i} S_i)ᵀ blocks: H_{j,i} S_i in j's frame
  Matrix6X neighbour_SDinv_;        // workspace: H_{j,i} S_i D_i⁻¹ for one step
  std::vector<CouplingRef> constraint_coupling_;  // H_{body1,body2} per constraint (slot -1: world)
  // Per constraint, constant at a fixed μ (bind time): K¹ᵀ, μK¹ᵀK¹ and, where
  // K²ᵀK² does not turn with q (constantRowGramOnBody2), μK²ᵀK².
  AlignedVector<Matrix6> K1t_, mu_K1tK1_;
  std::vector<std::optional<Matrix6>> mu_K2tK2_;
  // The constraint ends on each link (constraint index, end 1 or 2), link i's
  // in [end_offsets_[i], end_offsets_[i + 1]): the reduced backward sweep
  // takes each link's μKᵀΔk from here.
  std::vector<int> end_offsets_;
  std::vector<std::pair<int, int>> ends_;
  VectorX mu_error_;     // μΔk of the last multiplier update (Alg. 3 line 7's factor)
  VectorX target_;       // t: K¹ a_gf,1 + K² a_gf,2 = t
  VectorX lambda_;       // global row order; the warm start
  VectorX impulse_;      // solveImpulse's multipliers, swapped with lambda_ around it
  VectorX zero_nv_;      // v = τ = 0 of the impulse solve
  // forwardOrder() split (order kept) by whether a force change reaches the
  // link. The other links, with their subtrees (an arm), take no Δf and pass
  // no Δa to a link a force change reaches: the roll-out and Alg. 2's forward
  // sweep leave them out until the iterations end, and then one roll-out
  // (Alg. 1 lines 25-26, linear in a_π(i)) gives their final accelerations;
  // freeStepNorm gives their part of line 9's ‖Δv̇‖∞ when the test needs it.
  // (TreeRecursion's rolloutConstrained / rolloutUnconstrained split the
  // tree recursions' bodies the same way; here the unit is an elimination
  // step, whose neighbours must be reached too.)
  std::vector<int> reduced_order_, free_order_;
  std::vector<Force> delta_force_;  // Alg. 2's Δf as ABA's Δp (= -Δf), kept zero between sweeps
  std::vector<Motion> delta_a_;
  VectorX delta_u_;
};

}  // namespace loopsim
