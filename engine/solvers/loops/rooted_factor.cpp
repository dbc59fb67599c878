#include <loopsim/solvers/loops/rooted_factor.hpp>

#include <loopsim/linalg/small_cholesky.hpp>

namespace loopsim {

bool factorRooted(const LinkMultipliers& link, Eigen::Ref<MatrixX> F) {
  // A full pattern: the dense factor's row loops beat the 6 x 6 block updates
  // (docs/performance.md).
  if (link.dense) return choleskyInPlace(F.topLeftCorner(link.rooted_rows, link.rooted_rows)) > 0.0;
  const auto& blocks = link.rooted;
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    // Eliminating λ_k (eq. 51 for one multiplier): G_kk = chol(L_kk), then
    // G_ik = L_ik G_kk⁻ᵀ and L_ij -= G_ik G_jkᵀ over the blocks it couples.
    const MultiplierBlock& bk = blocks[k];
    auto G_kk = F.block(bk.row, bk.row, bk.dim, bk.dim);
    if (!(choleskyInPlace(G_kk) > 0.0)) return false;
    for (int i : link.below[k]) {
      const MultiplierBlock& bi = blocks[i];
      auto G_ik = F.block(bi.row, bk.row, bi.dim, bk.dim);
      for (int c = 0; c < bk.dim; ++c) {  // G_ik G_kkᵀ = L_ik, column by column
        for (int t = 0; t < c; ++t) G_ik.col(c) -= G_kk(c, t) * G_ik.col(t);
        G_ik.col(c) /= G_kk(c, c);
      }
    }
    for (int i : link.below[k]) {
      const MultiplierBlock& bi = blocks[i];
      const auto G_ik = F.block(bi.row, bk.row, bi.dim, bk.dim);
      for (int j : link.below[k]) {
        if (j > i) break;  // the lower blocks only (below[k] is ascending)
        const MultiplierBlock& bj = blocks[j];
        F.block(bi.row, bj.row, bi.dim, bj.dim).noalias() -= G_ik * F.block(bj.row, bk.row, bj.dim, bk.dim).transpose();
      }
    }
  }
  return true;
}

namespace {

// X ← L_RR⁻¹ X for a vector or a few columns at once: one pass over the
// factor's blocks (they are scattered over the r x r storage at a hub).
template <class Columns>
void solveBlocks(const LinkMultipliers& link, const Eigen::Ref<const MatrixX>& F, Columns& X) {
  if (link.dense) {
    const auto G = F.topLeftCorner(link.rooted_rows, link.rooted_rows);
    for (Eigen::Index c = 0; c < X.cols(); ++c) choleskySolveInPlace(G, X.col(c));
    return;
  }
  const auto& blocks = link.rooted;
  const int n = static_cast<int>(blocks.size());
  for (int k = 0; k < n; ++k) {  // G Y = X
    const MultiplierBlock& bk = blocks[k];
    const auto G_kk = F.block(bk.row, bk.row, bk.dim, bk.dim);
    auto X_k = X.middleRows(bk.row, bk.dim);
    for (int r = 0; r < bk.dim; ++r) {
      for (int t = 0; t < r; ++t) X_k.row(r) -= G_kk(r, t) * X_k.row(t);
      X_k.row(r) /= G_kk(r, r);
    }
    for (int i : link.below[k]) {
      const MultiplierBlock& bi = blocks[i];
      X.middleRows(bi.row, bi.dim).noalias() -= F.block(bi.row, bk.row, bi.dim, bk.dim) * X_k;
    }
  }
  for (int k = n - 1; k >= 0; --k) {  // Gᵀ X = Y
    const MultiplierBlock& bk = blocks[k];
    const auto G_kk = F.block(bk.row, bk.row, bk.dim, bk.dim);
    auto X_k = X.middleRows(bk.row, bk.dim);
    for (int i : link.below[k]) {
      const MultiplierBlock& bi = blocks[i];
      X_k.noalias() -= F.block(bi.row, bk.row, bi.dim, bk.dim).transpose() * X.middleRows(bi.row, bi.dim);
    }
    for (int r = bk.dim - 1; r >= 0; --r) {
      X_k.row(r) /= G_kk(r, r);
      for (int t = 0; t < r; ++t) X_k.row(t) -= G_kk(r, t) * X_k.row(r);
    }
  }
}

}  // namespace

void solveRooted(const LinkMultipliers& link, const Eigen::Ref<const MatrixX>& F, Eigen::Ref<VectorX> x) {
  solveBlocks(link, F, x);
}

void solveRootedColumns(const LinkMultipliers& link, const Eigen::Ref<const MatrixX>& F, Eigen::Ref<MatrixX> X) {
  solveBlocks(link, F, X);
}

}  // namespace loopsim
