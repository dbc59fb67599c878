#include <loopsim/solvers/loops/rooted_factor.hpp>

#include <loopsim/linalg/small_cholesky.hpp>

namespace loopsim {

namespace {

// x ← G⁻¹ x and x ← G⁻ᵀ x for a lower-triangular diagonal block G.
template <class Block, class Vector>
void lowerSolve(const Block& G, Vector&& x) {
  for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = (x[i] - G.row(i).head(i).dot(x.head(i))) / G(i, i);
}

template <class Block, class Vector>
void lowerTransposeSolve(const Block& G, Vector&& x) {
  for (Eigen::Index i = x.size() - 1; i >= 0; --i) {
    x[i] /= G(i, i);
    x.head(i) -= x[i] * G.row(i).head(i).transpose();
  }
}

}  // namespace

bool factorRooted(const LinkMultipliers& link, Eigen::Ref<MatrixX> F) {
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

void solveRooted(const LinkMultipliers& link, const Eigen::Ref<const MatrixX>& F, Eigen::Ref<VectorX> x) {
  const auto& blocks = link.rooted;
  const int n = static_cast<int>(blocks.size());
  for (int k = 0; k < n; ++k) {  // G y = x
    const MultiplierBlock& bk = blocks[k];
    auto x_k = x.segment(bk.row, bk.dim);
    lowerSolve(F.block(bk.row, bk.row, bk.dim, bk.dim), x_k);
    for (int i : link.below[k]) {
      const MultiplierBlock& bi = blocks[i];
      x.segment(bi.row, bi.dim).noalias() -= F.block(bi.row, bk.row, bi.dim, bk.dim) * x_k;
    }
  }
  for (int k = n - 1; k >= 0; --k) {  // Gᵀ x = y
    const MultiplierBlock& bk = blocks[k];
    auto x_k = x.segment(bk.row, bk.dim);
    for (int i : link.below[k]) {
      const MultiplierBlock& bi = blocks[i];
      x_k.noalias() -= F.block(bi.row, bk.row, bi.dim, bk.dim).transpose() * x.segment(bi.row, bi.dim);
    }
    lowerTransposeSolve(F.block(bk.row, bk.row, bk.dim, bk.dim), x_k);
  }
}

void solveRootedColumns(const LinkMultipliers& link, const Eigen::Ref<const MatrixX>& F, Eigen::Ref<MatrixX> X) {
  for (Eigen::Index c = 0; c < X.cols(); ++c) solveRooted(link, F, X.col(c));
}

}  // namespace loopsim
