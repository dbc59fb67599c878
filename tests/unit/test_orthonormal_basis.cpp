// OrthonormalBasis (linalg/orthonormal_basis.hpp) against Eigen's complete
// orthogonal decomposition: the same range projection and least-squares
// coefficients on random full-rank, rank-deficient and nearly dependent
// matrices, and no allocation once sized.
#include <gtest/gtest.h>

#include <random>

#include <Eigen/QR>

#include <loopsim/linalg/orthonormal_basis.hpp>

#include "allocation_counter.hpp"

namespace loopsim {
namespace {

MatrixX randomMatrix(std::mt19937& rng, int rows, int cols) {
  std::normal_distribution<double> normal;
  MatrixX A(rows, cols);
  for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = normal(rng);
  return A;
}

TEST(OrthonormalBasis, ProjectsAndSolvesAsTheCompleteOrthogonalDecomposition) {
  std::mt19937 rng(3);
  int deficient = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int rows = 6 + trial % 20, cols = 1 + trial % 9, k = 1 + trial % 3;
    MatrixX A = randomMatrix(rng, rows, cols);
    // Every third matrix gets a dependent column (a combination of two others).
    if (trial % 3 == 0 && cols >= 3) {
      A.col(cols - 1) = 0.7 * A.col(0) - 1.3 * A.col(1);
      ++deficient;
    }
    const MatrixX Y = randomMatrix(rng, rows, k);
    OrthonormalBasis basis(rows, cols);
    basis.reserveWork(k);
    basis.compute(A);
    const Eigen::CompleteOrthogonalDecomposition<MatrixX> cod(A);
    ASSERT_EQ(basis.rank(), cod.rank()) << trial;
    // Qᵀ Q = I.
    const MatrixX Q = basis.basis();
    EXPECT_LT((Q.transpose() * Q - MatrixX::Identity(basis.rank(), basis.rank())).lpNorm<Eigen::Infinity>(), 1e-12);
    // The projection onto the range: A A⁺ Y.
    const MatrixX projected = A * cod.solve(Y);
    MatrixX removed = Y;
    basis.removeRange(removed);
    EXPECT_LT((Y - removed - projected).lpNorm<Eigen::Infinity>(), 1e-10) << trial;
    MatrixX C(cols, k);
    basis.coefficients(Y, C);
    EXPECT_LT((A * C - projected).lpNorm<Eigen::Infinity>(), 1e-10) << trial;
  }
  EXPECT_GT(deficient, 10);
}

TEST(OrthonormalBasis, ComputeAndSolvesDoNotAllocate) {
  std::mt19937 rng(5);
  const MatrixX A = randomMatrix(rng, 30, 12), Y = randomMatrix(rng, 30, 2);
  OrthonormalBasis basis(30, 12);
  basis.reserveWork(2);
  MatrixX C(12, 2), removed = Y;
  EXPECT_EQ(test::countHeapAllocations([&] {
              basis.compute(A);
              basis.coefficients(Y, C);
              basis.removeRange(removed);
            }),
            0);
}

}  // namespace
}  // namespace loopsim
