#pragma once
// `soft-ltl`: the soft Gauss principle in joint space (paper 000 §VI; the
// problem MuJoCo solves for equality constraints), with one weight w_c per
// constraint (settings.soft_weights, default settings.soft_weight):
//   minimise_v̇ ½‖v̇ - v̇_free‖²_M + ½ Σ_c w_c ‖J_c v̇ - k_c‖²
//   ⇔ (M + Jᵀ W J) v̇ = M v̇_free + Jᵀ W k,   λ = W (k - J v̇).
// Paper 000 writes it on link accelerations with penalty R_i⁻¹ = W (eq. 50)
// and folds the penalty into the articulated inertias (eq. 52, PV-soft, O(n+m));
// here it is solved in joint space like MuJoCo: M + JᵀWJ is dense over every
// loop's joints, so instead of factoring it we keep the LTL factors of M and
// apply the matrix inversion lemma,
//   λ = (Λ + W⁻¹)⁻¹ (k - J v̇_free),   v̇ = v̇_free + M⁻¹ Jᵀ λ,   Λ = J M⁻¹ Jᵀ,
// which is the same system (J v̇ = J v̇_free + Λλ gives k - J v̇ = W⁻¹λ).
// Λ + W⁻¹ is positive definite for any J: redundant sets are fine. The
// reference acceleration is the Baumgarte target k (MuJoCo uses its own
// solref spring-damper instead), and the constraints hold only up to W⁻¹λ;
// as W → ∞ the solution tends to the hard one (kkt).
#include <Eigen/Cholesky>

#include <loopsim/solvers/joint_space/joint_space_terms.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class SoftLtlSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError when soft_weights has the wrong size or a weight is not
  /// positive and finite.
  SoftLtlSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "soft-ltl"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true, .internal_loops = true, .couplings = true, .redundant = true, .soft = true};
  }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

  /// W⁻¹ per row (the compliance).
  const VectorX& rowCompliance() const { return compliance_; }
  const JointSpaceTerms& terms() const { return terms_; }
  const ConstraintData* solvedConstraintTerms() const override { return &terms_.constraintData(); }
  ProjectionTerms* sharedProjectionTerms() override { return &terms_; }

 private:
  JointSpaceTerms terms_;
  VectorX compliance_;     // W⁻¹, per row
  MatrixX soft_delassus_;  // Λ + W⁻¹
  Eigen::LLT<MatrixX> soft_delassus_llt_;  // Λ + W⁻¹ = LLᵀ
};

}  // namespace loopsim
