#include <loopsim/linalg/fixed_cholesky.hpp>

namespace loopsim {

template <int N>
Eigen::Matrix<double, N, N> fixedLdltInverse(const Eigen::Matrix<double, N, N>& A) {
  // A = L diag(d) Lᵀ by columns; Ld(i, k) = L_ik d_k is kept so that each
  // entry of L costs one multiplication by 1/d_j.
  Eigen::Matrix<double, N, N> L, Ld;
  Eigen::Matrix<double, N, 1> inverse_d;
  for (int j = 0; j < N; ++j) {
    double d = A(j, j);
    for (int k = 0; k < j; ++k) d -= L(j, k) * Ld(j, k);
    inverse_d[j] = 1.0 / d;
    for (int i = j + 1; i < N; ++i) {
      double s = A(i, j);
      for (int k = 0; k < j; ++k) s -= Ld(i, k) * L(j, k);
      Ld(i, j) = s;
      L(i, j) = s * inverse_d[j];
    }
  }
  // Y = L⁻¹ (unit lower), then A⁻¹ = Yᵀ diag(1/d) Y.
  Eigen::Matrix<double, N, N> Y = Eigen::Matrix<double, N, N>::Identity();
  for (int c = 0; c < N; ++c) {
    for (int i = c + 1; i < N; ++i) {
      double s = L(i, c);
      for (int k = c + 1; k < i; ++k) s += L(i, k) * Y(k, c);
      Y(i, c) = -s;
    }
  }
  Eigen::Matrix<double, N, N> inverse;
  for (int c = 0; c < N; ++c) {
    for (int r = c; r < N; ++r) {
      double s = 0.0;
      for (int k = r; k < N; ++k) s += Y(k, r) * inverse_d[k] * Y(k, c);
      inverse(r, c) = s;
      inverse(c, r) = s;
    }
  }
  return inverse;
}

template Eigen::Matrix<double, 2, 2> fixedLdltInverse<2>(const Eigen::Matrix<double, 2, 2>&);
template Eigen::Matrix<double, 3, 3> fixedLdltInverse<3>(const Eigen::Matrix<double, 3, 3>&);
template Eigen::Matrix<double, 6, 6> fixedLdltInverse<6>(const Eigen::Matrix<double, 6, 6>&);

}  // namespace loopsim
