#pragma once
// The clusters' articulated inertias of paper 004's backward pass, shared by
// cluster-aba (forward dynamics) and cluster-efpa (the Delassus matrix): per
// cluster k, I^A_k over its stacked bodies, U_k = I^A_k S_k, D_k and its
// inverse, and I^a_k handed to the parent cluster. Sized once; no allocation
// after allocate().
#include <utility>
#include <vector>

#include <loopsim/model/data.hpp>
#include <loopsim/solvers/loops/cluster_kinematics.hpp>
#include <loopsim/solvers/loops/cluster_structure.hpp>

namespace loopsim {

struct ClusterArticulatedInertias {
  std::vector<MatrixX> U, UDinv, D, Dinv;
  std::vector<MatrixX> GA;  // G_k rows scaled by the spanning dofs' armature: filled by the caller before factor()
  /// Per cluster, the 6x6 blocks (row, column body positions) of I^A_k that
  /// can be nonzero: the bodies' own (diagonal, body p's at index p) and those
  /// the child clusters add between their output bodies. I^A_k is otherwise
  /// 0, and a dense I^A_k S_k on a large cluster (Digit's legs and base: 29
  /// bodies) would cost 29x the work and make Eigen's blocked product allocate.
  std::vector<std::vector<std::pair<int, int>>> blocks;
  /// I^A_k as those blocks alone, in blocks[k]'s order: the transforms onto
  /// the parent write straight into its 6x6 blocks.
  std::vector<AlignedVector<Matrix6>> IA;
  std::vector<int> parent;  // per cluster: its parent cluster, -1 = world (needs no U D⁻¹)
  /// Per cluster: the distinct output bodies (their positions in the parent
  /// cluster) and, per body, which of them is its own.
  std::vector<std::vector<int>> outputs, output_of;
  /// Per cluster, per distinct output body: Σ ^λX*_i U_i and Σ ^λX*_i (U D⁻¹)_i
  /// over the bodies it outputs (6 rows each): U D⁻¹ Uᵀ handed on as their product.
  std::vector<MatrixX> XU, XUDinv;
  /// Per cluster with a parent: the parent's block index of each of its
  /// blocks (blocks[k][i] → IA[parent] index) and of each pair of its outputs
  /// (i * outputs + j).
  std::vector<std::vector<int>> parent_block, parent_output_block;

  void allocate(const ClusterStructure& structure);
  /// Lines 20 (eq. 49 set-up): I^A_k = blockdiag(I_i) of the cluster's bodies.
  void setBodyInertias(int k, const BodyCluster& cluster, const Data& data);
  /// Lines 26-27 (eq. 49): U_k = I^A_k S_k, D_k = S_kᵀ U_k + G_kᵀ A G_k, D_k⁻¹
  /// (1 / D_k for one independent dof, else through a Cholesky factor; D_k's
  /// storage is scratch afterwards), and U_k D_k⁻¹ when the cluster has a
  /// parent (only the terms handed to it use it).
  void factor(int k, const MatrixX& S, const MatrixX& G);
  /// Lines 30 and 32 (eqs. 55-56): I^A_λ(k) += ^λX*_k I^a_k ^kX_λ with
  /// I^a_k = I^A_k - U_k D_k⁻¹ U_kᵀ, onto the output bodies: I^A_k's nonzero
  /// blocks one by one (a body's own block by the symmetric inertia
  /// transform) and U_k D_k⁻¹ U_kᵀ as the product of its transformed factors
  /// summed per output body, never the dense 6n x 6n I^a_k.
  void addToParent(int k, const ClusterStructure& structure, const ClusterKinematics& kinematics);
  /// out += I^A_k c over I^A_k's nonzero blocks (c and out 6n).
  void addBlocksTimes(int k, const VectorX& c, VectorX& out) const;

  const std::vector<BodyCluster>* clusters = nullptr;  // the structure's, set by allocate()

 private:
  // factor and addToParent with the cluster's compile-time sizes (cluster_shape.hpp).
  template <class Shape>
  void factorShaped(int k, const MatrixX& S, const MatrixX& G);
  template <class Shape>
  void addToParentShaped(int k, const ClusterStructure& structure, const ClusterKinematics& kinematics);
};

}  // namespace loopsim
