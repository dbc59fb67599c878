// DenseCholesky on both sides of the size where it hands over from the row
// form to Eigen's blocked LLT: the same solutions, the same G (through
// X G⁻ᵀ and G⁻ᵀ x), the same pivot ratio, 0 for an indefinite matrix.
#include <gtest/gtest.h>
#include "random_spd.hpp"

#include <loopsim/linalg/dense_cholesky.hpp>

using namespace loopsim;
using loopsim::test::randomSpd;

TEST(DenseCholesky, RowFormAndBlockedFormAgreeWithLlt) {
  for (int n : {3, 12, DenseCholesky::kBlockedFrom - 1, DenseCholesky::kBlockedFrom, 100}) {
    const MatrixX A = randomSpd(n, static_cast<unsigned>(200 + n));
    const Eigen::LLT<MatrixX> llt(A);
    const MatrixX G = llt.matrixL();
    DenseCholesky cholesky(n);
    MatrixX rows = A;
    const double row_ratio = detail::choleskyRows(rows);
    const double ratio = cholesky.factorize(A);
    EXPECT_NEAR(ratio, row_ratio, 1e-10 * row_ratio) << n;

    const VectorX b = VectorX::Random(n);
    VectorX x = b;
    cholesky.solveInPlace(x);
    EXPECT_LT((A * x - b).norm(), 1e-9 * b.norm() * A.norm()) << n;

    VectorX y = b;
    cholesky.solveUpper(y);  // Gᵀ y = b
    EXPECT_LT((G.transpose() * y - b).norm(), 1e-9 * b.norm() * G.norm()) << n;

    const MatrixX X = MatrixX::Random(5, n);
    MatrixX W = X;
    cholesky.solveLowerTransposedRows(W);  // W Gᵀ = X
    EXPECT_LT((W * G.transpose() - X).norm(), 1e-9 * X.norm() * G.norm()) << n;
  }
}

TEST(DenseCholesky, ReportsIndefiniteMatricesInBothForms) {
  for (int n : {10, 80}) {
    MatrixX A = randomSpd(n, 5);
    A(n - 3, n - 3) = -1.0;
    DenseCholesky cholesky(n);
    EXPECT_EQ(cholesky.factorize(A), 0.0) << n;
  }
}
