#pragma once
// Compile-time sizes for the clusters paper 004's robots are made of: a body
// alone (1 body with 1 or 6 independent dofs), a rotor on its gear (2 bodies,
// 1 dof), a four-bar or a rotor pair (3, 1), a belt pair (4, 2). The cluster
// passes are written once, as templates on the shape; these shapes get
// fixed-size Eigen code (unrolled 6n x n_y products), every other cluster the
// same code with Eigen::Dynamic sizes.
#include <Eigen/Core>

#include <loopsim/solvers/loops/cluster_structure.hpp>

namespace loopsim {

template <int Bodies, int Independent>
struct ClusterShape {
  static constexpr int kIndependent = Independent;
  static constexpr int kRows = Bodies == Eigen::Dynamic ? Eigen::Dynamic : 6 * Bodies;  // 6n
  using Subspace = Eigen::Matrix<double, kRows, Independent>;                          // S_k, U_k: 6n x n_y
  using Stacked = Eigen::Matrix<double, kRows, 1>;                                     // 6n
  using Square = Eigen::Matrix<double, Independent, Independent>;                      // D_k
  using Joint = Eigen::Matrix<double, Independent, 1>;                                 // ÿ_k, u_k
  using Spanning = Eigen::Matrix<double, Eigen::Dynamic, Independent>;                 // G_k: dofs x n_y
};

/// Calls f(ClusterShape<n, n_y>{}) with the cluster's fixed shape when it has
/// one, else with ClusterShape<Dynamic, Dynamic>.
template <class F>
void withClusterShape(const BodyCluster& cluster, F&& f) {
  const int n = cluster.bodyCount(), ny = cluster.independentCount();
  if (n == 1 && ny == 1) return f(ClusterShape<1, 1>{});
  if (n == 2 && ny == 1) return f(ClusterShape<2, 1>{});
  if (n == 3 && ny == 1) return f(ClusterShape<3, 1>{});
  if (n == 4 && ny == 2) return f(ClusterShape<4, 2>{});
  if (n == 1 && ny == 6) return f(ClusterShape<1, 6>{});
  return f(ClusterShape<Eigen::Dynamic, Eigen::Dynamic>{});
}

/// A view of dynamic storage with the shape's compile-time sizes.
template <class Fixed, class Storage>
Eigen::Map<Fixed> shaped(Storage& m) {
  return Eigen::Map<Fixed>(m.data(), m.rows(), m.cols());
}
template <class Fixed, class Storage>
Eigen::Map<const Fixed> shaped(const Storage& m) {
  return Eigen::Map<const Fixed>(m.data(), m.rows(), m.cols());
}

}  // namespace loopsim
