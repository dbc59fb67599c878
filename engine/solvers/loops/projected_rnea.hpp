#pragma once
// Projected RNEA (paper 004 §II-C, the exact baseline of its Table II):
// inverse dynamics with loops by RNEA on the spanning tree at q̈ = G ÿ + g,
// projected on the independent coordinates,
//     τ = RNEA(q, q̇, q̈),   τ_y = Gᵀ τ,
// with G and g of the clusters as cluster-aba's and cluster-rnea's
// (cluster_spanning.hpp). The same τ_y as cluster-rnea (ClusterRnea), by the
// spanning tree's recursion instead of the cluster tree's. No allocation in
// compute().
#include <span>
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/solvers/loops/cluster_spanning.hpp>

namespace loopsim {

class ProjectedRnea {
 public:
  /// Throws ModelError (as cluster-aba) when the loops cannot be clustered
  /// with the declared independent joints.
  ProjectedRnea(const ConstraintSet& set, const std::vector<int>& independent_dofs);

  /// τ_y for independent accelerations ydd (in the order of
  /// structure().independentDofIndices()). Returns false when K_d is singular
  /// at q for the declared joints (the result is then meaningless).
  bool compute(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
               const Eigen::Ref<const VectorX>& ydd, std::span<const Force> fext, Eigen::Ref<VectorX> tau_independent);

  const ClusterStructure& structure() const { return structure_; }

 private:
  const ConstraintSet& set_;
  ClusterStructure structure_;
  ClusterSpanning spanning_;
  Data data_;
  ConstraintData cdata_;
  bool couplings_only_ = true;  // K and its target need joint values only: no kinematics before RNEA
  VectorX qdd_, zero_;
};

}  // namespace loopsim
