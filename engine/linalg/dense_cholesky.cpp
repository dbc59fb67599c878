#include <loopsim/linalg/dense_cholesky.hpp>

namespace loopsim {

DenseCholesky::DenseCholesky(int n)
    : size_(n), blocked_(n >= kBlockedFrom), small_(blocked_ ? 0 : n), llt_(blocked_ ? n : 0) {}

double DenseCholesky::factorize(const Eigen::Ref<const MatrixX>& A) {
  if (!blocked_) return small_.factorize(A);
  llt_.compute(A);
  if (llt_.info() != Eigen::Success) return 0.0;
  const double scale = A.diagonal().maxCoeff();
  const double min_pivot = llt_.matrixLLT().diagonal().minCoeff();
  return scale > 0.0 ? min_pivot * min_pivot / scale : 0.0;
}

void DenseCholesky::solveInPlace(Eigen::Ref<VectorX> x) const {
  if (blocked_) {
    llt_.solveInPlace(x);
  } else {
    small_.solveInPlace(x);
  }
}

void DenseCholesky::solveUpper(Eigen::Ref<VectorX> x) const {
  if (blocked_) {
    llt_.matrixU().solveInPlace(x);
  } else {
    small_.solveUpper(x);
  }
}

void DenseCholesky::solveLowerTransposedRows(Eigen::Ref<MatrixX> X) const {
  if (blocked_) {
    llt_.matrixU().solveInPlace<Eigen::OnTheRight>(X);  // X U⁻¹ = X G⁻ᵀ
  } else {
    small_.solveLowerTransposedRows(X);
  }
}

}  // namespace loopsim
