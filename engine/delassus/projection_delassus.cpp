// `projection`: the projection method's Delassus matrix with the internal
// loops closed (paper 004 §II-E; its Table IV's "Projected EFPA"),
//     Λ⁻¹_WW = J_W G (Gᵀ H G)⁻¹ Gᵀ J_Wᵀ,
// with H = M + diag(armature) by CRBA and G of the internal loops' and
// couplings' clusters on the declared independent joints (cluster_spanning.hpp,
// ClusterScope::InternalLoops: the clusters of cluster-efpa). Gᵀ H G = L Lᵀ
// densely; with Y = J_W G L⁻ᵀ the matrix is Y Yᵀ: O(n_y³ + m n_y²). The rows
// of the internal loops and couplings are 0 (delassus.hpp). No allocation in compute.
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/delassus/delassus_algorithms.hpp>
#include <loopsim/solvers/loops/projected_inertia.hpp>

namespace loopsim::detail {

namespace {

class ProjectionDelassus final : public DelassusAlgorithm {
 public:
  ProjectionDelassus(const ConstraintSet& set, const std::vector<int>& independent_dofs)
      : set_(set),
        structure_(set, independent_dofs, "delassus algorithm 'projection'", ClusterScope::InternalLoops),
        spanning_(structure_),
        data_(set.model()),
        cdata_(set),
        zero_(VectorX::Zero(set.model().nv)),
        projected_(set.model().nv, structure_.independentDofs()) {
    for (int c = 0; c < set.size(); ++c) {
      if (!isWorldConstraint(set[c])) continue;
      for (int r = 0; r < set[c].dimension(); ++r) world_rows_.push_back(set.rowOffset(c) + r);
    }
    Y_ = MatrixX::Zero(static_cast<int>(world_rows_.size()), structure_.independentDofs());
    world_block_ = MatrixX::Zero(Y_.rows(), Y_.rows());
  }

  std::string_view name() const override { return "projection"; }

  void compute(const Eigen::Ref<const VectorX>& q, Eigen::Ref<MatrixX> out) override {
    const Model& m = set_.model();
    placeBodiesInWorld(m, data_, q);
    const MatrixX& H = crbaAtWorldInertias(m, data_);  // armature on the diagonal
    if (set_.dimension() > 0) {
      evaluateConstraints(set_, data_, q, zero_, cdata_, kConstraintErrors | kConstraintJacobian);
      spanning_.update(cdata_);
    }
    projected_.factor(H, spanning_, m.source_file, "delassus algorithm 'projection'");
    for (std::size_t w = 0; w < world_rows_.size(); ++w) {
      Y_.row(static_cast<Eigen::Index>(w)).noalias() = cdata_.J.row(world_rows_[w]) * projected_.G();
    }
    projected_.cholesky().solveLowerTransposedRows(Y_);  // Y = J_W G L⁻ᵀ
    world_block_.noalias() = Y_ * Y_.transpose();
    out.setZero();
    for (std::size_t a = 0; a < world_rows_.size(); ++a) {
      for (std::size_t b = 0; b < world_rows_.size(); ++b) {
        out(world_rows_[a], world_rows_[b]) = world_block_(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b));
      }
    }
  }

 private:
  const ConstraintSet& set_;
  ClusterStructure structure_;
  ClusterSpanning spanning_;
  Data data_;
  ConstraintData cdata_;
  VectorX zero_;
  std::vector<int> world_rows_;  // global rows of the world constraints
  ProjectedInertia projected_;  // G, H G and the factor of Gᵀ H G
  MatrixX Y_, world_block_;
};

}  // namespace

std::unique_ptr<DelassusAlgorithm> makeProjectionDelassus(const ConstraintSet& set,
                                                          const std::vector<int>& independent_dofs) {
  return std::make_unique<ProjectionDelassus>(set, independent_dofs);
}

}  // namespace loopsim::detail
