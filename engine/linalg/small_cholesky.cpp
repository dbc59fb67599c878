#include <loopsim/linalg/small_cholesky.hpp>

#include <type_traits>

namespace loopsim {

namespace {

// From this size on, a column-major block's row prefixes (strided by the
// block's height) miss the cache at every entry: prox-bbo's L_RR at a hub
// where 40 branches meet has ~250 rows (docs/performance.md). The same
// factorisation ordered by columns reads contiguous
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

// The Delassus sizes of the robots' constraint sets (one to four welds,
// three or four point feet) get the Schur form and the substitutions at a
// compile-time size, every loop unrolled: with runtime bounds these kernels
// were mostly their loop counters and branches (docs/performance.md).
// Same operations in the same order: the factor is bitwise the loops'; the
// substitutions differ at round-off (GCC groups the products of a row's sum
// into vectors differently, fused or not). Other sizes keep the loops of the
// member functions: one template for both (plain loops at a runtime size)
// was slower at those other sizes, so the two forms stay.
// Calls f(std::integral_constant<int, n>) and returns true for those sizes.
template <class F>
bool withCommonSize(int n, F&& f) {
  switch (n) {
    case 6: f(std::integral_constant<int, 6>{}); return true;
    case 9: f(std::integral_constant<int, 9>{}); return true;
    case 12: f(std::integral_constant<int, 12>{}); return true;
    case 18: f(std::integral_constant<int, 18>{}); return true;
    case 24: f(std::integral_constant<int, 24>{}); return true;
    default: return false;
  }
}

// f(i) for i in [begin, end), completely unrolled: the bounds are constants
// once inlined into a kernel of compile-time size.
template <class F>
[[gnu::always_inline]] inline void unrolled(int begin, int end, F&& f) {
#pragma GCC unroll 32
  for (int i = begin; i < end; ++i) f(i);
}

// SmallCholesky::factorizeBySchurColumns on N rows: S is the padded
// column-major workspace, G the row-major factor, inverse its 1 / G_jj.
template <int N>
double unrolledSchurColumns(const Eigen::Ref<const MatrixX>& A, double shift, double* const S, double* const G,
                            double* const inverse) {
  constexpr int kLanes = SmallCholesky::kLanes;
  constexpr int n = N, ld = (N + kLanes - 1) / kLanes * kLanes;
  constexpr int whole_chunks = n / kLanes, chunks = (n + kLanes - 1) / kLanes;
  typedef double Chunk __attribute__((vector_size(kLanes * sizeof(double))));
  double scale = 0.0;
  unrolled(0, n, [&](int j) {
    const double* const a = A.col(j).data();
    double* const s = S + j * ld;
    unrolled(0, whole_chunks, [&](int c) { __builtin_memcpy(s + c * kLanes, a + c * kLanes, sizeof(Chunk)); });
    unrolled(whole_chunks * kLanes, n, [&](int r) { s[r] = a[r]; });
    s[j] += shift;
    scale = std::max(scale, s[j]);
  });
  // No early exit at a pivot that is not positive (a branch inside the
  // unrolled sweep): the sweep ends on meaningless values, and the ratio is 0
  // as the loops' early return gives.
  bool positive = true;
  double min_pivot = std::numeric_limits<double>::infinity();
  unrolled(0, n, [&](int j) {
    const double* const column_j = S + j * ld;
    const double d = column_j[j];
    positive = positive && d > 0.0;
    const double inverse_d = 1.0 / d;
    min_pivot = std::min(min_pivot, d);
    unrolled(j + 1, n, [&](int k) {
      const double b = column_j[k] * inverse_d;
      double* const column_k = S + k * ld;
      unrolled(k / kLanes, chunks, [&](int c) {
        Chunk x, y;
        __builtin_memcpy(&x, column_k + c * kLanes, sizeof(Chunk));
        __builtin_memcpy(&y, column_j + c * kLanes, sizeof(Chunk));
        x -= b * y;
        __builtin_memcpy(column_k + c * kLanes, &x, sizeof(Chunk));
      });
    });
    const double g = std::sqrt(d);
    const double inverse_g = 1.0 / g;
    G[j * n + j] = g;
    inverse[j] = inverse_g;
    unrolled(j + 1, n, [&](int k) { G[k * n + j] = column_j[k] * inverse_g; });
  });
  if (!positive) return 0.0;
  return scale > 0.0 ? min_pivot / scale : 0.0;
}

// SmallCholesky::solveLower on N rows.
template <int N>
void unrolledForwardSubstitution(const double* const G, const double* const inverse, double* const x) {
  constexpr int n = N;
  unrolled(0, n, [&](int i) {
    const double* const row_i = G + i * n;
    double sum = x[i];
    unrolled(0, i, [&](int k) { sum -= row_i[k] * x[k]; });
    x[i] = sum * inverse[i];
  });
}

// SmallCholesky::solveUpper on N rows.
template <int N>
void unrolledBackSubstitution(const double* const G, const double* const inverse, double* const x) {
  constexpr int n = N;
  unrolled(0, n, [&](int step) {
    const int i = n - 1 - step;
    const double* const row_i = G + i * n;
    const double xi = x[i] * inverse[i];
    x[i] = xi;
    unrolled(0, i, [&](int k) { x[k] -= xi * row_i[k]; });
  });
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
  if (size() == 0) return 1.0;
  return size() >= kSchurFrom ? factorizeBySchurColumns(A, shift) : factorizeByRows(A, shift);
}

double SmallCholesky::factorizeByRows(const Eigen::Ref<const MatrixX>& A, double shift) {
  // choleskyRows on raw rows, with two changes for the small systems (a
  // point contact's three rows, a coupling's one): the entries below a pivot
  // are computed four rows at a time (four independent dot products, where one
  // waits on its own add latency), and the pivots are inverted once, so the
  // factorisation and both substitutions multiply instead of dividing.
  const int n = size();
  double* const G = factor_.data();  // row-major: row i at G + i·n
  // Row i of the lower triangle is column i of the upper one: contiguous in
  // the column-major A (reading the lower triangle by rows was a strided
  // gather).
  for (int i = 0; i < n; ++i) {
    const double* const column = A.col(i).data();
    std::copy(column, column + i + 1, G + i * n);
    G[i * n + i] += shift;
  }
  const double scale = factor_.diagonal().maxCoeff();
  double min_pivot = std::numeric_limits<double>::infinity();
  double* const inverse = inverse_diagonal_.data();
  for (int j = 0; j < n; ++j) {
    const double* const row_j = G + j * n;
    double d = row_j[j];
    for (int k = 0; k < j; ++k) d -= row_j[k] * row_j[k];
    if (!(d > 0.0)) return 0.0;
    const double g = std::sqrt(d);
    const double inverse_g = 1.0 / g;
    G[j * n + j] = g;
    inverse[j] = inverse_g;
    min_pivot = std::min(min_pivot, d);
    int i = j + 1;
    for (; i + 4 <= n; i += 4) {
      double *r0 = G + i * n, *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
      double s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
      for (int k = 0; k < j; ++k) {
        const double x = row_j[k];
        s0 -= r0[k] * x;
        s1 -= r1[k] * x;
        s2 -= r2[k] * x;
        s3 -= r3[k] * x;
      }
      r0[j] = s0 * inverse_g;
      r1[j] = s1 * inverse_g;
      r2[j] = s2 * inverse_g;
      r3[j] = s3 * inverse_g;
    }
    for (; i < n; ++i) {
      double* const row_i = G + i * n;
      double sum = row_i[j];
      for (int k = 0; k < j; ++k) sum -= row_i[k] * row_j[k];
      row_i[j] = sum * inverse_g;
    }
  }
  return scale > 0.0 ? min_pivot / scale : 0.0;
}

double SmallCholesky::factorizeBySchurColumns(const Eigen::Ref<const MatrixX>& A, double shift) {
  // For Delassus matrices of 6-24 rows (welds, several contacts) the time
  // is the chain from one pivot to the next, not the
  // m³/6 products: as dot products over G's rows (the row form) each entry
  // below a pivot waited on a chain of j dependent adds, and each pivot on a
  // square root and a division. So the Schur complements are updated right
  // after each pivot (S_k -= (S_kj / d_j) S_j, outer products by columns of
  // whole chunks, independent of one another), and the pivot's square root
  // is taken off that chain: only 1 / d_j lies on it. G(k, j) = S_kj / √d_j.
  double ratio = 0.0;
  if (withCommonSize(size(), [&](auto fixed) {
        ratio = unrolledSchurColumns<decltype(fixed)::value>(A, shift, schur_.data(), factor_.data(),
                                                             inverse_diagonal_.data());
      })) {
    return ratio;
  }
  const int n = size();
  const int ld = static_cast<int>(schur_.rows());
  double* const S = schur_.data();
  // GCC's generic vectors: one AVX-512 register, two AVX2 or four SSE2 ones.
  typedef double Chunk __attribute__((vector_size(kLanes * sizeof(double))));
  double scale = 0.0;
  for (int j = 0; j < n; ++j) {
    // By chunks (a std::copy per column was a library call each).
    const double* const a = A.col(j).data();
    double* const s = S + j * ld;
    int r = 0;
    for (; r + kLanes <= n; r += kLanes) __builtin_memcpy(s + r, a + r, sizeof(Chunk));
    for (; r < n; ++r) s[r] = a[r];
    s[j] += shift;
    scale = std::max(scale, s[j]);
  }
  double min_pivot = std::numeric_limits<double>::infinity();
  double* const G = factor_.data();  // row-major: row i at G + i·n
  double* const inverse = inverse_diagonal_.data();
  for (int j = 0; j < n; ++j) {
    const double* const column_j = S + j * ld;
    const double d = column_j[j];
    if (!(d > 0.0)) return 0.0;
    const double inverse_d = 1.0 / d;
    min_pivot = std::min(min_pivot, d);
    for (int k = j + 1; k < n; ++k) {
      // Whole chunks from the one holding row k: the rows above k take
      // values no one reads, and every update of column k loads and stores
      // the same chunks (so each load is forwarded from the last store).
      const double b = column_j[k] * inverse_d;
      double* const column_k = S + k * ld;
      for (int r = k / kLanes * kLanes; r < n; r += kLanes) {
        Chunk x, y;
        __builtin_memcpy(&x, column_k + r, sizeof(Chunk));
        __builtin_memcpy(&y, column_j + r, sizeof(Chunk));
        x -= b * y;
        __builtin_memcpy(column_k + r, &x, sizeof(Chunk));
      }
    }
    const double g = std::sqrt(d);
    const double inverse_g = 1.0 / g;
    G[j * n + j] = g;
    inverse[j] = inverse_g;
    for (int k = j + 1; k < n; ++k) G[k * n + j] = column_j[k] * inverse_g;
  }
  return scale > 0.0 ? min_pivot / scale : 0.0;
}

void SmallCholesky::solveInPlace(Eigen::Ref<VectorX> x) const {
  solveLower(x);
  solveUpper(x);
}

void SmallCholesky::solveLower(Eigen::Ref<VectorX> x) const {
  if (withCommonSize(size(), [&](auto fixed) {
        unrolledForwardSubstitution<decltype(fixed)::value>(factor_.data(), inverse_diagonal_.data(), x.data());
      })) {
    return;
  }
  const int n = size();
  const double* const G = factor_.data();
  const double* const inverse = inverse_diagonal_.data();
  double* const xs = x.data();
  for (int i = 0; i < n; ++i) {  // G y = x
    const double* const row_i = G + i * n;
    double sum = xs[i];
    for (int k = 0; k < i; ++k) sum -= row_i[k] * xs[k];
    xs[i] = sum * inverse[i];
  }
}

void SmallCholesky::solveUpper(Eigen::Ref<VectorX> x) const {
  if (withCommonSize(size(), [&](auto fixed) {
        unrolledBackSubstitution<decltype(fixed)::value>(factor_.data(), inverse_diagonal_.data(), x.data());
      })) {
    return;
  }
  const int n = size();
  const double* const G = factor_.data();
  const double* const inverse = inverse_diagonal_.data();
  double* const xs = x.data();
  for (int i = n - 1; i >= 0; --i) {  // Gᵀ x = y
    const double* const row_i = G + i * n;
    const double xi = xs[i] * inverse[i];
    xs[i] = xi;
    for (int k = 0; k < i; ++k) xs[k] -= xi * row_i[k];
  }
}

void SmallCholesky::solveLowerTransposedRows(Eigen::Ref<MatrixX> X) const {
  // Column i of X G⁻ᵀ is (X_i - Σ_{k<i} G_ik (X G⁻ᵀ)_k) / G_ii: the rows of X
  // are independent right-hand sides, so each step is an axpy down a column.
  const int n = size();
  for (int i = 0; i < n; ++i) {
    auto column = X.col(i);
    for (int k = 0; k < i; ++k) column -= factor_(i, k) * X.col(k);
    column *= inverse_diagonal_[i];
  }
}

}  // namespace loopsim
