#include <loopsim/solvers/loops/cluster_articulated_inertias.hpp>

#include <algorithm>

#include <loopsim/linalg/small_cholesky.hpp>
#include <loopsim/model/joint_motion.hpp>

namespace loopsim {

void ClusterArticulatedInertias::allocate(const ClusterStructure& structure) {
  for (const BodyCluster& cl : structure.clusters()) {
    const int n6 = 6 * cl.bodyCount(), ny = cl.independentCount();
    IA.push_back(MatrixX::Zero(n6, n6));
    Ia.push_back(MatrixX::Zero(n6, n6));
    U.push_back(MatrixX::Zero(n6, ny));
    UDinv.push_back(MatrixX::Zero(n6, ny));
    D.push_back(MatrixX::Zero(ny, ny));
    Dinv.push_back(MatrixX::Zero(ny, ny));
    GA.push_back(MatrixX::Zero(cl.dofCount(), ny));
    parent.push_back(cl.parent);
    blocks.emplace_back();
    for (int p = 0; p < cl.bodyCount(); ++p) blocks.back().emplace_back(p, p);
  }
  // addToParent's blocks (output a, output b) of every child cluster.
  const auto& clusters = structure.clusters();
  for (const BodyCluster& cl : clusters) {
    if (cl.parent < 0) continue;
    auto& parent_blocks = blocks[cl.parent];
    for (int a : cl.output) {
      for (int b : cl.output) {
        const std::pair<int, int> block(structure.positionInCluster(a), structure.positionInCluster(b));
        if (std::find(parent_blocks.begin(), parent_blocks.end(), block) == parent_blocks.end()) {
          parent_blocks.push_back(block);
        }
      }
    }
  }
}

void ClusterArticulatedInertias::setBodyInertias(int k, const BodyCluster& cluster, const Data& data) {
  // Only the blocks that can be nonzero were ever written: zero those (a
  // whole-matrix clear is most of the work on a large cluster).
  for (const auto& [a, b] : blocks[k]) IA[k].block<6, 6>(6 * a, 6 * b).setZero();
  for (int p = 0; p < cluster.bodyCount(); ++p) IA[k].block<6, 6>(6 * p, 6 * p) = data.Ia[cluster.bodies[p]];
}

void ClusterArticulatedInertias::factor(int k, const MatrixX& S, const MatrixX& G) {
  // U_k = I^A_k S_k over I^A_k's nonzero blocks (lazy 6-row products: no allocation).
  U[k].setZero();
  for (const auto& [a, b] : blocks[k]) {
    U[k].middleRows<6>(6 * a).noalias() += IA[k].block<6, 6>(6 * a, 6 * b).lazyProduct(S.middleRows<6>(6 * b));
  }
  D[k].noalias() = S.transpose() * U[k];
  D[k].noalias() += G.transpose() * GA[k];
  choleskyInPlace(D[k]);  // D is SPD: S_k has full column rank
  Dinv[k].setIdentity();
  for (int c = 0; c < Dinv[k].cols(); ++c) choleskySolveInPlace(D[k], Dinv[k].col(c));
  if (parent[k] >= 0) UDinv[k].noalias() = U[k] * Dinv[k];
}

void ClusterArticulatedInertias::addToParent(int k, const ClusterStructure& structure,
                                             const ClusterKinematics& kinematics) {
  const BodyCluster& cl = structure.clusters()[k];
  Ia[k] = IA[k];
  Ia[k].noalias() -= UDinv[k] * U[k].transpose();
  MatrixX& IA_parent = IA[cl.parent];
  for (int a = 0; a < cl.bodyCount(); ++a) {
    const Matrix6& Xa = kinematics.fromOutput(cl.bodies[a]);
    const int oa = structure.positionInCluster(cl.output[a]);
    for (int b = 0; b < cl.bodyCount(); ++b) {
      const Matrix6& Xb = kinematics.fromOutput(cl.bodies[b]);
      const int ob = structure.positionInCluster(cl.output[b]);
      const Matrix6 block = Xa.transpose() * Ia[k].block<6, 6>(6 * a, 6 * b) * Xb;
      IA_parent.block<6, 6>(6 * oa, 6 * ob) += block;
    }
  }
}

}  // namespace loopsim
