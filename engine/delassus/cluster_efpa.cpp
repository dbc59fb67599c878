// `cluster-efpa`: the cluster-based extended-force-propagator algorithm
// (paper 004 §VIII, C-EFPA) for the Delassus matrix of the world constraints
// with the internal loops closed (delassus.hpp). The internal loops and
// couplings form the clusters (ClusterScope::InternalLoops, coordinated by the
// declared independent joints); each world constraint row r is an
// end-effector: a unit force on its body b, the 6-row ^bK_r (K¹, body frame).
//
// At q with v = 0 and τ = 0 (§VIII-C):
//  - backward pass: the cluster articulated inertias of C-ABA (Alg. 1 lines
//    26-32 without bias terms), D_k including the armature Gᵀ A G; each row's
//    cluster propagator starts at its body's block (eqs. 57-58) and crosses
//    each cluster joint toward the root by eq. 62,
//        ^rχ_λ(k) = ^λX*_k L_kᵀ ^rχ_k,   L_kᵀ = 1 - U_k D_k⁻¹ S_kᵀ,
//    with ^λX*_k applied block by block onto the output bodies (eq. 18);
//  - forward pass: the acceleration stack of cluster k caused by a unit force
//    on row s, for the clusters on s's path (eq. 67; Ω⁻¹_0s = 0):
//        A_ks = L_k ^kX_λ A_λ(k)s + S_k D_k⁻¹ S_kᵀ ^sχ_k,   L_k = 1 - S_k D_k⁻¹ U_kᵀ;
//  - assembly at the deepest common cluster c of rows r and s ([13] via §VIII-D):
//        Λ⁻¹_rs = ^rχ_cᵀ A_cs   (0 when their paths share no cluster).
// O(N_C l³ + m d + m²) for clusters of at most l bodies, C-CT depth d.
// Inertias and propagators stay in body frames (§V-A). No allocation in compute.
#include <algorithm>

#include <loopsim/delassus/delassus_algorithms.hpp>
#include <loopsim/linalg/kernels/frame_products.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/solvers/loops/cluster_articulated_inertias.hpp>
#include <loopsim/solvers/loops/cluster_kinematics.hpp>
#include <loopsim/solvers/loops/cluster_shape.hpp>
#include <loopsim/algorithms/articulated_first_pass.hpp>
#include <loopsim/model/joint_motion.hpp>

namespace loopsim::detail {

namespace {

class ClusterEfpa final : public DelassusAlgorithm {
 public:
  ClusterEfpa(const ConstraintSet& set, const std::vector<int>& independent_dofs)
      : set_(set),
        structure_(set, independent_dofs, "delassus algorithm 'cluster-efpa'", ClusterScope::InternalLoops),
        spanning_(structure_),
        kinematics_(structure_),
        data_(set.model()),
        rigid_inertias_(rigidInertiaMatrices(set.model())),
        cdata_(set),
        zero_(VectorX::Zero(set.model().nv)) {
    const auto& clusters = structure_.clusters();
    const int nc = static_cast<int>(clusters.size());
    // The end-effector rows and, per cluster, the rows it supports (ES(C_k), §VIII-A).
    es_.resize(nc);
    for (int c = 0; c < set.size(); ++c) {
      if (!isWorldConstraint(set[c])) continue;
      for (int r = 0; r < set[c].dimension(); ++r) {
        const int w = static_cast<int>(rows_.size());
        const int body = set[c].body1;
        rows_.push_back({set.rowOffset(c) + r, c, r, structure_.clusterOf(body), structure_.positionInCluster(body)});
        for (int k = rows_.back().cluster; k >= 0; k = clusters[k].parent) es_[k].push_back(w);
      }
    }
    auto columnIn = [&](int k, int w) {
      return static_cast<int>(std::find(es_[k].begin(), es_[k].end(), w) - es_[k].begin());
    };
    column_in_parent_.resize(nc);
    for (int k = 0; k < nc; ++k) {
      for (int w : es_[k]) column_in_parent_[k].push_back(clusters[k].parent < 0 ? -1 : columnIn(clusters[k].parent, w));
    }
    // Deepest common cluster of every pair (clusters are numbered parents first).
    const int m = static_cast<int>(rows_.size());
    for (int a = 0; a < m; ++a) {
      for (int b = a; b < m; ++b) {
        int ka = rows_[a].cluster, kb = rows_[b].cluster;
        while (ka != kb && ka >= 0 && kb >= 0) {
          if (ka > kb) ka = clusters[ka].parent;
          else kb = clusters[kb].parent;
        }
        if (ka >= 0 && ka == kb) pairs_.push_back({a, b, ka, columnIn(ka, a), columnIn(ka, b)});
      }
    }
    inertias_.allocate(structure_);
    for (int k = 0; k < nc; ++k) {
      const BodyCluster& cl = clusters[k];
      const int n6 = 6 * cl.bodyCount(), ny = cl.independentCount(), ne = static_cast<int>(es_[k].size());
      chi_.push_back(MatrixX::Zero(n6, ne));
      accel_.push_back(MatrixX::Zero(n6, ne));
      stack_.push_back(VectorX::Zero(n6));
      joint_.push_back(VectorX::Zero(ny));
      ydd_.push_back(VectorX::Zero(ny));
    }
  }

  std::string_view name() const override { return "cluster-efpa"; }

  void compute(const Eigen::Ref<const VectorX>& q, Eigen::Ref<MatrixX> out) override {
    const int nc = static_cast<int>(structure_.clusters().size());
    // Forward pass #1 at v = 0: placements, S_i, I_i; K at q, G_k; S_k (Alg. 1 lines 1-19).
    // No velocity-product accelerations: zero at v = 0, and the Jacobian needs none.
    articulatedFirstPass(set_.model(), data_, q, zero_, zero_, {}, /*with_accelerations=*/false, &rigid_inertias_);
    if (set_.dimension() > 0) {
      evaluateConstraints(set_, data_, q, zero_, cdata_, kConstraintErrors | kConstraintJacobian);
      spanning_.update(cdata_);
    }
    kinematics_.update(data_, spanning_);
    for (int k = 0; k < nc; ++k) {
      const BodyCluster& cl = structure_.clusters()[k];
      inertias_.setBodyInertias(k, cl, data_);
      chi_[k].setZero();
    }
    // Eqs. 57-58: row r's propagator starts as ^bK_r on its body's block.
    for (std::size_t w = 0; w < rows_.size(); ++w) {
      const WorldRow& row = rows_[w];
      chi_[row.cluster].col(columnOfOwnRow(w)).segment<6>(6 * row.position) =
          cdata_.K1[row.constraint].row(row.local).transpose();
    }
    for (int k = nc - 1; k >= 0; --k) backwardPass(k);
    for (int k = 0; k < nc; ++k) forwardPass(k);
    out.setZero();
    for (const Pair& p : pairs_) {
      const double value = chi_[p.cluster].col(p.column_a).dot(accel_[p.cluster].col(p.column_b));
      out(rows_[p.a].global, rows_[p.b].global) = value;
      out(rows_[p.b].global, rows_[p.a].global) = value;
    }
  }

 private:
  struct WorldRow {
    int global, constraint, local, cluster, position;
  };
  struct Pair {
    int a, b, cluster, column_a, column_b;
  };

  int columnOfOwnRow(std::size_t w) const {
    const auto& es = es_[rows_[w].cluster];
    return static_cast<int>(std::find(es.begin(), es.end(), static_cast<int>(w)) - es.begin());
  }

  void backwardPass(int k) {
    const BodyCluster& cl = structure_.clusters()[k];
    const MatrixX& S = kinematics_.S(k);
    const MatrixX& G = spanning_.G(k);
    // Lines 26-27 (eq. 49): U_k = I^A S_k, D_k = S_kᵀ U_k + Gᵀ A G (armature on the spanning dofs).
    for (int d = 0; d < cl.dofCount(); ++d) inertias_.GA[k].row(d) = set_.model().armature[cl.dofs[d]] * G.row(d);
    inertias_.factor(k, S, G);
    if (cl.parent < 0) return;
    withClusterShape(cl, [&](auto shape) { propagatorsToParent<decltype(shape)>(k); });
    // Lines 30 and 32 (eqs. 55-56): I^a = I^A - U D⁻¹ Uᵀ, I^A_λ += ^λX*_k I^a ^kX_λ.
    inertias_.addToParent(k, structure_, kinematics_);
  }

  // Eq. 62: ^rχ_λ(k) = ^λX*_k (1 - U D⁻¹ Sᵀ) ^rχ_k, block by block onto the
  // output bodies, at the cluster's compile-time size (cluster_shape.hpp).
  template <class Shape>
  void propagatorsToParent(int k) {
    using Stacked = typename Shape::Stacked;
    using Subspace = typename Shape::Subspace;
    const BodyCluster& cl = structure_.clusters()[k];
    const int n6 = 6 * cl.bodyCount();
    const auto S = shaped<const Subspace>(kinematics_.S(k));
    const auto UDinv = shaped<const Subspace>(inertias_.UDinv[k]);
    auto joint = shaped<typename Shape::Joint>(joint_[k]);
    auto f = shaped<Stacked>(stack_[k]);
    const MatrixX& chi = chi_[k];
    MatrixX& chi_parent = chi_[cl.parent];
    for (int j = 0; j < chi.cols(); ++j) {
      const Eigen::Map<const Stacked> chi_j(chi.col(j).data(), n6, 1);
      joint.noalias() = S.transpose().lazyProduct(chi_j);
      f = chi_j;
      f.noalias() -= UDinv.lazyProduct(joint);
      double* parent_column = chi_parent.col(column_in_parent_[k][j]).data();
      for (int a = 0; a < cl.bodyCount(); ++a) {
        const int oa = structure_.positionInCluster(cl.output[a]);
        const Force onto_output = kernels::toParentFrame(kinematics_.outputPlacement(cl.bodies[a]),
                                                         f.template segment<3>(6 * a), f.template segment<3>(6 * a + 3));
        Eigen::Map<Vector3>(parent_column + 6 * oa) += onto_output.n;
        Eigen::Map<Vector3>(parent_column + 6 * oa + 3) += onto_output.f;
      }
    }
  }

  void forwardPass(int k) {
    withClusterShape(structure_.clusters()[k], [&](auto shape) { accelerationsFromParent<decltype(shape)>(k); });
  }

  template <class Shape>
  void accelerationsFromParent(int k) {
    using Stacked = typename Shape::Stacked;
    using Subspace = typename Shape::Subspace;
    const BodyCluster& cl = structure_.clusters()[k];
    const int n6 = 6 * cl.bodyCount();
    const auto S = shaped<const Subspace>(kinematics_.S(k));
    const auto U = shaped<const Subspace>(inertias_.U[k]);
    const auto Dinv = shaped<const typename Shape::Square>(inertias_.Dinv[k]);
    auto joint = shaped<typename Shape::Joint>(joint_[k]);
    auto ydd = shaped<typename Shape::Joint>(ydd_[k]);
    auto a = shaped<Stacked>(stack_[k]);
    MatrixX& accel = accel_[k];
    for (int j = 0; j < accel.cols(); ++j) {
      // ^kX_λ A_λ(k)s: each body from its output body (eq. 17); A_0s = 0.
      if (cl.parent >= 0) {
        const double* parent_column = accel_[cl.parent].col(column_in_parent_[k][j]).data();
        for (int p = 0; p < cl.bodyCount(); ++p) {
          const double* from = parent_column + 6 * structure_.positionInCluster(cl.output[p]);
          const Motion m = kernels::toChildFrame(kinematics_.outputPlacement(cl.bodies[p]),
                                                 Motion(Eigen::Map<const Vector3>(from), Eigen::Map<const Vector3>(from + 3)));
          a.template segment<3>(6 * p) = m.w;
          a.template segment<3>(6 * p + 3) = m.v;
        }
      } else {
        a.setZero();
      }
      // Eqs. 64-67: ÿ = D⁻¹ (Sᵀ ^sχ_k - Uᵀ a'), A_ks = a' + S ÿ, i.e. L_k a' + S D⁻¹ Sᵀ ^sχ_k.
      const Eigen::Map<const Stacked> chi_j(chi_[k].col(j).data(), n6, 1);
      joint.noalias() = S.transpose().lazyProduct(chi_j);
      joint.noalias() -= U.transpose().lazyProduct(a);
      ydd.noalias() = Dinv.lazyProduct(joint);
      Eigen::Map<Stacked> accel_j(accel.col(j).data(), n6, 1);
      accel_j = a;
      accel_j.noalias() += S.lazyProduct(ydd);
    }
  }

  const ConstraintSet& set_;
  ClusterStructure structure_;
  ClusterSpanning spanning_;
  ClusterKinematics kinematics_;
  Data data_;
  AlignedVector<Matrix6> rigid_inertias_;  // I_i as 6x6 matrices, formed once (the first pass's input)
  ConstraintData cdata_;
  VectorX zero_;
  std::vector<WorldRow> rows_;
  std::vector<std::vector<int>> es_;                // per cluster: the rows it supports, ES(C_k)
  std::vector<std::vector<int>> column_in_parent_;  // per cluster, per column: its column in the parent cluster
  std::vector<Pair> pairs_;                         // r ≤ s with a common cluster
  // Per cluster (Alg. 1 symbols): I^A, I^a, U, D's Cholesky factor, D⁻¹, U D⁻¹, A G;
  // the propagators ^rχ_k and accelerations A_ks (one column per supported row); scratch.
  ClusterArticulatedInertias inertias_;
  std::vector<MatrixX> chi_, accel_;
  std::vector<VectorX> stack_, joint_, ydd_;
};

}  // namespace

std::unique_ptr<DelassusAlgorithm> makeClusterEfpa(const ConstraintSet& set, const std::vector<int>& independent_dofs) {
  return std::make_unique<ClusterEfpa>(set, independent_dofs);
}

}  // namespace loopsim::detail
