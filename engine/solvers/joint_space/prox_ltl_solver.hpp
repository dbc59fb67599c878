#pragma once
// `prox-ltl`: the proximal formulation of constrained dynamics (paper 003
// eqs. 4-5) with paper 001's μ convention (§III-E, eqs. 12-13; large μ = exact;
// see the errata in shared/papers/README.md), on Featherstone's LTL factors.
//
// Dual proximal point iterations on the Gauss problem (paper 001 §III-D):
//   λ^{k+1} = argmin_λ ½ λᵀΛλ - λᵀb + (1/2μ)‖λ - λ^k‖²,
//   Λ_μ λ^{k+1} = b + μ⁻¹ λ^k,   Λ_μ := J M⁻¹ Jᵀ + μ⁻¹ I,   b := k - J v̇_free,
//   v̇^{k+1} = v̇_free + M⁻¹ Jᵀ λ^{k+1}.
// (Eq. 13 with loopsim's λ = -λ_paper.) Once per solve: CRBA, the LTDL of M,
// Λ through the factors (joint_space_terms.hpp) and a Cholesky of Λ_μ, which
// is positive definite for any J, so redundant and singular sets are handled;
// each iteration is then two triangular solves with that factor. Because
// Λ_μ λ^{k+1} = b + μ⁻¹λ^k, the constraint residual is Λλ^{k+1} - b =
// μ⁻¹(λ^k - λ^{k+1}): it is read off the iterates for free, and v̇ and the true
// ‖J v̇ - k‖∞ are formed only when that estimate reaches the tolerance. When
// the true residual then stops decreasing the tolerance is below round-off for
// the state (about 1e-13 ‖k‖ on the test humanoid): the solve stops early and
// reports converged = false with the residual reached.
// On a redundant set λ is not unique (the iterates keep λ⁰'s component in
// null(Jᵀ)); v̇ and Jᵀλ are.

#include <loopsim/linalg/small_cholesky.hpp>
#include <loopsim/solvers/joint_space/joint_space_terms.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class ProxLtlSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError on μ <= 0, a negative tolerance or max_iterations < 1.
  ProxLtlSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "prox-ltl"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true, .internal_loops = true, .couplings = true, .redundant = true, .iterative = true};
  }

  /// Starts from the previous solve's λ when settings.warm_start (zero at first).
  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

  const JointSpaceTerms& terms() const { return terms_; }
  const ConstraintData* solvedConstraintTerms() const override { return &terms_.constraintData(); }
  ProjectionTerms* sharedProjectionTerms() override { return &terms_; }

 private:
  JointSpaceTerms terms_;
  SmallCholesky damped_delassus_cholesky_;  // Λ_μ = G Gᵀ
  VectorX lambda_;       // λ^{k+1}
  VectorX lambda_prev_;  // λ^k; keeps the last solve's λ for warm starts
};

}  // namespace loopsim
