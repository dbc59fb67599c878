#pragma once
// Dense Cholesky A = G Gᵀ for the small symmetric positive (semi-)definite
// systems the solvers factor at every solve: Delassus matrices of a few dozen
// rows. Eigen's LLT is blocked for large matrices; at these sizes its
// bookkeeping (gemv calls, triangular-solve kernels) costs more than the
// m³/6 products, so this is the plain row-oriented algorithm over a
// row-major factor (each pivot row's prefix is contiguous). Sized once; no
// allocation in factorize or solveInPlace.
#include <loopsim/spatial/types.hpp>

namespace loopsim {

class SmallCholesky {
 public:
  explicit SmallCholesky(int n = 0) : factor_(n, n) {}

  /// Factors A + shift·I (A's lower triangle is read). Returns the smallest
  /// pivot (before its square root) over the largest diagonal entry of
  /// A + shift·I, or 0 when a pivot is not positive or not finite: callers
  /// treat a ratio <= 1e-12 as a collapsed (rank-deficient) matrix.
  double factorize(const Eigen::Ref<const MatrixX>& A, double shift = 0.0);

  /// x ← (G Gᵀ)⁻¹ x with the last factorisation. No allocation.
  void solveInPlace(Eigen::Ref<VectorX> x) const;

  int size() const { return static_cast<int>(factor_.rows()); }

 private:
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> factor_;  // G, lower triangle
};

/// The collapse test of the exact solvers: a pivot ratio from
/// SmallCholesky::factorize at or below this is rank deficient.
inline constexpr double kCholeskyCollapseRatio = 1e-12;

}  // namespace loopsim
