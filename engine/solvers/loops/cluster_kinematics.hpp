#pragma once
// Cluster spatial quantities of paper 004 §V at one state, shared by
// cluster-aba (Alg. 1 lines 1-22), cluster-rnea (§VI-A) and cluster-efpa.
// Every constituent quantity stays in its body's frame (§V-A).
//
// Per cluster k with bodies C_k(1..n) in regular order:
//  - the transforms between clusters (eq. 17-18) have one block per body,
//    ^iX_Λ(i) from its output body; they are kept as the body's placement in
//    its output body's frame (`outputPlacement(i)`) and applied as SE3
//    products, ^kX*_ℓ being their transposes;
//  - the cluster motion subspace S_k = ΛX_λ block(S_i) G_k (eq. 24) and the
//    velocity-product term c_k (Alg. 1 lines 17-19), both 6n rows. Instead of
//    forming the unit lower-triangular remap ΛX_λ (eq. 20) and its time
//    derivative, both are applied by one outward sweep inside the cluster:
//        Ŝ_i = ^iX_λ(i) Ŝ_λ(i) + S_i G_i,   ĉ_i = ^iX_λ(i) ĉ_λ(i) + S_i g_i + v_i × S_i q̇_i,
//    with Ŝ_λ(i) = ĉ_λ(i) = 0 when λ(i) is outside the cluster. This is the
//    body recursion a_i = ^iX_λ(i) a_λ(i) + S_i q̈_i + v_i × S_i q̇_i with
//    q̈ = G ÿ + g, so a_k = ^kX_λ(k) a_λ(k) + S_k ÿ_k + c_k (eq. 33) holds
//    exactly; c_k equals Alg. 1's (d/dt ΛX) S̄ G ẏ + ΛX (Ṡ G ẏ + S̄ g).
#include <vector>

#include <loopsim/model/data.hpp>
#include <loopsim/solvers/loops/cluster_spanning.hpp>

namespace loopsim {

class ClusterKinematics {
 public:
  explicit ClusterKinematics(const ClusterStructure& structure);

  /// Needs data's placements (liMi, oMi), S and c (articulatedFirstPass or
  /// forwardKinematics) and the spanning matrices at the same state. No allocation.
  void update(const Data& data, const ClusterSpanning& spanning);

  /// ^Λ(i)M_i: body i's placement in its output body's frame (^iX_Λ(i) is its inverse's action).
  const SE3& outputPlacement(int body) const { return output_M_body_[body]; }
  const MatrixX& S(int k) const { return S_[k]; }   // 6n x independent dofs
  const VectorX& c(int k) const { return c_[k]; }   // 6n

 private:
  template <class Shape>
  void updateCluster(int k, const Data& data, const ClusterSpanning& spanning);  // cluster_shape.hpp

  const ClusterStructure& structure_;
  AlignedVector<SE3> output_M_body_;
  std::vector<MatrixX> S_;
  std::vector<VectorX> c_;
};

}  // namespace loopsim
