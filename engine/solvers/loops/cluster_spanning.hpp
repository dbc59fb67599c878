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
// of couplings has a constant K: it is factored once and G_k kept. A cluster
// of at most kSmallClusterRows rows (a gear: 1, a four-bar: 2, a four-bar with
// its geared rotor: 3) is factored with its compile-time size, G_k column by
// column: the dynamic LU's blocked solves cost more than the whole 2x2 algebra.
//
// Multipliers: λ_k from the joint force r = M q̈ + h - τ = Kᵀλ, by K_dᵀ λ_k =
// r_d. Near a singular configuration of the declared coordinates (a loop's
// G_k with an entry above kNearSingularSpanning) K_d is ill-conditioned while
// the whole K_k is not, and r carries q̈'s round-off (|q̈| reaches 1e6 on
// Digit's leg loops far from the start): there λ_k is the least-squares
// solution of K_kᵀ λ_k = r_k over all the cluster's dofs (Householder QR of
// K_kᵀ), which divides r's error by K_k's smallest singular value instead of
// K_d's. A cluster of couplings has a constant K: never near singular.
#include <Eigen/LU>
#include <Eigen/QR>
#include <optional>
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/solvers/loops/cluster_structure.hpp>
#include <loopsim/solvers/loops/planar_loop.hpp>

namespace loopsim {

/// A loop's |G_k| entry above which the declared coordinates count as near a
/// singular configuration: λ_k by least squares, and cluster-aba refines its solve.
inline constexpr double kNearSingularSpanning = 100.0;

/// Clusters with at most this many rows take the fixed-size factorisation.
inline constexpr int kSmallClusterRows = 3;

/// K_d pivots below this fraction of the largest: the declared independent
/// joints cannot coordinate the loop at this state (a singular configuration).
inline constexpr double kSingularPivotRatio = 1e-12;

class ClusterSpanning {
 public:
  /// With `set`, the clusters' K and k can also come from the joints alone
  /// (updateFromJoints) when every cluster is couplings and at most one
  /// planar loop (planar_loop.hpp).
  explicit ClusterSpanning(const ClusterStructure& structure, const ConstraintSet* set = nullptr);

  /// Every cluster's rows are couplings or a planar loop's (needs the set).
  bool canUpdateFromJoints() const { return from_joints_possible_; }
  /// G_k and g_k of every cluster from K and k in closed form (couplings,
  /// planar loops in their root's axes), without ConstraintData: needs data's
  /// placements at q. λ from multipliersFromJointForce is then in the
  /// set's rows all the same. Returns the smallest pivot ratio. No allocation.
  double updateFromJoints(const Data& data, const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v);
  /// max |K_k q̈_k - k_k| over the rows of the last updateFromJoints.
  double residualFromJoints(const Eigen::Ref<const VectorX>& qdd) const;

  /// G_k and g_k of every cluster from the dense Jacobian cdata.J and target
  /// cdata.k. Returns the smallest pivot ratio min|u_ii| / max|u_ii| of the
  /// K_d factors (1 without loops). No allocation.
  double update(const ConstraintData& cdata);

  /// λ (global rows) from the residual joint force r = Kᵀλ (model dof
  /// order): r is read on every dof of a cluster near a singular
  /// configuration (nearSingular), on the dependent dofs of the others. No allocation.
  void multipliersFromJointForce(const Eigen::Ref<const VectorX>& joint_force, Eigen::Ref<VectorX> lambda);

  /// Cluster k is a loop whose G_k has an entry above kNearSingularSpanning (after update).
  bool nearSingular(int k) const { return near_singular_[k] != 0; }
  /// Some cluster is nearSingular (after update).
  bool anyNearSingular() const { return any_near_singular_; }

  /// q̈_k = G_k ÿ_k + g_k (eq. 3) for every cluster: ydd stacks the clusters'
  /// independent accelerations in cluster order, qdd is in model dof order.
  void spanningAcceleration(const Eigen::Ref<const VectorX>& ydd, Eigen::Ref<VectorX> qdd) const;

  /// G_kᵀ x_k for every cluster: a spanning-joint force x (model dof order)
  /// as forces on the independent coordinates, stacked in cluster order.
  void projectOnIndependent(const Eigen::Ref<const VectorX>& spanning_force, Eigen::Ref<VectorX> out) const;

  /// The whole tree's G (nv x independent dofs, block diagonal over the
  /// clusters) and g (nv). Only the clusters' entries are written.
  void assemble(Eigen::Ref<MatrixX> G, Eigen::Ref<VectorX> g) const;

  /// |u_ii| of K_d's LU factor for cluster k (after update; allocates: for the load-time checks).
  VectorX dependentPivots(int k) const;

  /// G_k (cluster dofs x independent dofs, rows in the cluster's dof order).
  const MatrixX& G(int k) const { return G_[k]; }
  /// g_k (cluster dofs).
  const VectorX& g(int k) const { return g_[k]; }

 private:
  // G_k, g_k, the near-singular test and QR from cluster k's K (K(r, d): row
  // r of the cluster's rows, column d of its dofs) and rhs_[k].
  template <class KAt>
  void spanCluster(int k, const KAt& K);
  // A planar loop's two λ rows from its root's axes to the set's (after updateFromJoints).
  void rotatePlanarRows(int k, Eigen::Ref<VectorX> lambda) const;

  const ClusterStructure& structure_;
  const ConstraintSet* set_ = nullptr;
  struct CouplingTerm {
    int constraint;
    int row;  // position in the cluster's rows
  };
  std::vector<MatrixX> K_;       // per cluster: rows x dofs, from the joints
  std::vector<VectorX> target_;  // per cluster: k, from the joints
  std::vector<Eigen::Matrix2d, Eigen::aligned_allocator<Eigen::Matrix2d>> Q_;
  std::vector<std::vector<CouplingTerm>> couplings_;
  std::vector<std::optional<PlanarLoop>> planar_;
  bool from_joints_possible_ = false;
  bool from_joints_ = false;  // the last update was updateFromJoints
  std::vector<MatrixX> G_, Kd_, Ky_, solved_rows_;  // solved_rows_: K_d⁻¹ K_y
  std::vector<VectorX> g_, rhs_, solution_;
  template <int N>
  using SmallLu = Eigen::PartialPivLU<Eigen::Matrix<double, N, N>>;
  template <int N>
  SmallLu<N>& smallLu(int k);
  template <int N>
  const SmallLu<N>& smallLu(int k) const;
  // K_d = P⁻¹ L U of cluster k, G_d and g_d (eq. 3): the pivot ratio.
  template <int N>
  double factorSmall(int k);
  double factorDense(int k);
  template <int N>
  void solveSmall(int k);  // solution_[k] = K_d⁻¹ rhs_[k]
  template <int N>
  void solveTransposedSmall(int k);  // solution_[k] = K_d⁻ᵀ rhs_[k]

  std::vector<Eigen::PartialPivLU<MatrixX>> lu_;  // clusters of more than kSmallClusterRows rows
  std::vector<SmallLu<1>> lu1_;
  std::vector<SmallLu<2>> lu2_;
  std::vector<SmallLu<3>> lu3_;
  std::vector<MatrixX> Kt_;                        // K_kᵀ of a loop cluster (dofs x rows)
  std::vector<Eigen::HouseholderQR<MatrixX>> qr_;  // its QR, when near singular
  std::vector<VectorX> force_;                     // r_k on the cluster's dofs
  std::vector<char> near_singular_;                // per cluster, at the last update
  std::vector<char> factored_;      // K_d factored at least once (a constant K keeps it)
  std::vector<double> pivot_ratio_;  // per cluster, of the last factor
  bool any_near_singular_ = false;
};

/// Builds the clusters (ModelError naming the cluster when the declared
/// joints cannot coordinate it) and factors every K_d at configuration q:
/// ModelError naming the cluster's constraints and joints when one is singular
/// there. For the load-time checks (scene_checks.cpp).
void checkClustersAt(const ConstraintSet& set, const std::vector<int>& independent_dofs,
                     const Eigen::Ref<const VectorX>& q, const std::string& owner,
                     ClusterScope scope = ClusterScope::AllConstraints);

}  // namespace loopsim
