// The fixed-size Cholesky behind a joint's D_i⁻¹ (factorJoint) and PV's eq. 49:
// the same inverse and solution as Eigen's LLT, on well-conditioned blocks and
// on penalty-like ones (an inertia plus μ KᵀK, lcaba's D_i), symmetric to the
// last bit; the square-root form's NaN for an indefinite matrix.
#include <gtest/gtest.h>

#include "random_spd.hpp"

#include <loopsim/linalg/fixed_cholesky.hpp>

using namespace loopsim;
using loopsim::test::randomSpd;

namespace {

template <int N>
void expectInverseAndSolveMatchLlt(const Eigen::Matrix<double, N, N>& A, double tolerance, const char* what) {
  using MatrixN = Eigen::Matrix<double, N, N>;
  using VectorN = Eigen::Matrix<double, N, 1>;
  const Eigen::LLT<MatrixN> llt(A);
  ASSERT_EQ(llt.info(), Eigen::Success) << what;
  const MatrixN expected = llt.solve(MatrixN::Identity());

  const MatrixN inverse = fixedLdltInverse<N>(A);
  EXPECT_LT((inverse - expected).norm(), tolerance * expected.norm()) << what << " N=" << N;
  EXPECT_EQ(inverse, inverse.transpose()) << what << ": symmetric to the last bit";

  const VectorN b = VectorN::LinSpaced(1.0, 2.0);
  MatrixN G = A;
  VectorN inverse_diagonal;
  fixedCholeskyInPlace<N>(G, inverse_diagonal);
  const MatrixN L = llt.matrixL();
  const MatrixN factor = G.template triangularView<Eigen::Lower>();
  EXPECT_LT((factor * factor.transpose() - A).norm(), 1e-14 * A.norm()) << what << ": backward error";
  EXPECT_LT((factor - L).norm(), tolerance * L.norm()) << what;
  EXPECT_LT((inverse_diagonal.cwiseProduct(G.diagonal()) - VectorN::Ones()).cwiseAbs().maxCoeff(), 1e-15) << what;
  const VectorN x = fixedCholeskySolve<N>(G, b);
  const VectorN x_expected = llt.solve(b);
  EXPECT_LT((x - x_expected).norm(), tolerance * x_expected.norm()) << what;
}

template <int N>
void checkSize() {
  using MatrixN = Eigen::Matrix<double, N, N>;
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const MatrixN A = randomSpd(N, 300 + seed);
    expectInverseAndSolveMatchLlt<N>(A, 1e-12, "random SPD");
    // lcaba's D_i: an inertia-sized block plus μ KᵀK of lower rank (condition ~1e8).
    const Eigen::Matrix<double, N, 1> k = randomSpd(N, 400 + seed).col(0);
    const MatrixN penalised = A + 1e8 * k * k.transpose();
    expectInverseAndSolveMatchLlt<N>(penalised, 1e-6, "penalised");
  }
}

}  // namespace

TEST(FixedCholesky, InverseAndSolveMatchLltAtJointSizes) {
  checkSize<2>();
  checkSize<3>();
  checkSize<6>();
}

TEST(FixedCholesky, IndefiniteMatrix) {
  Eigen::Matrix3d A = randomSpd(3, 9);
  A(2, 2) = -1.0;
  // The square-root form fails loudly ...
  Eigen::Matrix3d G = A;
  Eigen::Vector3d inverse_diagonal;
  fixedCholeskyInPlace<3>(G, inverse_diagonal);
  EXPECT_TRUE(inverse_diagonal.hasNaN());
  // ... the square-root-free inverse needs only non-zero leading minors.
  const Eigen::Matrix3d expected = A.inverse();
  EXPECT_LT((fixedLdltInverse<3>(A) - expected).norm(), 1e-12 * expected.norm());
}
