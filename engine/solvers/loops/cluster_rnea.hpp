#pragma once
// Cluster-based recursive Newton-Euler (C-RNEA, paper 004 §VI): inverse
// dynamics with loops. Given (q, v) and the independent accelerations ÿ, the
// generalised forces on the independent coordinates,
//     τ_y = Gᵀ (M q̈ + h - Σ Jᵀ f_ext)   with q̈ = G ÿ + g,
// i.e. the torques that, applied at the independent joints alone, produce ÿ
// (the loops' constraint forces do no work along G). Clusters, G and g as
// cluster-aba's (cluster_structure.hpp, cluster_spanning.hpp); g follows the
// Baumgarte-stabilised target, so cluster-rnea inverts cluster-aba exactly.
//
// Forward pass (eqs. 33-34): a_k = ^kX_λ a_λ + S_k ÿ_k + c_k, f_k^net =
// I_k a_k + v_k ×* I_k v_k - f_ext. Backward pass (eq. 35): f_k^J = f_k^net +
// Σ ^kX*_ℓ f_ℓ^J (each body's force onto its output body), τ_k = S_kᵀ f_k^J
// (eq. 31) plus the armature's G_kᵀ A_k q̈_k. Gears, belts and four-bars take
// K and k in closed form from the joints, as in cluster-aba. No allocation in compute().
#include <span>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/solvers/loops/cluster_kinematics.hpp>

namespace loopsim {

class ClusterRnea {
 public:
  /// Throws ModelError (as cluster-aba) when the loops cannot be clustered
  /// with the declared independent joints.
  ClusterRnea(const ConstraintSet& set, const std::vector<int>& independent_dofs);

  /// τ_y for independent accelerations ydd (size independentDofs(), in the
  /// order of structure().independentDofIndices()). Returns false when K_d is
  /// singular at q for the declared joints (the result is then meaningless).
  bool compute(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
               const Eigen::Ref<const VectorX>& ydd, std::span<const Force> fext, Eigen::Ref<VectorX> tau_independent);

  /// G_kᵀ x_k for every cluster, with G at the last compute()'s state: a
  /// spanning-joint force (model dof order) as forces on the independent coordinates.
  void projectOnIndependent(const Eigen::Ref<const VectorX>& spanning_force, Eigen::Ref<VectorX> out) const;

  const ClusterStructure& structure() const { return structure_; }
  /// The spanning accelerations q̈ = G ÿ + g of the last compute().
  const VectorX& spanningAcceleration() const { return qdd_; }

 private:
  // One cluster of each pass at its compile-time size (cluster_shape.hpp).
  template <class Shape>
  void forwardCluster(int k, int offset, const Eigen::Ref<const VectorX>& ydd);
  template <class Shape>
  void backwardCluster(int k, int offset, Eigen::Ref<VectorX> tau_independent);

  const ConstraintSet& set_;
  ClusterStructure structure_;
  ClusterSpanning spanning_;
  ClusterKinematics kinematics_;
  Data data_;
  AlignedVector<Matrix6> rigid_inertias_;  // I_i as 6x6 matrices, formed once (the first pass's input)
  // Every cluster is couplings and at most one planar loop: G and g from the
  // joints in closed form (ClusterSpanning::updateFromJoints), no constraint terms.
  bool from_joints_ = false;
  bool frame_constraints_ = false;  // loops or world constraints evaluated as ConstraintData
  ConstraintData cdata_;
  VectorX zero_tau_, qdd_;
  std::vector<VectorX> a_;  // per cluster, stacked body accelerations
};

}  // namespace loopsim
