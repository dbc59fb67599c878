#pragma once
// `kkt`: the dense reference. CRBA, Cholesky of M, dense J, the Delassus
// matrix Λ = J M⁻¹ Jᵀ and its Cholesky (range-space / Schur-complement form
// of the KKT system [M -Jᵀ; J 0]).
#include <Eigen/Cholesky>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class KktSolver final : public ConstrainedSolver {
 public:
  KktSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "kkt"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() { return {true, true, true, false, false, false, false}; }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

  /// The Delassus matrix of the last solve (for tests and the Delassus benchmarks).
  const MatrixX& delassus() const { return delassus_; }
  const ConstraintData& constraintData() const { return cdata_; }
  const ConstraintData* solvedConstraintTerms() const override { return &cdata_; }

 private:
  Data data_;
  ConstraintData cdata_;
  Eigen::LLT<MatrixX> mass_llt_;
  Eigen::LLT<MatrixX> delassus_llt_;
  MatrixX minv_jt_;   // M⁻¹ Jᵀ
  MatrixX delassus_;  // J M⁻¹ Jᵀ
  VectorX vdot_free_;
  VectorX rhs_;
  VectorX external_;  // Σ Jᵀ f_ext as a generalised force
};

}  // namespace loopsim
