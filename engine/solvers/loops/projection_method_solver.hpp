#pragma once
// `projection-method`: the projection method of paper 004 §II-D, the exact
// baseline its C-ABA is measured against (Table III). The spanning tree's
// equations of motion are projected onto the independent coordinates through
// the explicit constraint Jacobian, q̈ = G ÿ + g (eq. 3):
//     ÿ = (Gᵀ H G)⁻¹ Gᵀ (τ - c - H g),
// with H = M + diag(armature + added) by CRBA, c = h - Σ Jᵀ f_ext by RNEA at
// zero acceleration, and G, g block by block from the clusters of
// cluster-aba (cluster_structure.hpp, cluster_spanning.hpp) on the scene's
// declared independent coordinates. Gᵀ H G is factored densely: O(n_y³).
//
// q̈ is refined once on the same factor (Gᵀ(H q̈ + c - τ) → 0), then λ
// (M v̇ + h = τ + Jᵀλ) recovered as cluster-aba does, from the joint force
// Jᵀλ = H q̈ + c - τ (ClusterSpanning::multipliersFromJointForce).
// Full-rank sets only; a state where K_d is singular for the declared
// joints solves but reports converged = false.
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/solvers/loops/projected_inertia.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class ProjectionMethodSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError when the loops cannot be clustered with the declared
  /// independent coordinates (as cluster-aba).
  ProjectionMethodSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "projection-method"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true, .internal_loops = true, .couplings = true, .needs_independent_joints = true};
  }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

  const ConstraintData* solvedConstraintTerms() const override { return &cdata_; }

 private:
  ClusterStructure structure_;
  ClusterSpanning spanning_;
  Data data_;
  ConstraintData cdata_;
  std::vector<int> end_bodies_;
  ProjectedInertia projected_;  // G, g, H G and the factor of Gᵀ H G
  VectorX force_, ydd_, correction_, joint_force_, residual_;
};

}  // namespace loopsim
