#include <loopsim/solvers/loops/cluster_kinematics.hpp>

namespace loopsim {

ClusterKinematics::ClusterKinematics(const ClusterStructure& structure)
    : structure_(structure) {
  int nbodies = 1;  // the world and every body of some cluster
  for (const BodyCluster& cl : structure.clusters()) {
    S_.push_back(MatrixX::Zero(6 * cl.bodyCount(), cl.independentCount()));
    c_.push_back(VectorX::Zero(6 * cl.bodyCount()));
    nbodies += cl.bodyCount();
  }
  from_output_.assign(nbodies, Matrix6::Identity());
  output_M_body_.assign(nbodies, SE3::Identity());
}

void ClusterKinematics::update(const Data& data, const ClusterSpanning& spanning) {
  const auto& clusters = structure_.clusters();
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    const MatrixX& G = spanning.G(static_cast<int>(k));
    const VectorX& g = spanning.g(static_cast<int>(k));
    MatrixX& S = S_[k];
    VectorX& c = c_[k];
    int dof = 0;  // the body's first position in the cluster's dofs
    for (int p = 0; p < cl.bodyCount(); ++p) {
      const int b = cl.bodies[p];
      // Eq. 17: ^iX_Λ(i), a motion from the output body's frame to i's. Body
      // i's placement in its output body's frame composes the joints' from
      // Λ(i) down (Λ(i) = λ(i) when the parent is outside the cluster).
      const int lp = cl.local_parent[p];
      output_M_body_[b] = lp >= 0 ? output_M_body_[cl.bodies[lp]] * data.liMi[b] : data.liMi[b];
      from_output_[b] = output_M_body_[b].inverse().actionMatrix();
      auto S_i = S.middleRows<6>(6 * p);
      auto c_i = c.segment<6>(6 * p);
      if (lp >= 0) {
        const Matrix6 X = data.liMi[b].inverse().actionMatrix();  // ^iX_λ(i)
        S_i.noalias() = X.lazyProduct(S.middleRows<6>(6 * lp));
        c_i.noalias() = X * c.segment<6>(6 * lp);
      } else {
        S_i.setZero();
        c_i.setZero();
      }
      // Eq. 24 and Alg. 1 lines 18-19 for body i's own joint.
      int nv = 0;
      while (dof + nv < cl.dofCount() && cl.dof_body[dof + nv] == p) ++nv;
      if (nv > 0) {
        const auto S_joint = data.S.middleCols(cl.dofs[dof], nv);
        S_i.noalias() += S_joint.lazyProduct(G.middleRows(dof, nv));
        c_i.noalias() += S_joint.lazyProduct(g.segment(dof, nv));
      }
      c_i += data.c[b].toVector();
      dof += nv;
    }
  }
}

}  // namespace loopsim
