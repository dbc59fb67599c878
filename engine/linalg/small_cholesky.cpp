#include <loopsim/linalg/small_cholesky.hpp>

namespace loopsim {

namespace {

// From this size on, a column-major block's row prefixes (strided by the
// block's height) miss the cache at every entry: prox-bbo's L_RR at a hub
// where 40 branches meet has ~250 rows, and the row form took 45% of its
// solve there. The same factorisation ordered by columns reads contiguous
// columns (one matrix-vector product per column). Below it the row form
// stays, so the small blocks every solver factors keep their exact results.
constexpr int kColumnOrderFrom = 48;

double choleskyColumns(Eigen::Ref<MatrixX> A) {
  const int n = static_cast<int>(A.rows());
  const double scale = A.diagonal().maxCoeff();
  double min_pivot = std::numeric_limits<double>::infinity();
  for (int j = 0; j < n; ++j) {
    const double d = A(j, j) - A.row(j).head(j).squaredNorm();
    if (!(d > 0.0)) return 0.0;
    const double g = std::sqrt(d);
    A(j, j) = g;
    min_pivot = std::min(min_pivot, d);
    const int below = n - j - 1;
    if (below == 0) continue;
    auto column = A.col(j).tail(below);
    column.noalias() -= A.block(j + 1, 0, below, j) * A.row(j).head(j).transpose();
    column /= g;
  }
  return scale > 0.0 ? min_pivot / scale : 0.0;
}

// G y = x by columns, then Gᵀ x = y by contiguous column dots.
void choleskySolveColumns(const Eigen::Ref<const MatrixX>& G, Eigen::Ref<VectorX> x) {
  const int n = static_cast<int>(G.rows());
  for (int i = 0; i < n; ++i) {
    x[i] /= G(i, i);
    x.tail(n - i - 1) -= x[i] * G.col(i).tail(n - i - 1);
  }
  for (int i = n - 1; i >= 0; --i) x[i] = (x[i] - G.col(i).tail(n - i - 1).dot(x.tail(n - i - 1))) / G(i, i);
}

}  // namespace

double choleskyInPlace(Eigen::Ref<MatrixX> A) {
  if (A.rows() == 0) return 1.0;
  return A.rows() >= kColumnOrderFrom ? choleskyColumns(A) : detail::choleskyRows(A);
}

void choleskySolveInPlace(const Eigen::Ref<const MatrixX>& G, Eigen::Ref<VectorX> x) {
  if (G.rows() >= kColumnOrderFrom) {
    choleskySolveColumns(G, x);
  } else {
    detail::choleskySolveRows(G, x);
  }
}

double SmallCholesky::factorize(const Eigen::Ref<const MatrixX>& A, double shift) {
  factor_.triangularView<Eigen::Lower>() = A;
  factor_.diagonal().array() += shift;
  return detail::choleskyRows(factor_);
}

void SmallCholesky::solveInPlace(Eigen::Ref<VectorX> x) const { detail::choleskySolveRows(factor_, x); }

}  // namespace loopsim
