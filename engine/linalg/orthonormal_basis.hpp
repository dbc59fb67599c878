#pragma once
// An orthonormal basis Q of the column space of A (n x m, m <= n or not,
// rank-deficient or not) by modified Gram-Schmidt with one re-orthogonalisation
// pass, and A's triangular factor R on the independent columns (A_basic = Q R).
// A column whose remainder falls below `relative_tolerance` times its own norm
// is dependent: it adds no direction, and least-squares coefficients give it 0
// (the basic solution). Used where a least-squares split must not allocate:
// storage is sized at construction (or resize) for at most n x m.
#include <loopsim/spatial/types.hpp>

namespace loopsim {

class OrthonormalBasis {
 public:
  explicit OrthonormalBasis(int rows = 0, int cols = 0) { resize(rows, cols); }
  void resize(int rows, int cols);

  /// Q and R of A's columns (A: rows() x cols()). No allocation.
  void compute(const Eigen::Ref<const MatrixX>& A, double relative_tolerance = 1e-10);

  int rank() const { return rank_; }
  /// Q's rank() columns.
  auto basis() const { return Q_.leftCols(rank_); }

  /// Y ← Y − Q Qᵀ Y: what A's columns cannot produce (rows() x k). No allocation
  /// with k <= the `work_cols` given to resize (default cols()).
  void removeRange(Eigen::Ref<MatrixX> Y);
  /// C (cols() x k) with A C = Q Qᵀ Y, zero on the dependent columns. No allocation (as removeRange).
  void coefficients(const Eigen::Ref<const MatrixX>& Y, Eigen::Ref<MatrixX> C);

  /// Sizes the workspace of removeRange / coefficients for Y of up to k columns.
  void reserveWork(int k) { work_.resize(Q_.cols(), k); }

 private:
  MatrixX Q_;  // rows x cols, the first rank_ columns used
  MatrixX R_;  // cols x cols: R_(i, basic_[j]) for the basic columns
  Eigen::VectorXi basic_;  // the independent columns of A, in order (first rank_ used)
  MatrixX work_;           // Qᵀ Y
  int rank_ = 0;
};

}  // namespace loopsim
