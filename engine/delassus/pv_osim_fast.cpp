#include <loopsim/delassus/pv_osim_fast.hpp>

#include <cmath>
#include <string>

#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

// X ← (G Gᵀ)⁻¹ X for a block's lower Cholesky factor G, every column at once:
// one triangular solve each way rather than one per column.
template <class Factor, class Columns>
void solveWithFactor(const Factor& G, Columns&& X) {
  G.template triangularView<Eigen::Lower>().solveInPlace(X);
  G.template triangularView<Eigen::Lower>().transpose().solveInPlace(X);
}

}  // namespace

PvOsimFast::PvOsimFast(const ConstraintSet& set, double damping)
    : set_(set),
      no_added_inertia_(VectorX::Zero(set.model().nv)),
      tree_(set, no_added_inertia_, "delassus algorithm 'pv-osim-fast'"),
      factor_(MatrixX::Zero(set.dimension(), set.dimension())),
      LK_(Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(set.dimension(), 6)),
      work_(VectorX::Zero(set.dimension())),
      inverse_(MatrixX::Zero(set.dimension(), set.dimension())),
      schur_LKt_(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, set.dimension())) {
  const Model& model = set.model();
  if (!model.isFloatingBase() || model.children[0].size() != 1) {
    throw ModelError(model.source_file, "delassus algorithm 'pv-osim-fast'",
                     "needs a floating base carrying the whole tree (paper 000 §VII-B); use pv-osim");
  }
  if (!(damping >= 0.0) || !std::isfinite(damping)) {
    throw ModelError(model.source_file, "delassus algorithm 'pv-osim-fast'",
                     "damping must be positive and finite (or 0: undamped), got " + std::to_string(damping));
  }
  inverse_damping_ = damping > 0.0 ? 1.0 / damping : 0.0;
  const int own_rows = tree_.ownRowsEnd(base_) - tree_.rowsBegin(base_);
  if (own_rows > 0) {
    if (inverse_damping_ == 0.0) {
      throw ModelError(model.source_file, "delassus algorithm 'pv-osim-fast'",
                       "a constraint on the base link '" + model.body_names[base_] +
                           "' makes L_b^A singular (paper 000 §VII-B's limitation); use pv-osim, or damp it");
    }
    blocks_.push_back({tree_.rowsBegin(base_), own_rows, base_});
  }
  for (int child : model.children[base_]) {
    const int b = tree_.rowsBegin(child), n = tree_.rowsEnd(child) - b;
    if (n > 0) blocks_.push_back({b, n, child});
  }
}

void PvOsimFast::factor(const Eigen::Ref<const VectorX>& q) {
  const Model& model = set_.model();
  tree_.forwardSweepPositions(q);
  tree_.clearL();
  for (int i = model.nbodies() - 1; i > base_; --i) tree_.eliminateJoint(i, true, false);
  // Λ_b = (L_b^A + μ⁻¹I)⁻¹ block by block (block diagonal), and L_K = Λ_b K_b^A.
  LK_ = tree_.K;
  for (const auto& [b, n, body] : blocks_) {
    auto G = factor_.block(b, b, n, n);
    G = tree_.L.block(b, b, n, n);
    G.diagonal().array() += inverse_damping_;
    if (!(choleskyInPlace(G) > kPivotRatio)) {
      throw ModelError(model.source_file, "delassus algorithm 'pv-osim-fast'",
                       "L_b^A is singular on the branch of '" + model.body_names[body] +
                           "' (more constraint rows than it can move, or a singular pose); use pv-osim, or damp it");
    }
    solveWithFactor(G, LK_.middleRows(b, n));
  }
  // D_b + K_b^Aᵀ L_K, with D_b = H_b^A (+ armature) since S_b = I.
  Matrix6 schur = tree_.data.Ia[base_];
  schur.diagonal() += model.armature.segment<6>(model.idx_v[base_]);
  schur.noalias() += tree_.K.transpose() * LK_;
  schur_.compute(schur);
}

void PvOsimFast::solveInPlace(Eigen::Ref<VectorX> x) {
  const int m = tree_.dimension();
  for (int r = 0; r < m; ++r) work_[r] = x[tree_.toGlobal(r)];
  // Eq. 55: Λ_b y - L_K (D_b + K_bᵀ L_K)⁻¹ L_Kᵀ y.
  const Vector6 z = schur_.solve(LK_.transpose() * work_);
  for (const Block& block : blocks_) {
    const int b = block.first_row, n = block.rows;
    choleskySolveInPlace(factor_.block(b, b, n, n), work_.segment(b, n));
  }
  work_.noalias() -= LK_ * z;
  for (int r = 0; r < m; ++r) x[tree_.toGlobal(r)] = work_[r];
}

void PvOsimFast::inverse(Eigen::Ref<MatrixX> out) {
  const int m = tree_.dimension();
  // Eq. 55 as matrices: Λ_b (block diagonal, each branch's block inverted from
  // its Cholesky factor) minus L_K (D_b + K_bᵀ L_K)⁻¹ L_Kᵀ, a rank-6 update.
  inverse_.setZero();
  for (const Block& block : blocks_) {
    const int b = block.first_row, n = block.rows;
    auto inv = inverse_.block(b, b, n, n);
    inv.setIdentity();
    solveWithFactor(factor_.block(b, b, n, n), inv);
  }
  schur_LKt_ = LK_.transpose();
  schur_.solveInPlace(schur_LKt_);
  inverse_.noalias() -= LK_ * schur_LKt_;
  for (int r = 0; r < m; ++r) {
    for (int s = 0; s < m; ++s) out(tree_.toGlobal(r), tree_.toGlobal(s)) = inverse_(r, s);
  }
}

}  // namespace loopsim
