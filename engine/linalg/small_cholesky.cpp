#include <loopsim/linalg/small_cholesky.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace loopsim {

double SmallCholesky::factorize(const Eigen::Ref<const MatrixX>& A, double shift) {
  const int n = size();
  if (n == 0) return 1.0;
  double scale = 0.0;
  double min_pivot = std::numeric_limits<double>::infinity();
  for (int j = 0; j < n; ++j) {
    const auto row_j = factor_.row(j).head(j);
    const double d = A(j, j) + shift - row_j.squaredNorm();
    scale = std::max(scale, A(j, j) + shift);
    if (!(d > 0.0) || !std::isfinite(d)) return 0.0;
    const double g = std::sqrt(d);
    const double inverse_g = 1.0 / g;
    factor_(j, j) = g;
    min_pivot = std::min(min_pivot, d);
    for (int i = j + 1; i < n; ++i) {
      factor_(i, j) = (A(i, j) - factor_.row(i).head(j).dot(row_j)) * inverse_g;
    }
  }
  return scale > 0.0 ? min_pivot / scale : 0.0;
}

void SmallCholesky::solveInPlace(Eigen::Ref<VectorX> x) const {
  const int n = size();
  for (int i = 0; i < n; ++i) x[i] = (x[i] - factor_.row(i).head(i).dot(x.head(i))) / factor_(i, i);  // G y = x
  for (int i = n - 1; i >= 0; --i) {                                                                 // Gᵀ x = y
    x[i] /= factor_(i, i);
    x.head(i) -= x[i] * factor_.row(i).head(i).transpose();
  }
}

}  // namespace loopsim
