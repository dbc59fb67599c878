// `pv-osimr`: paper 002 Alg. 3, in body frames. PV-OSIM carries every row up
// to the root (O(m²d)); PV-OSIMr carries propagators only between the
// branching links N, so that each constraint's rows travel as their own block
// only until the first link where constrained branches meet.
//
// Nodes: the world, the real links where at least two constrained branches
// meet (a constraint on the link itself counts as a branch), and one virtual
// end-effector node e_c per constraint c, rigidly attached to its body with
// ^B P_{e_c} := K_cᵀ and ^B Ω_{e_c} := 0 (lines 3-4, the "abuse of notation":
// EMPs become CEMPs and inverse inertias constraint-space at end-effectors).
// A(j) is node j's nearest ancestor node.
//   Backward sweep (lines 5-15): along each chain between nodes, eqs. 16-17
//     ^{π(k)}Ω_{D} = ^kΩ_D + ^kP_Dᵀ S_k D_k⁻¹ S_kᵀ ^kP_D,
//     ^{π(k)}P_D   = ^{π(k)}P_k ^kP_D,     ^{π(k)}P_k = X*(I - U_k D_k⁻¹ S_kᵀ),
//   starting from P = I, Ω = 0 at a real node (P = Kᵀ at e_c).
//   Forward sweep over nodes (lines 16-17, eq. 18): ^0Ω_j = ^AΩ_j + ^AP_jᵀ ^0Ω_A ^AP_j.
//   Backward over nodes (lines 18-21, eq. 19): ^{A(j)}K_c = ^jK_c ^{A(j)}P_jᵀ.
//   Assembly (lines 23-28): Λ⁻¹_cc = ^0Ω_{e_c}; Λ⁻¹_cd = ^xK_c ^0Ω_x ^xK_dᵀ, x = cca.
// O(n + m²).
#include <vector>

#include <loopsim/model/joint_motion.hpp>
#include <loopsim/delassus/delassus_algorithms.hpp>
#include <loopsim/solvers/common/tree_recursion.hpp>

namespace loopsim::detail {

namespace {

// R x w with w <= 6 known at run time: fixed maximum size, no allocation.
template <int R>
using Block = Eigen::Matrix<double, R, Eigen::Dynamic, (R == 1 ? Eigen::RowMajor : Eigen::ColMajor), R, 6>;

class PvOsimr final : public DelassusAlgorithm {
 public:
  explicit PvOsimr(const ConstraintSet& set)
      : set_(set),
        no_added_inertia_(VectorX::Zero(set.model().nv)),
        tree_(set, no_added_inertia_, "delassus algorithm 'pv-osimr'") {
    const Model& model = set.model();
    const int nb = model.nbodies(), nc = set.size();
    nodes_ = nb + nc;
    // Constrained branches meeting at each link.
    std::vector<int> branches(nb, 0);
    std::vector<bool> constrained(nb, false);  // subtree holds a constraint
    for (int c = 0; c < nc; ++c) {
      ++branches[set[c].body1];
      constrained[set[c].body1] = true;
    }
    for (int i = nb - 1; i >= 1; --i) {
      if (!constrained[i]) continue;
      constrained[model.parent[i]] = true;
      ++branches[model.parent[i]];
    }
    is_node_.assign(nodes_, true);
    for (int i = 1; i < nb; ++i) is_node_[i] = branches[i] >= 2;
    // Nearest ancestor node of every node, and the node D(k) whose chain runs
    // through each constrained link k that is not a node itself.
    ancestor_.assign(nodes_, 0);
    chain_.assign(nb, -1);
    auto node_above = [&](int link) {  // nearest node at or above a real link
      while (!is_node_[link]) link = model.parent[link];
      return link;
    };
    for (int i = 1; i < nb; ++i) {
      if (is_node_[i]) ancestor_[i] = node_above(model.parent[i]);
    }
    for (int c = 0; c < nc; ++c) ancestor_[nb + c] = node_above(set[c].body1);
    for (int c = 0; c < nc; ++c) {
      for (int k = set[c].body1; !is_node_[k]; k = model.parent[k]) chain_[k] = nb + c;
    }
    for (int j = 1; j < nb; ++j) {
      if (!is_node_[j]) continue;
      chain_[j] = j;
      for (int k = model.parent[j]; !is_node_[k]; k = model.parent[k]) chain_[k] = j;
    }
    width_.assign(nodes_, 6);
    for (int c = 0; c < nc; ++c) width_[nb + c] = set[c].dimension();
    P_.assign(nodes_, Matrix6::Zero());
    Omega_.assign(nodes_, Matrix6::Zero());
    Omega0_.assign(nodes_, Matrix6::Zero());
    // CEMPs ^jK_c at every ancestor node j of e_c (real), and the cca of pairs.
    cemp_.assign(static_cast<std::size_t>(nb) * nc, Matrix6::Zero());
    cca_.assign(static_cast<std::size_t>(nc) * nc, 0);
    auto ancestor_or_self = [&](int a, int b) {
      return a <= b && b < (a == 0 ? nb : model.subtree_end[a]);
    };
    for (int c = 0; c < nc; ++c) {
      for (int d = 0; d < nc; ++d) {
        int x = ancestor_[nb + c];
        while (x != 0 && !ancestor_or_self(x, set[d].body1)) x = ancestor_[x];
        cca_[c * nc + d] = x;
      }
    }
  }

  std::string_view name() const override { return "pv-osimr"; }

  void compute(const Eigen::Ref<const VectorX>& q, Eigen::Ref<MatrixX> out) override {
    const Model& model = tree_.model();
    const Data& data = tree_.data;
    const int nb = model.nbodies(), nc = set_.size();
    tree_.forwardSweepPositions(q);  // lines 1-2 (and K¹ for lines 3-4)
    // Lines 3-4 and 7: chains start at the end-effectors and at the nodes.
    // Every P and Ω is worked on as a full 6 x 6 (the columns past a
    // constraint's width stay zero): fixed-size products beat dynamic-width
    // ones by far at these sizes.
    for (int c = 0; c < nc; ++c) {
      const int w = width_[nb + c];
      P_[nb + c].setZero();
      P_[nb + c].leftCols(w) = tree_.cdata.K1[c].topRows(w).transpose();
      Omega_[nb + c].setZero();
    }
    for (int j = 1; j < nb; ++j) {
      if (!is_node_[j]) continue;
      P_[j].setIdentity();
      Omega_[j].setZero();
    }
    // Backward sweep (lines 5-15): ABA inertias; chain propagation (eqs. 16-17).
    for (int k = nb - 1; k >= 1; --k) {
      tree_.eliminateJoint(k, false, false);
      const int D = chain_[k];
      if (D < 0) continue;
      detail::withJointNv(model.joint_nv[k], [&](auto nv_tag) {
        constexpr int NV = decltype(nv_tag)::value;
        const int iv = model.idx_v[k];
        const auto U = data.U.middleCols<NV>(iv);
        const auto Dinv = data.Dinv[k].topLeftCorner<NV, NV>();
        Matrix6& P = P_[D];
        Eigen::Matrix<double, NV, 6> SP;  // S_kᵀ P
        for (int col = 0; col < 6; ++col) SP.col(col) = subspaceTransposeTimes<NV>(model, k, P.col(col));
        const Eigen::Matrix<double, NV, 6> DinvSP = Dinv * SP;
        Omega_[D].noalias() += SP.transpose() * DinvSP;  // eq. 16
        P.noalias() -= U * DinvSP;                       // eq. 17
        // X* P: the columns are forces, moved to the parent's frame.
        const SE3& X = data.liMi[k];
        Eigen::Matrix<double, 3, 6> f;
        f.noalias() = X.R * P.bottomRows<3>();
        P.topRows<3>() = X.R * P.topRows<3>();
        for (int col = 0; col < 6; ++col) P.block<3, 1>(0, col) += X.t.cross(f.col(col));
        P.bottomRows<3>() = f;
      });
    }
    // Forward sweep over the nodes (lines 16-17, eq. 18); real nodes first
    // (parents before children), then the end-effectors.
    auto forward = [&](int j) {
      const int a = ancestor_[j];
      Omega0_[j] = Omega_[j];
      if (a != 0) {
        const Matrix6 OP = Omega0_[a] * P_[j];
        Omega0_[j].noalias() += P_[j].transpose() * OP;
      }
    };
    for (int j = 1; j < nb; ++j) {
      if (is_node_[j]) forward(j);
    }
    for (int c = 0; c < nc; ++c) forward(nb + c);
    // CEMPs at the ancestor nodes (lines 18-21, eq. 19), as m_c x 6 rows.
    for (int c = 0; c < nc; ++c) {
      const int w = width_[nb + c];
      int j = ancestor_[nb + c];
      if (j == 0) continue;
      cemp_[j * nc + c].topRows(w) = P_[nb + c].leftCols(w).transpose();
      for (int a = ancestor_[j]; a != 0; j = a, a = ancestor_[a]) {
        cemp_[a * nc + c].topRows(w).noalias() = cemp_[j * nc + c].topRows(w) * P_[j].transpose();
      }
    }
    // Assembly (lines 23-28).
    for (int c = 0; c < nc; ++c) {
      const int oc = set_.rowOffset(c), wc = width_[nb + c];
      out.block(oc, oc, wc, wc) = Omega0_[nb + c].topLeftCorner(wc, wc);
      for (int d = c + 1; d < nc; ++d) {
        const int od = set_.rowOffset(d), wd = width_[nb + d];
        const int x = cca_[c * nc + d];
        auto block = out.block(oc, od, wc, wd);
        if (x == 0) {
          block.setZero();
        } else {
          const Block<6> OK =
              Omega0_[x] * cemp_[x * nc + d].topRows(wd).transpose();
          block.noalias() = cemp_[x * nc + c].topRows(wc) * OK;
        }
        out.block(od, oc, wd, wc) = block.transpose();
      }
    }
  }

 private:
  const ConstraintSet& set_;
  VectorX no_added_inertia_;
  TreeRecursion tree_;
  int nodes_ = 0;
  std::vector<bool> is_node_;   // per node: real links < nbodies, then e_c
  std::vector<int> ancestor_;   // A(j)
  std::vector<int> chain_;      // per real link: the node whose chain runs through it (-1: none)
  std::vector<int> width_;      // 6, or m_c at e_c
  AlignedVector<Matrix6> P_;      // ^{A(j)}P_j once the chain reaches A(j) (6 x width)
  AlignedVector<Matrix6> Omega_;  // ^{A(j)}Ω_j (width x width)
  AlignedVector<Matrix6> Omega0_; // ^0Ω_j
  AlignedVector<Matrix6> cemp_;   // [j * nc + c]: ^jK_c (m_c x 6)
  std::vector<int> cca_;        // [c * nc + d]: closest common ancestor node (real, or 0)
};

}  // namespace

std::unique_ptr<DelassusAlgorithm> makePvOsimr(const ConstraintSet& set) { return std::make_unique<PvOsimr>(set); }

}  // namespace loopsim::detail
