#include <loopsim/linalg/orthonormal_basis.hpp>

namespace loopsim {

void OrthonormalBasis::resize(int rows, int cols) {
  Q_.setZero(rows, cols);
  R_.setZero(cols, cols);
  basic_.setZero(cols);
  work_.setZero(cols, cols);
  rank_ = 0;
}

void OrthonormalBasis::compute(const Eigen::Ref<const MatrixX>& A, double relative_tolerance) {
  rank_ = 0;
  R_.setZero();
  for (Eigen::Index j = 0; j < A.cols(); ++j) {
    auto q = Q_.col(rank_);
    q = A.col(j);
    const double norm = q.norm();
    // Two passes of modified Gram-Schmidt: one loses orthogonality on nearly
    // dependent columns, the second restores it ("twice is enough").
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < rank_; ++i) {
        const double r = Q_.col(i).dot(q);
        R_(i, j) += r;
        q -= r * Q_.col(i);
      }
    }
    const double remainder = q.norm();
    if (!(remainder > relative_tolerance * norm) || remainder == 0.0) continue;  // dependent (or zero)
    q /= remainder;
    R_(rank_, j) = remainder;
    basic_[rank_] = static_cast<int>(j);
    ++rank_;
  }
}

void OrthonormalBasis::removeRange(Eigen::Ref<MatrixX> Y) {
  auto QtY = work_.topLeftCorner(rank_, Y.cols());
  QtY.noalias() = Q_.leftCols(rank_).transpose() * Y;
  Y.noalias() -= Q_.leftCols(rank_) * QtY;
}

void OrthonormalBasis::coefficients(const Eigen::Ref<const MatrixX>& Y, Eigen::Ref<MatrixX> C) {
  auto QtY = work_.topLeftCorner(rank_, Y.cols());
  QtY.noalias() = Q_.leftCols(rank_).transpose() * Y;
  C.setZero();
  // R on the basic columns is upper triangular: back substitution, row i of
  // the system is Σ_{b >= i} R(i, basic_b) c_basic_b = (Qᵀ Y)_i.
  for (int i = rank_ - 1; i >= 0; --i) {
    for (Eigen::Index k = 0; k < Y.cols(); ++k) {
      double sum = QtY(i, k);
      for (int b = i + 1; b < rank_; ++b) sum -= R_(i, basic_[b]) * C(basic_[b], k);
      C(basic_[i], k) = sum / R_(i, basic_[i]);
    }
  }
}

}  // namespace loopsim
