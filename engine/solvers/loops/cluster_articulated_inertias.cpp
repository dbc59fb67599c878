#include <loopsim/solvers/loops/cluster_articulated_inertias.hpp>

#include <algorithm>

#include <loopsim/linalg/fixed_cholesky.hpp>
#include <loopsim/linalg/kernels/frame_products.hpp>
#include <loopsim/linalg/small_cholesky.hpp>
#include <loopsim/model/joint_motion.hpp>
#include <loopsim/solvers/loops/cluster_shape.hpp>

namespace loopsim {

void ClusterArticulatedInertias::allocate(const ClusterStructure& structure) {
  clusters = &structure.clusters();
  for (const BodyCluster& cl : structure.clusters()) {
    const int n6 = 6 * cl.bodyCount(), ny = cl.independentCount();
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
    outputs.emplace_back();
    output_of.emplace_back();
    for (int o : cl.output) {
      const int position = o == 0 ? -1 : structure.positionInCluster(o);
      auto it = std::find(outputs.back().begin(), outputs.back().end(), position);
      if (it == outputs.back().end()) it = outputs.back().insert(outputs.back().end(), position);
      output_of.back().push_back(static_cast<int>(it - outputs.back().begin()));
    }
    const int nout = static_cast<int>(outputs.back().size());
    XU.push_back(MatrixX::Zero(6 * nout, cl.independentCount()));
    XUDinv.push_back(MatrixX::Zero(6 * nout, cl.independentCount()));
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
  // Every cluster's blocks are known now: the storage and the parents' indices.
  auto indexIn = [&](int cluster, int a, int b) {
    const auto& bl = blocks[cluster];
    return static_cast<int>(std::find(bl.begin(), bl.end(), std::pair<int, int>(a, b)) - bl.begin());
  };
  parent_block.resize(clusters.size());
  parent_output_block.resize(clusters.size());
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    IA.emplace_back(blocks[k].size(), Matrix6::Zero());
    if (cl.parent < 0) continue;
    for (const auto& [a, b] : blocks[k]) {
      parent_block[k].push_back(indexIn(cl.parent, structure.positionInCluster(cl.output[a]),
                                        structure.positionInCluster(cl.output[b])));
    }
    for (int oi : outputs[k]) {
      for (int oj : outputs[k]) parent_output_block[k].push_back(indexIn(cl.parent, oi, oj));
    }
  }
}

void ClusterArticulatedInertias::setBodyInertias(int k, const BodyCluster& cluster, const Data& data) {
  // The bodies' own blocks come first; the child clusters' blocks between
  // output bodies start at zero.
  AlignedVector<Matrix6>& IAk = IA[k];
  for (int p = 0; p < cluster.bodyCount(); ++p) IAk[p] = data.Ia[cluster.bodies[p]];
  for (std::size_t i = cluster.bodyCount(); i < IAk.size(); ++i) IAk[i].setZero();
}

void ClusterArticulatedInertias::factor(int k, const MatrixX& S, const MatrixX& G) {
  withClusterShape((*clusters)[k], [&](auto shape) { factorShaped<decltype(shape)>(k, S, G); });
}

template <class Shape>
void ClusterArticulatedInertias::factorShaped(int k, const MatrixX& S_storage, const MatrixX& G_storage) {
  using Subspace = typename Shape::Subspace;
  using Square = typename Shape::Square;
  const auto S = shaped<const Subspace>(S_storage);
  const auto G = shaped<const typename Shape::Spanning>(G_storage);
  auto Uk = shaped<Subspace>(U[k]);
  auto Dk = shaped<Square>(D[k]);
  auto Dinvk = shaped<Square>(Dinv[k]);
  // U_k = I^A_k S_k over I^A_k's nonzero blocks (lazy 6-row products: no allocation).
  for (int p = 0; p < Uk.rows() / 6; ++p) {  // the own blocks first: = then +=
    Uk.template middleRows<6>(6 * p).noalias() = IA[k][p].lazyProduct(S.template middleRows<6>(6 * p));
  }
  for (std::size_t i = Uk.rows() / 6; i < blocks[k].size(); ++i) {
    const auto [a, b] = blocks[k][i];
    Uk.template middleRows<6>(6 * a).noalias() += IA[k][i].lazyProduct(S.template middleRows<6>(6 * b));
  }
  // A fixed shape's 6n-deep product unrolled (Eigen would take the blocked
  // path past 20 rows + columns + depth); a large cluster's blocked.
  if constexpr (Shape::kRows != Eigen::Dynamic) {
    Dk.noalias() = S.transpose().lazyProduct(Uk);
  } else {
    Dk.noalias() = S.transpose() * Uk;
  }
  Dk.noalias() += G.transpose().lazyProduct(shaped<const typename Shape::Spanning>(GA[k]));
  if constexpr (Shape::kIndependent == 1) {
    Dinvk(0, 0) = 1.0 / Dk(0, 0);
  } else if constexpr (Shape::kIndependent == 2) {
    // The adjugate over the determinant (D SPD: det > 0); a belt pair's D.
    const double det = Dk(0, 0) * Dk(1, 1) - Dk(0, 1) * Dk(0, 1);
    Dinvk(0, 0) = Dk(1, 1) / det;
    Dinvk(1, 1) = Dk(0, 0) / det;
    Dinvk(0, 1) = Dinvk(1, 0) = -Dk(0, 1) / det;
  } else if constexpr (Shape::kIndependent != Eigen::Dynamic) {
    static_assert(Shape::kIndependent == 3 || Shape::kIndependent == 6, "fixedLdltInverse has the sizes 2, 3 and 6");
    // D is SPD (S_k has full column rank). LDLᵀ's inverse at once: LLT's
    // solve of the identity took Eigen's blocked triangular solves (docs/performance.md).
    Dinvk = fixedLdltInverse<Shape::kIndependent>(Square(Dk));
  } else {
    choleskyInPlace(D[k]);  // D is SPD: S_k has full column rank
    Dinv[k].setIdentity();
    for (int c = 0; c < Dinv[k].cols(); ++c) choleskySolveInPlace(D[k], Dinv[k].col(c));
  }
  if (parent[k] >= 0) shaped<Subspace>(UDinv[k]).noalias() = Uk.lazyProduct(Dinvk);
}

void ClusterArticulatedInertias::addToParent(int k, const ClusterStructure& structure,
                                             const ClusterKinematics& kinematics) {
  withClusterShape(structure.clusters()[k],
                   [&](auto shape) { addToParentShaped<decltype(shape)>(k, structure, kinematics); });
}

template <class Shape>
void ClusterArticulatedInertias::addToParentShaped(int k, const ClusterStructure& structure,
                                                   const ClusterKinematics& kinematics) {
  using Subspace = typename Shape::Subspace;
  const BodyCluster& cl = structure.clusters()[k];
  AlignedVector<Matrix6>& IA_parent = IA[cl.parent];
  // ^λX*_k I^A_k ^kX_λ over I^A_k's nonzero blocks, into the parent's blocks.
  for (std::size_t i = 0; i < blocks[k].size(); ++i) {
    const auto [a, b] = blocks[k][i];
    Matrix6& parent_ab = IA_parent[parent_block[k][i]];
    if (a == b) {
      addTransformedInertia(kinematics.outputPlacement(cl.bodies[a]), IA[k][i], parent_ab);
    } else {
      const Matrix6 Xa = kinematics.outputPlacement(cl.bodies[a]).inverse().actionMatrix();
      const Matrix6 Xb = kinematics.outputPlacement(cl.bodies[b]).inverse().actionMatrix();
      parent_ab.noalias() += Xa.transpose() * (IA[k][i] * Xb);
    }
  }
  // - ^λX*_k U D⁻¹ Uᵀ ^kX_λ = -(Σ X*U D⁻¹)(Σ X*U)ᵀ per pair of output bodies.
  using PerOutput = Eigen::Matrix<double, Eigen::Dynamic, Shape::kIndependent>;
  const std::vector<int>& outs = outputs[k];
  const auto Uk = shaped<const Subspace>(U[k]);
  auto XUk = shaped<PerOutput>(XU[k]);
  auto XUDinvk = shaped<PerOutput>(XUDinv[k]);
  XUk.setZero();
  for (int a = 0; a < cl.bodyCount(); ++a) {
    const SE3& output_M_a = kinematics.outputPlacement(cl.bodies[a]);  // ^λX*_a as a placement
    const int o = output_of[k][a];
    for (int j = 0; j < Uk.cols(); ++j) {
      const auto U_aj = Uk.template middleRows<6>(6 * a).col(j);
      const Force f = kernels::toParentFrame(output_M_a, U_aj.template head<3>(), U_aj.template tail<3>());
      XUk.template middleRows<6>(6 * o).col(j).template head<3>() += f.n;
      XUk.template middleRows<6>(6 * o).col(j).template tail<3>() += f.f;
    }
  }
  // (X*U) D⁻¹ = X*(U D⁻¹): one transform per body, not two.
  if constexpr (Shape::kIndependent == 1) {
    XUDinvk.noalias() = XUk * Dinv[k](0, 0);
  } else {
    XUDinvk.noalias() = XUk.lazyProduct(shaped<const typename Shape::Square>(Dinv[k]));
  }
  for (std::size_t i = 0; i < outs.size(); ++i) {
    for (std::size_t j = 0; j < outs.size(); ++j) {
      IA_parent[parent_output_block[k][i * outs.size() + j]].noalias() -=
          XUDinvk.template middleRows<6>(6 * static_cast<int>(i))
              .lazyProduct(XUk.template middleRows<6>(6 * static_cast<int>(j)).transpose());
    }
  }
}

void ClusterArticulatedInertias::addBlocksTimes(int k, const VectorX& c, VectorX& out) const {
  for (std::size_t i = 0; i < blocks[k].size(); ++i) {
    const auto [a, b] = blocks[k][i];
    out.segment<6>(6 * a).noalias() += IA[k][i] * c.segment<6>(6 * b);
  }
}

}  // namespace loopsim
