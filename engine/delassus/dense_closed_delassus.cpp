// `dense-closed`: the reference for the Delassus matrix with the internal
// loops closed (delassus.hpp). From dense's Λ⁻¹ = J M⁻¹ Jᵀ over every row,
// the loop rows L (internal loops, couplings) are eliminated by the Schur
// complement, Λ⁻¹_WW - Λ⁻¹_WL (Λ⁻¹_LL)⁻¹ Λ⁻¹_LW on the world rows W, which
// equals J_W G (Gᵀ M G)⁻¹ Gᵀ J_Wᵀ for any basis G of K's null space (K = J_L
// of full row rank); the loop rows and columns are 0. No cluster or
// independent joint enters, so it checks cluster-efpa independently.
#include <Eigen/Cholesky>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/delassus/delassus_algorithms.hpp>
#include <loopsim/solvers/loops/cluster_structure.hpp>

namespace loopsim::detail {

namespace {

// Λ⁻¹_LL's size: the rows of the loop (non-world) constraints.
int loopRowCount(const ConstraintSet& set) {
  int rows = 0;
  for (int c = 0; c < set.size(); ++c) {
    if (!isWorldConstraint(set[c])) rows += set[c].dimension();
  }
  return rows;
}

class DenseClosedDelassus final : public DelassusAlgorithm {
 public:
  // llt_ is sized in place: Eigen's LLT(size) leaves its info field unset, so
  // move-assigning a fresh one reads an indeterminate enum (UBSan reports it).
  explicit DenseClosedDelassus(const ConstraintSet& set)
      : dense_(makeDenseDelassus(set)), llt_(loopRowCount(set)) {
    for (int c = 0; c < set.size(); ++c) {
      std::vector<int>& rows = isWorldConstraint(set[c]) ? world_rows_ : loop_rows_;
      for (int r = 0; r < set[c].dimension(); ++r) rows.push_back(set.rowOffset(c) + r);
    }
    const int m = set.dimension(), nw = static_cast<int>(world_rows_.size()), nl = static_cast<int>(loop_rows_.size());
    full_ = MatrixX::Zero(m, m);
    loop_block_ = MatrixX::Zero(nl, nl);
    loop_world_ = MatrixX::Zero(nl, nw);
    solved_ = MatrixX::Zero(nl, nw);
    world_block_ = MatrixX::Zero(nw, nw);
  }

  std::string_view name() const override { return "dense-closed"; }

  void compute(const Eigen::Ref<const VectorX>& q, Eigen::Ref<MatrixX> out) override {
    dense_->compute(q, full_);
    const int nw = static_cast<int>(world_rows_.size()), nl = static_cast<int>(loop_rows_.size());
    for (int a = 0; a < nw; ++a) {
      for (int b = 0; b < nw; ++b) world_block_(a, b) = full_(world_rows_[a], world_rows_[b]);
    }
    // No world rows (a mechanism of loops only): nothing to eliminate, and
    // Eigen's triangular solve of an empty right-hand side binds a reference
    // to its null data (UBSan reports it).
    if (nl > 0 && nw > 0) {
      for (int a = 0; a < nl; ++a) {
        for (int b = 0; b < nl; ++b) loop_block_(a, b) = full_(loop_rows_[a], loop_rows_[b]);
        for (int b = 0; b < nw; ++b) loop_world_(a, b) = full_(loop_rows_[a], world_rows_[b]);
      }
      llt_.compute(loop_block_);
      solved_ = loop_world_;
      llt_.solveInPlace(solved_);  // (Λ⁻¹_LL)⁻¹ Λ⁻¹_LW
      world_block_.noalias() -= loop_world_.transpose() * solved_;
    }
    out.setZero();
    for (int a = 0; a < nw; ++a) {
      for (int b = 0; b < nw; ++b) out(world_rows_[a], world_rows_[b]) = world_block_(a, b);
    }
  }

 private:
  std::unique_ptr<DelassusAlgorithm> dense_;
  std::vector<int> world_rows_, loop_rows_;
  MatrixX full_, loop_block_, loop_world_, solved_, world_block_;
  Eigen::LLT<MatrixX> llt_;
};

}  // namespace

std::unique_ptr<DelassusAlgorithm> makeDenseClosedDelassus(const ConstraintSet& set) {
  return std::make_unique<DenseClosedDelassus>(set);
}

}  // namespace loopsim::detail
