#include <loopsim/solvers/loops/cluster_kinematics.hpp>

#include <loopsim/linalg/kernels/frame_products.hpp>
#include <loopsim/solvers/loops/cluster_shape.hpp>

namespace loopsim {

ClusterKinematics::ClusterKinematics(const ClusterStructure& structure) : structure_(structure) {
  int nbodies = 1;  // the world and every body of some cluster
  for (const BodyCluster& cl : structure.clusters()) {
    S_.push_back(MatrixX::Zero(6 * cl.bodyCount(), cl.independentCount()));
    c_.push_back(VectorX::Zero(6 * cl.bodyCount()));
    nbodies += cl.bodyCount();
  }
  output_M_body_.assign(nbodies, SE3::Identity());
}

void ClusterKinematics::update(const Data& data, const ClusterSpanning& spanning) {
  const auto& clusters = structure_.clusters();
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    withClusterShape(clusters[k], [&](auto shape) { updateCluster<decltype(shape)>(static_cast<int>(k), data, spanning); });
  }
}

template <class Shape>
void ClusterKinematics::updateCluster(int k, const Data& data, const ClusterSpanning& spanning) {
  const BodyCluster& cl = structure_.clusters()[k];
  const auto G = shaped<const typename Shape::Spanning>(spanning.G(k));
  const VectorX& g = spanning.g(k);
  auto S = shaped<typename Shape::Subspace>(S_[k]);
  auto c = shaped<typename Shape::Stacked>(c_[k]);
  int dof = 0;  // the body's first position in the cluster's dofs
  for (int p = 0; p < cl.bodyCount(); ++p) {
    const int b = cl.bodies[p];
    // Eq. 17: ^iX_Λ(i), a motion from the output body's frame to i's. Body
    // i's placement in its output body's frame composes the joints' from
    // Λ(i) down (Λ(i) = λ(i) when the parent is outside the cluster).
    const int lp = cl.local_parent[p];
    output_M_body_[b] = lp >= 0 ? output_M_body_[cl.bodies[lp]] * data.liMi[b] : data.liMi[b];
    auto S_i = S.template middleRows<6>(6 * p);
    // c_i by its halves, stored once at the end: a 2-wide read across the
    // seam of halves just stored stalls (docs/performance.md).
    Vector3 c_w = data.c[b].w, c_v = data.c[b].v;
    if (lp >= 0) {
      // ^iX_λ(i) column by column as placement products (no 6x6 matrix).
      const SE3& parent_M_i = data.liMi[b];
      for (int j = 0; j < S.cols(); ++j) {
        const auto from = S.template middleRows<6>(6 * lp).col(j);
        const Motion m = kernels::toChildFrame(parent_M_i, Motion(from.template head<3>(), from.template tail<3>()));
        S_i.col(j).template head<3>() = m.w;
        S_i.col(j).template tail<3>() = m.v;
      }
      const auto c_lp = c.template segment<6>(6 * lp);
      const Motion m = kernels::toChildFrame(parent_M_i, Motion(c_lp.template head<3>(), c_lp.template tail<3>()));
      c_w += m.w;
      c_v += m.v;
    } else {
      S_i.setZero();
    }
    // Eq. 24 and Alg. 1 lines 18-19 for body i's own joint, dof by dof.
    for (; dof < cl.dofCount() && cl.dof_body[dof] == p; ++dof) {
      const auto S_dof = data.S.col(cl.dofs[dof]);
      S_i.noalias() += S_dof * G.row(dof);
      c_w += S_dof.template head<3>() * g[dof];
      c_v += S_dof.template tail<3>() * g[dof];
    }
    c.template segment<3>(6 * p) = c_w;
    c.template segment<3>(6 * p + 3) = c_v;
  }
}

}  // namespace loopsim
