#pragma once
// The explicit constraint Jacobian of every cluster at one state (paper 004
// eq. 3): q̇_k = G_k ẏ_k and q̈_k = G_k ÿ_k + g_k, from the implicit form
// K_k q̈_k = k_k (eq. 2) and the cluster's split into independent dofs y and
// dependent dofs d (cluster_structure.hpp). With K_k = [K_y K_d] in those
// columns, G spans K's null space and g is the particular solution:
//     G_k = [1; -K_d⁻¹ K_y],   g_k = [0; K_d⁻¹ k_k]        (rows in y, d order)
// where k_k is the Baumgarte-stabilised target (ConstraintData::k), so the
// closure dynamics equal the joint-space solvers'. §II-B: only independent
// velocities are needed, no γ(y). K_d is factored by LU with partial pivoting;
// a pivot below 1e-12 of the largest marks the state singular for these
// independent joints (near a singular configuration of the loop). A cluster
// of couplings has a constant K: it is factored once and G_k kept.
#include <Eigen/LU>
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/solvers/loops/cluster_structure.hpp>

namespace loopsim {

/// K_d pivots below this fraction of the largest: the declared independent
/// joints cannot coordinate the loop at this state (a singular configuration).
inline constexpr double kSingularPivotRatio = 1e-12;

class ClusterSpanning {
 public:
  explicit ClusterSpanning(const ClusterStructure& structure);

  /// G_k and g_k of every cluster from the dense Jacobian cdata.J and target
  /// cdata.k. Returns the smallest pivot ratio min|u_ii| / max|u_ii| of the
  /// K_d factors (1 without loops). No allocation.
  double update(const ConstraintData& cdata);

  /// K_dᵀ λ_k = r_d for every cluster: λ (global rows) from the residual
  /// joint force r = Kᵀλ on the dependent dofs (model dof order). No allocation.
  void multipliersFromJointForce(const Eigen::Ref<const VectorX>& joint_force, Eigen::Ref<VectorX> lambda);

  /// |u_ii| of K_d's LU factor for cluster k (after update).
  auto dependentPivots(int k) const { return lu_[k].matrixLU().diagonal().cwiseAbs(); }

  /// G_k (cluster dofs x independent dofs, rows in the cluster's dof order).
  const MatrixX& G(int k) const { return G_[k]; }
  /// g_k (cluster dofs).
  const VectorX& g(int k) const { return g_[k]; }

 private:
  const ClusterStructure& structure_;
  std::vector<MatrixX> G_, Kd_, Ky_, solved_rows_;  // solved_rows_: K_d⁻¹ K_y
  std::vector<VectorX> g_, rhs_, solution_;
  std::vector<Eigen::PartialPivLU<MatrixX>> lu_;
  std::vector<char> factored_;      // K_d factored at least once (a constant K keeps it)
  std::vector<double> pivot_ratio_;  // per cluster, of the last factor
};

/// Builds the clusters (ModelError naming the cluster when the declared
/// joints cannot coordinate it) and factors every K_d at configuration q:
/// ModelError naming the cluster's constraints and joints when one is singular
/// there. For the load-time checks (scene_checks.cpp).
void checkClustersAt(const ConstraintSet& set, const std::vector<int>& independent_dofs,
                     const Eigen::Ref<const VectorX>& q, const std::string& owner,
                     ClusterScope scope = ClusterScope::AllConstraints);

}  // namespace loopsim
