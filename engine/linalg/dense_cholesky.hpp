#pragma once
// A dense Cholesky A = G Gᵀ for matrices of any size: SmallCholesky's row
// form below kBlockedFrom rows, Eigen's blocked LLT from there on, where
// its matrix-product kernels win (timings: docs/performance.md).
// kkt factors M (up to 300 dofs by default) and Λ with it. No allocation
// after construction.
#include <Eigen/Cholesky>

#include <loopsim/linalg/small_cholesky.hpp>

namespace loopsim {

class DenseCholesky {
 public:
  static constexpr int kBlockedFrom = 64;

  explicit DenseCholesky(int n = 0);

  /// Factors a symmetric A (both triangles stored). Returns the smallest pivot (G_jj²)
  /// over the largest diagonal entry of A, 0 when A is not positive definite:
  /// as choleskyInPlace, so kCholeskyCollapseRatio applies.
  double factorize(const Eigen::Ref<const MatrixX>& A);
  /// x ← A⁻¹ x.
  void solveInPlace(Eigen::Ref<VectorX> x) const;
  /// x ← G⁻ᵀ x.
  void solveUpper(Eigen::Ref<VectorX> x) const;
  /// X ← X G⁻ᵀ for X with size() columns.
  void solveLowerTransposedRows(Eigen::Ref<MatrixX> X) const;

  int size() const { return size_; }

 private:
  int size_;
  bool blocked_;
  SmallCholesky small_;       // below kBlockedFrom rows
  Eigen::LLT<MatrixX> llt_;  // from kBlockedFrom rows on
};

}  // namespace loopsim
