#include <loopsim/linalg/fixed_cholesky.hpp>

namespace loopsim {

template <int N>
Eigen::Matrix<double, N, N> fixedCholeskyInverse(const Eigen::Matrix<double, N, N>& A) {
  Eigen::Matrix<double, N, N> G = A;
  Eigen::Matrix<double, N, 1> inverse_diagonal;
  fixedCholeskyInPlace<N>(G, inverse_diagonal);
  Eigen::Matrix<double, N, N> Y = Eigen::Matrix<double, N, N>::Zero();  // G⁻¹, lower
  for (int c = 0; c < N; ++c) {
    Y(c, c) = inverse_diagonal[c];
    for (int i = c + 1; i < N; ++i) {
      double s = 0.0;
      for (int k = c; k < i; ++k) s += G(i, k) * Y(k, c);
      Y(i, c) = -s * inverse_diagonal[i];
    }
  }
  Eigen::Matrix<double, N, N> inverse;
  for (int c = 0; c < N; ++c) {
    for (int r = c; r < N; ++r) {
      double s = 0.0;
      for (int k = r; k < N; ++k) s += Y(k, r) * Y(k, c);
      inverse(r, c) = s;
      inverse(c, r) = s;
    }
  }
  return inverse;
}

template Eigen::Matrix<double, 2, 2> fixedCholeskyInverse<2>(const Eigen::Matrix<double, 2, 2>&);
template Eigen::Matrix<double, 3, 3> fixedCholeskyInverse<3>(const Eigen::Matrix<double, 3, 3>&);
template Eigen::Matrix<double, 6, 6> fixedCholeskyInverse<6>(const Eigen::Matrix<double, 6, 6>&);

}  // namespace loopsim
