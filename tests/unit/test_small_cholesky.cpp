// choleskyInPlace / choleskySolveInPlace on both sides of the size where the
// column-major block switches from the row form to the column form: the same
// factor as Eigen's LLT, the same pivot ratio as the row form, no allocation.
#include "allocation_counter.hpp"
#include <gtest/gtest.h>
#include "random_spd.hpp"

#include <loopsim/linalg/small_cholesky.hpp>

using namespace loopsim;
using loopsim::test::randomSpd;

TEST(SmallCholesky, InPlaceFactorAndSolveMatchLltOnSmallAndLargeBlocks) {
  for (int n : {5, 47, 48, 120, 250}) {
    const MatrixX A = randomSpd(n, static_cast<unsigned>(n));
    // A block inside a taller matrix: the stride is not the block's height.
    MatrixX storage = MatrixX::Constant(n + 7, n, 99.0);
    auto block = storage.topRows(n);
    block.triangularView<Eigen::Lower>() = A;
    const VectorX b = VectorX::Random(n);
    VectorX x = b;
    double ratio = 0.0;
    const long allocations = test::countHeapAllocations([&] {
      ratio = choleskyInPlace(block);
      choleskySolveInPlace(block, x);
    });
    EXPECT_EQ(allocations, 0) << n;
    const Eigen::LLT<MatrixX> llt(A);
    const MatrixX G = block.triangularView<Eigen::Lower>();
    const MatrixX L = llt.matrixL();
    EXPECT_LT((G - L).cwiseAbs().maxCoeff(), 1e-10 * L.cwiseAbs().maxCoeff()) << n;
    EXPECT_LT((A * x - b).norm(), 1e-9 * b.norm()) << n;
    EXPECT_EQ(storage(n, 0), 99.0) << "rows below the block untouched";
    EXPECT_EQ(storage(0, n - 1), 99.0) << "upper triangle untouched";
    // The row form's pivot ratio (smallest pivot over the largest diagonal entry).
    MatrixX rows = A;
    const double row_ratio = detail::choleskyRows(rows);
    EXPECT_NEAR(ratio, row_ratio, 1e-12 * row_ratio) << n;
  }
}

TEST(SmallCholesky, InPlaceReportsAnIndefiniteLargeBlock) {
  MatrixX A = randomSpd(80, 3);
  A(60, 60) = -1.0;
  EXPECT_EQ(choleskyInPlace(A), 0.0);
}

// SmallCholesky (its own row-major factor: the row form below six rows, rows
// four at a time, and the Schur form from six rows, in chunks of eight,
// unrolled at 6, 9, 12, 18 and 24 rows): the same factor and solution as
// Eigen's LLT and the same pivot ratio as the row form, at sizes on both
// sides of the four-row blocks and of whole chunks, unrolled or not, with the
// shift applied, and 0 for an indefinite matrix. No allocation.
TEST(SmallCholesky, OwnFactorMatchesLltWithAndWithoutShift) {
  for (int n : {1, 3, 4, 5, 6, 8, 9, 12, 13, 18, 24, 36, 37}) {
    for (double shift : {0.0, 0.25}) {
      const MatrixX A = randomSpd(n, static_cast<unsigned>(100 + n));
      const MatrixX shifted = A + shift * MatrixX::Identity(n, n);
      SmallCholesky cholesky(n);
      const VectorX b = VectorX::Random(n);
      VectorX x = b;
      double ratio = 0.0;
      const long allocations = test::countHeapAllocations([&] {
        ratio = cholesky.factorize(A, shift);
        cholesky.solveInPlace(x);
      });
      EXPECT_EQ(allocations, 0) << n;
      EXPECT_LT((shifted * x - b).norm(), 1e-10 * b.norm() * shifted.norm()) << n << " shift " << shift;
      const Eigen::LLT<MatrixX> llt(shifted);
      EXPECT_LT((llt.solve(b) - x).norm(), 1e-10 * x.norm()) << n << " shift " << shift;
      MatrixX rows = shifted;
      const double row_ratio = detail::choleskyRows(rows);
      EXPECT_NEAR(ratio, row_ratio, 1e-12 * row_ratio) << n << " shift " << shift;
    }
  }
  for (int n : {4, 13, 12, 24}) {  // both forms, the Schur form looped and unrolled
    MatrixX indefinite = randomSpd(n, 7);
    indefinite(n - 2, n - 2) = -1.0;
    SmallCholesky cholesky(n);
    EXPECT_EQ(cholesky.factorize(indefinite), 0.0) << n;
  }
}
