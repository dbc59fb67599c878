#pragma once
// `ltl`: Featherstone's joint-space method with branch-induced sparsity.
//   1. CRBA and the LTDL factorisation M = Lᵀ D L (ltl_factorization.hpp);
//   2. LTL-OSIM: Y = L⁻ᵀ Jᵀ on the constraint supports, Λ = Yᵀ D⁻¹ Y;
//   3. Cholesky of Λ, λ = Λ⁻¹ (k - J v̇_free), v̇ = v̇_free + L⁻¹ D⁻¹ Y λ.
// O(n d² + m² d + m d² + m³) (paper 001 §II). Hard constraints, full-rank
// sets only: a rank-deficient set throws ModelError naming dependent rows.
#include <loopsim/solvers/joint_space/joint_space_terms.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class LtlSolver final : public ConstrainedSolver {
 public:
  LtlSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "ltl"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true, .internal_loops = true, .couplings = true};
  }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

  /// The factors and the Delassus matrix of the last solve.
  const JointSpaceTerms& terms() const { return terms_; }
  const ConstraintData* solvedConstraintTerms() const override { return &terms_.constraintData(); }
  ProjectionTerms* sharedProjectionTerms() override { return &terms_; }

 private:
  JointSpaceTerms terms_;  // also holds Λ's Cholesky (ProjectionTerms::factoredDelassus)
};

}  // namespace loopsim
