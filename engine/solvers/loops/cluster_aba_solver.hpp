#pragma once
// `cluster-aba`: the cluster-based articulated-body algorithm (paper 004 §VII,
// Alg. 1). Bodies joined by loops or couplings form clusters
// (cluster_structure.hpp); each cluster joint moves by its independent
// coordinates ÿ_k, the dependent ones following q̈_k = G_k ÿ_k + g_k with G_k
// from the null space of the loops' K at the state (cluster_spanning.hpp).
// ABA's three passes then run over the cluster tree with 6n-row cluster
// quantities (eqs. 49, 52, 55-56): exact, direct, O(N_C l³) for clusters of
// at most l bodies, no Lagrange multipliers inside the recursion.
//
// Near a singular configuration of the declared coordinates (a loop's G_k
// with entries above kNearSingularSpanning) the 6n-row recursion loses digits
// of v̇ as |G|² grows, and λ, recovered from v̇, more: there the solve takes
// one step of iterative refinement on the same factors (the residual
// Gᵀ(M q̈ + h - τ) by RNEA's backward pass, then the passes again with it as
// the only force: no velocity, gravity or g). Not in the paper; it leaves
// the ordinary states' cost unchanged.
//
// Couplings and planar loops (a four-bar: planar_loop.hpp) have K and k in
// closed form from the joints, paper 004's explicit constraints of a gear, a
// belt and a four-bar: when every cluster is made of them no ConstraintData is
// evaluated (no spatial Jacobian, no bias accelerations of the bodies).
//
// λ (loopsim's convention, M v̇ + h = τ + Jᵀλ) is recovered after the solve:
// the joint force Jᵀλ = RNEA(q, v, v̇) + (armature + added inertia) v̇ - τ on
// the dependent dofs gives K_dᵀ λ_k = (Jᵀλ)_d, on every dof of a loop near
// singular λ_k by least squares (ClusterSpanning::multipliersFromJointForce).
//
// Needs the independent coordinates the scene declares (scene key `independent`,
// SolverSettings::independent_dofs). Full-rank sets only: a cluster with
// more rows than dependent dofs is refused at bind time; a state where K_d is
// singular (pivot ratio below 1e-12) solves but reports converged = false.
#include <utility>
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/solvers/loops/cluster_articulated_inertias.hpp>
#include <loopsim/solvers/loops/cluster_kinematics.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class ClusterAbaSolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError when the loops cannot be clustered with the declared
  /// independent coordinates (naming the cluster's constraints and joints).
  ClusterAbaSolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "cluster-aba"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true, .internal_loops = true, .couplings = true, .needs_independent_joints = true};
  }

  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

  /// Null when the clusters' terms come from the joints (no ConstraintData evaluated).
  const ConstraintData* solvedConstraintTerms() const override { return from_joints_ ? nullptr : &cdata_; }
  const ClusterStructure& structure() const { return structure_; }
  /// min |u_ii| / max |u_ii| over the K_d factors of the last solve (1 without
  /// loops): how well the declared joints coordinate the loops at that state.
  double lastPivotRatio() const { return pivot_ratio_; }
  /// Whether the last solve took the refinement step (a loop near singular:
  /// ClusterSpanning::anyNearSingular).
  bool lastSolveRefined() const { return refined_; }

 private:
  void backwardPass(int k);                                    // Alg. 1 lines 26-34
  void forwardPass(int k, Eigen::Ref<VectorX> vdot);           // Alg. 1 lines 40-42
  // The solve's passes, or the refinement's correction through the same
  // factors: no velocity, gravity, c_k or g_k; its accelerations are added.
  enum class Pass { Solve, Correction };
  // The passes with the cluster's compile-time sizes (cluster_shape.hpp).
  template <class Shape>
  void factorShaped(int k);  // lines 26-31: U_k, D_k⁻¹, I^a_k to the parent
  template <class Shape, Pass kPass>
  void backwardBiasShaped(int k);  // lines 28, 32-33: u_k, p^a_k to the parent
  template <class Shape, Pass kPass>
  void forwardPassShaped(int k, Eigen::Ref<VectorX> vdot);
  // Line 33: p^A_λ += ^λX*_k p^a_k, each body's rows onto its output body (eq. 18).
  void handToParent(int k);
  // Line 40's ^kX_λ a_λ into a_k: each body's motion from its output body's (eq. 17).
  void fromOutputBodies(int k, const std::vector<Motion>& motions);
  void recoverMultipliers(const Eigen::Ref<const VectorX>& tau, const Eigen::Ref<const VectorX>& vdot,
                          Eigen::Ref<VectorX> lambda);
  // (M q̈ + h - τ)_dof from the force data_.f[body] across its joint (the subtree's sum).
  double jointForce(int dof, int body, const Eigen::Ref<const VectorX>& tau, const Eigen::Ref<const VectorX>& vdot) const;
  // data_.f[i] = I_i a_i + v_i ×* I_i v_i - f_ext,i: body i's net force at the solved a_i.
  void netForce(int i);
  // r = M q̈ + h - τ on every dof into joint_force_ (RNEA's backward pass on
  // the solved accelerations).
  void jointForceOnEveryDof(const Eigen::Ref<const VectorX>& tau, const Eigen::Ref<const VectorX>& vdot);
  // One step of iterative refinement on the factored clusters (see above).
  void refine(const Eigen::Ref<const VectorX>& tau, Eigen::Ref<VectorX> vdot);

  ClusterStructure structure_;
  ClusterSpanning spanning_;
  ClusterKinematics kinematics_;
  Data data_;
  AlignedVector<Matrix6> rigid_inertias_;  // I_i as 6x6 matrices, formed once (the first pass's input)
  // Every cluster is couplings and at most one planar loop: K and k in closed
  // form from the joints (ClusterSpanning::updateFromJoints), no constraint terms.
  bool from_joints_ = false;
  bool frame_constraints_ = false;  // loops or world constraints evaluated as ConstraintData
  ConstraintData cdata_;
  // Per cluster (Alg. 1 symbols): I^A, U, D, D⁻¹, I^a, A G in inertias_; p^A,
  // u, and the scratch p^a, a, τ_J, u - Uᵀa'.
  ClusterArticulatedInertias inertias_;
  std::vector<VectorX> pA_, u_, pa_, a_, ydd_, joint_tau_, u_minus_;
  VectorX joint_force_;  // Jᵀλ, model dof order
  std::vector<std::pair<int, int>> multiplier_dofs_;  // (dependent dof, its body)
  std::vector<int> multiplier_bodies_;       // the subtrees of those dofs' bodies, increasing
  std::vector<char> in_multiplier_subtree_;  // per body (the world: 0)
  std::vector<Motion> correction_a_;         // per body: the refinement's acceleration change
  VectorX residual_;     // J v̇ - k
  double pivot_ratio_ = 1.0;
  bool refined_ = false;
};

}  // namespace loopsim
