#pragma once
// A random symmetric positive definite matrix (B Bᵀ + 0.1 I), fixed by its seed:
// the Cholesky tests' input.
#include <cstdlib>

#include <loopsim/spatial/types.hpp>

namespace loopsim::test {

inline MatrixX randomSpd(int n, unsigned seed) {
  std::srand(seed);
  const MatrixX B = MatrixX::Random(n, n);
  return B * B.transpose() + 0.1 * MatrixX::Identity(n, n);
}

}  // namespace loopsim::test
