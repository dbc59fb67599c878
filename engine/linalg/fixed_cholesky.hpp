#pragma once
// Cholesky of a fixed-size symmetric positive definite matrix (a joint's
// 3 x 3 or 6 x 6 D_i, PV's 6 x 6 eq. 49), in loops of fixed trip count that
// GCC unrolls. Eigen's LLT at these sizes goes through its general
// triangular-solve kernels (packing included), a cost the recursions pay at
// every joint (docs/performance.md).
// fixedCholeskyInPlace gives NaN for a pivot that is not positive;
// fixedLdltInverse, without square roots, inverts any symmetric matrix whose
// leading minors are non-zero, and is backward stable when it is positive
// definite, as the callers' inertias (plus penalties) are by construction.
#include <cmath>

#include <loopsim/spatial/types.hpp>

namespace loopsim {

/// A's lower triangle ← G (A = G Gᵀ); the strictly upper triangle is not read.
/// inverse_diagonal ← 1 / G_jj.
template <int N>
inline void fixedCholeskyInPlace(Eigen::Matrix<double, N, N>& A, Eigen::Matrix<double, N, 1>& inverse_diagonal) {
  for (int j = 0; j < N; ++j) {
    double d = A(j, j);
    for (int k = 0; k < j; ++k) d -= A(j, k) * A(j, k);
    const double g = std::sqrt(d), inv_g = 1.0 / g;
    A(j, j) = g;
    inverse_diagonal[j] = inv_g;
    for (int i = j + 1; i < N; ++i) {
      double s = A(i, j);
      for (int k = 0; k < j; ++k) s -= A(i, k) * A(j, k);
      A(i, j) = s * inv_g;
    }
  }
}

/// x ← (G Gᵀ)⁻¹ x with G from fixedCholeskyInPlace: G y = x, then Gᵀ x = y.
template <int N>
inline Eigen::Matrix<double, N, 1> fixedCholeskySolve(const Eigen::Matrix<double, N, N>& G,
                                                      Eigen::Matrix<double, N, 1> x) {
  for (int i = 0; i < N; ++i) {
    for (int k = 0; k < i; ++k) x[i] -= G(i, k) * x[k];
    x[i] /= G(i, i);
  }
  for (int i = N - 1; i >= 0; --i) {
    for (int k = i + 1; k < N; ++k) x[i] -= G(k, i) * x[k];
    x[i] /= G(i, i);
  }
  return x;
}

/// A⁻¹ for N = 2, 3 or 6 through the square-root-free form A = L diag(d) Lᵀ
/// (L unit lower): A⁻¹ = L⁻ᵀ diag(1/d) L⁻¹, symmetric to the last bit. One
/// division per column and no square root on the chain from one column to
/// the next: where the inverse is needed at once (a joint's D_i⁻¹) it is
/// faster than going through G = L√d or Eigen's LLT (docs/performance.md).
/// As backward stable for a positive definite A (no
/// pivoting needed). Compiled once (fixed_cholesky.cpp), not unrolled into
/// every recursion that factors a joint (factorJoint).
template <int N>
Eigen::Matrix<double, N, N> fixedLdltInverse(const Eigen::Matrix<double, N, N>& A);

extern template Eigen::Matrix<double, 2, 2> fixedLdltInverse<2>(const Eigen::Matrix<double, 2, 2>&);
extern template Eigen::Matrix<double, 3, 3> fixedLdltInverse<3>(const Eigen::Matrix<double, 3, 3>&);
extern template Eigen::Matrix<double, 6, 6> fixedLdltInverse<6>(const Eigen::Matrix<double, 6, 6>&);

}  // namespace loopsim
