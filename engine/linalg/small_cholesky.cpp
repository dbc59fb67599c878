#include <loopsim/linalg/small_cholesky.hpp>

namespace loopsim {

double choleskyInPlace(Eigen::Ref<MatrixX> A) { return detail::choleskyRows(A); }

void choleskySolveInPlace(const Eigen::Ref<const MatrixX>& G, Eigen::Ref<VectorX> x) {
  detail::choleskySolveRows(G, x);
}

double SmallCholesky::factorize(const Eigen::Ref<const MatrixX>& A, double shift) {
  factor_.triangularView<Eigen::Lower>() = A;
  factor_.diagonal().array() += shift;
  return detail::choleskyRows(factor_);
}

void SmallCholesky::solveInPlace(Eigen::Ref<VectorX> x) const { detail::choleskySolveRows(factor_, x); }

}  // namespace loopsim
