#pragma once
// `kkt`: the dense reference. CRBA, Cholesky of M, dense J, the Delassus
// matrix Λ = J M⁻¹ Jᵀ and its Cholesky (range-space / Schur-complement form
// of the KKT system [M -Jᵀ; J 0]). Its position terms (the Cholesky of M,
// J, J G⁻ᵀ, Λ) live in DenseJointSpaceTerms, which a post-step velocity
// projection evaluates at the projected q and the next solve then keeps.
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/linalg/dense_cholesky.hpp>
#include <loopsim/solvers/joint_space/dense_joint_space_terms.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class KktSolver final : public ConstrainedSolver {
 public:
  KktSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "kkt"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true, .internal_loops = true, .couplings = true};
  }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

  /// The Delassus matrix of the last solve (for tests and the Delassus benchmarks).
  const MatrixX& delassus() const { return terms_.delassus(); }
  const ConstraintData& constraintData() const { return terms_.constraintData(); }
  const ConstraintData* solvedConstraintTerms() const override { return &terms_.constraintData(); }
  ProjectionTerms* sharedProjectionTerms() override { return &terms_; }

 private:
  DenseJointSpaceTerms terms_;
  DenseCholesky delassus_cholesky_;
  VectorX vdot_free_;
  VectorX rhs_;
};

}  // namespace loopsim
