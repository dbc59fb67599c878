#pragma once
// Solves with the factor of a fixed-size PartialPivLU (P A = L U), as loops of
// fixed trip count. Eigen's solve() at 2x2 and 3x3 calls its general
// triangular-solve kernel out of line, twice, which costs more than the
// arithmetic (the cluster spanning's K_d at every state, docs/performance.md).
// Eigen's own solve() is the reference (test_small_lu_solve.cpp).
#include <Eigen/LU>

#include <loopsim/spatial/types.hpp>

namespace loopsim {

/// x with A x = b.
template <int N>
inline Eigen::Matrix<double, N, 1> smallLuSolve(const Eigen::PartialPivLU<Eigen::Matrix<double, N, N>>& lu,
                                                const Eigen::Matrix<double, N, 1>& b) {
  const Eigen::Matrix<double, N, N>& LU = lu.matrixLU();
  Eigen::Matrix<double, N, 1> x = lu.permutationP() * b;
  for (int i = 1; i < N; ++i) {  // L y = P b, L unit lower
    for (int j = 0; j < i; ++j) x[i] -= LU(i, j) * x[j];
  }
  for (int i = N - 1; i >= 0; --i) {  // U x = y
    for (int j = i + 1; j < N; ++j) x[i] -= LU(i, j) * x[j];
    x[i] /= LU(i, i);
  }
  return x;
}

/// x with Aᵀ x = b (Aᵀ = Uᵀ Lᵀ P).
template <int N>
inline Eigen::Matrix<double, N, 1> smallLuSolveTransposed(const Eigen::PartialPivLU<Eigen::Matrix<double, N, N>>& lu,
                                                          Eigen::Matrix<double, N, 1> x) {
  const Eigen::Matrix<double, N, N>& LU = lu.matrixLU();
  for (int i = 0; i < N; ++i) {  // Uᵀ z = b
    for (int j = 0; j < i; ++j) x[i] -= LU(j, i) * x[j];
    x[i] /= LU(i, i);
  }
  for (int i = N - 2; i >= 0; --i) {  // Lᵀ w = z, unit upper
    for (int j = i + 1; j < N; ++j) x[i] -= LU(j, i) * x[j];
  }
  return lu.permutationP().transpose() * x;
}

}  // namespace loopsim
