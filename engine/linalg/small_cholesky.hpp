#pragma once
// Dense Cholesky A = G Gᵀ for the small symmetric positive (semi-)definite
// systems the solvers factor at every solve: Delassus matrices and joint or
// cluster blocks of a few dozen rows at most. Eigen's LLT is blocked for
// large matrices; at these sizes its bookkeeping (gemv calls, triangular
// kernels) costs more than the m³/6 products. In place on any column-major
// block, row by row (each entry a dot product over the row prefixes of G),
// and from 48 rows on (prox-bbo's factor at a hub where many loops meet),
// where the strided row prefixes miss the cache, column by column.
// SmallCholesky keeps its own row-major factor: the same row form below six
// rows, and a right-looking (Schur) form from six on, fully unrolled at the
// sizes of one to four welds or three or four point contacts (6, 9, 12, 18,
// 24 rows). No allocation.
#include <algorithm>
#include <cmath>
#include <limits>

#include <loopsim/spatial/types.hpp>

namespace loopsim {

/// In-place Cholesky of the lower triangle of A (A = G Gᵀ, G lower; the upper
/// triangle is neither read nor written). Returns the smallest pivot (before
/// its square root) over the largest diagonal entry of A, or 0 when a pivot
/// is not positive: the exact solvers treat a ratio <= kCholeskyCollapseRatio
/// as a collapsed (rank-deficient) matrix.
double choleskyInPlace(Eigen::Ref<MatrixX> A);
/// x ← (G Gᵀ)⁻¹ x with G from choleskyInPlace.
void choleskySolveInPlace(const Eigen::Ref<const MatrixX>& G, Eigen::Ref<VectorX> x);

inline constexpr double kCholeskyCollapseRatio = 1e-12;

/// A Cholesky factor with its own row-major storage, sized once.
class SmallCholesky {
 public:
  explicit SmallCholesky(int n = 0)
      : factor_(RowMajorMatrix::Zero(n, n)),
        inverse_diagonal_(VectorX::Zero(n)),
        schur_(n >= kSchurFrom ? MatrixX::Zero((n + kLanes - 1) / kLanes * kLanes, n) : MatrixX()) {}

  /// Factors A + shift·I for a symmetric A (both triangles stored: its upper
  /// triangle is read, by contiguous columns); returns choleskyInPlace's ratio
  /// (the smallest pivot over the largest diagonal entry; 0 if one is not positive).
  double factorize(const Eigen::Ref<const MatrixX>& A, double shift = 0.0);
  /// x ← (A + shift·I)⁻¹ x with the last factorisation: solveLower then solveUpper.
  void solveInPlace(Eigen::Ref<VectorX> x) const;
  /// x ← G⁻¹ x (forward substitution).
  void solveLower(Eigen::Ref<VectorX> x) const;
  /// x ← G⁻ᵀ x (back substitution).
  void solveUpper(Eigen::Ref<VectorX> x) const;
  /// X ← X G⁻ᵀ for X with size() columns: the forward substitution of every row
  /// of X at once, as axpys over X's contiguous columns.
  void solveLowerTransposedRows(Eigen::Ref<MatrixX> X) const;

  int size() const { return static_cast<int>(factor_.rows()); }

  static constexpr int kLanes = 8;  // the Schur form's chunk of rows (one AVX-512 register)

 private:
  using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  // From this size on (a weld and more) the Schur form; below it the row
  // form, the faster of the two there (timings: docs/performance.md).
  static constexpr int kSchurFrom = 6;
  double factorizeByRows(const Eigen::Ref<const MatrixX>& A, double shift);
  double factorizeBySchurColumns(const Eigen::Ref<const MatrixX>& A, double shift);
  RowMajorMatrix factor_;     // G in the lower triangle
  VectorX inverse_diagonal_;  // 1 / G_jj
  // The Schur form's workspace: A's Schur complements by columns, the rows
  // padded to whole chunks (the padding rows stay zero and feed only themselves).
  MatrixX schur_;
};

namespace detail {

template <class Factor>
double choleskyRows(Factor& A) {
  const int n = static_cast<int>(A.rows());
  if (n == 0) return 1.0;
  const double scale = A.diagonal().maxCoeff();
  double min_pivot = std::numeric_limits<double>::infinity();
  for (int j = 0; j < n; ++j) {
    const auto row_j = A.row(j).head(j);
    const double d = A(j, j) - row_j.squaredNorm();
    if (!(d > 0.0)) return 0.0;
    const double g = std::sqrt(d);
    A(j, j) = g;
    min_pivot = std::min(min_pivot, d);
    for (int i = j + 1; i < n; ++i) A(i, j) = (A(i, j) - A.row(i).head(j).dot(row_j)) / g;
  }
  return scale > 0.0 ? min_pivot / scale : 0.0;
}

template <class Factor, class Vector>
void choleskySolveRows(const Factor& G, Vector& x) {
  const int n = static_cast<int>(G.rows());
  for (int i = 0; i < n; ++i) x[i] = (x[i] - G.row(i).head(i).dot(x.head(i))) / G(i, i);  // G y = x
  for (int i = n - 1; i >= 0; --i) {                                                       // Gᵀ x = y
    x[i] /= G(i, i);
    x.head(i) -= x[i] * G.row(i).head(i).transpose();
  }
}

}  // namespace detail

}  // namespace loopsim
