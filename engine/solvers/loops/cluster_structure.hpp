#pragma once
// Body clusters of paper 004 §IV: the spanning tree's bodies grouped so that
// every loop constraint and every joint coupling lies inside one cluster, and
// the clusters form a tree (the cluster connectivity tree, C-CT). Built once
// at bind time from the constraint set and the declared independent
// coordinates (scene key `independent`: whole joints or single dofs); shared by cluster-aba, cluster-rnea and
// cluster-efpa.
//
// Construction:
//  - a loop constraint (weld, connect, revolute) between bodies b1 and b2
//    (b2 may be the world) groups the bodies on the tree path between them,
//    without their common ancestor: only those joints move one end relative
//    to the other, so its Jacobian K has columns in the cluster alone;
//  - a coupling (gear, belt: Σ c_j q_j = c_0) groups the bodies of its joints
//    and the tree path between them up to their common ancestor;
//  - groups sharing a body merge; a group whose output bodies (§IV-B: Λ(i),
//    the nearest ancestor outside the group) lie in two groups absorbs the
//    lower one, until every cluster has one parent cluster (a tree);
//  - every other body is a cluster of its own (ABA's body).
// Coordinates: a cluster's spanning dofs split into independent ones y (the
// declared dofs) and dependent ones, as many as the cluster's constraint rows,
// solved from K at each state (cluster_spanning.hpp). Declaring single dofs of
// a multi-dof joint matters where a motion moves no constrained point: the
// spin of Digit's ball-jointed rods about their own axes has a zero column in
// K, so it can only be independent while the ball's other two dofs are not.
// A cluster whose dependent dof count differs from its rows is refused with
// a ModelError naming its constraints and joints.
//
// Scope: cluster-aba and cluster-rnea close every constraint inside the
// clusters (a world constraint's path runs to the root). cluster-efpa closes
// only the internal loops and couplings: its world constraints are the
// Delassus rows (paper 004 §VIII's end-effectors), in no cluster.
#include <string>
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>

namespace loopsim {

struct BodyCluster {
  std::vector<int> bodies;         // increasing (regular numbering)
  std::vector<int> output;         // per body: Λ(i), its nearest ancestor outside the cluster (0 = world)
  std::vector<int> local_parent;   // per body: position of λ(i) in `bodies`, or -1 when outside
  int parent = -1;                 // parent cluster (index into ClusterStructure::clusters), -1 = world
  std::vector<int> dofs;           // spanning dof indices (model v order) of the cluster's joints, increasing
  std::vector<int> dof_body;       // per dof: its position in `bodies`
  std::vector<int> independent;    // positions in `dofs` of the independent dofs y
  std::vector<int> dependent;      // positions in `dofs` of the dependent dofs
  std::vector<int> rows;           // global constraint rows closed inside the cluster
  std::vector<int> constraints;    // constraint indices closed inside the cluster
  /// Every constraint of the cluster is a coupling (Σ c_j q_j = c_0 over
  /// one-dof joints): K is constant, so G_k is too (a gear, a belt).
  bool constant_jacobian = false;

  int bodyCount() const { return static_cast<int>(bodies.size()); }
  int dofCount() const { return static_cast<int>(dofs.size()); }
  int independentCount() const { return static_cast<int>(independent.size()); }
  int rowCount() const { return static_cast<int>(rows.size()); }
};

enum class ClusterScope {
  AllConstraints,  // every constraint closes inside a cluster (cluster-aba, cluster-rnea)
  InternalLoops,   // world constraints (body2 = world) stay outside the clusters (cluster-efpa)
};

/// True when constraint c is a world constraint in the sense of ClusterScope::InternalLoops.
bool isWorldConstraint(const Constraint& c);

class ClusterStructure {
 public:
  /// Throws ModelError (element `owner`, e.g. "solver 'cluster-aba'") when a
  /// cluster cannot be coordinated by the declared independent dofs (model v
  /// indices, SolverSettings::independent_dofs), when a declared dof closes
  /// no loop, or when an index is out of range.
  ClusterStructure(const ConstraintSet& set, const std::vector<int>& independent_dofs, const std::string& owner,
                   ClusterScope scope = ClusterScope::AllConstraints);

  /// Clusters in an order where every parent precedes its children.
  const std::vector<BodyCluster>& clusters() const { return clusters_; }
  int clusterOf(int body) const { return cluster_of_[body]; }
  int positionInCluster(int body) const { return position_[body]; }
  int independentDofs() const { return independent_dofs_; }
  /// The model's dof indices of the independent coordinates, cluster by cluster.
  const std::vector<int>& independentDofIndices() const { return independent_dof_indices_; }
  int largestCluster() const;

  /// "'crank_joint', 'coupler_joint'" for a cluster's joints.
  std::string jointList(const BodyCluster& cluster) const;

 private:
  const Model& model_;
  std::vector<BodyCluster> clusters_;
  std::vector<int> cluster_of_, position_;
  std::vector<int> independent_dof_indices_;
  int independent_dofs_ = 0;
};

}  // namespace loopsim
