// The fixed-size LU solves behind the cluster spanning's K_d: the same
// solutions as Eigen's PartialPivLU::solve and its transpose's, on random
// matrices that need row exchanges and on ill-conditioned ones.
#include <gtest/gtest.h>

#include <random>

#include <loopsim/linalg/small_lu_solve.hpp>

using namespace loopsim;

namespace {

template <int N>
void expectSolvesMatchEigen(const Eigen::Matrix<double, N, N>& A, const Eigen::Matrix<double, N, 1>& b, double tolerance) {
  const Eigen::PartialPivLU<Eigen::Matrix<double, N, N>> lu(A);
  const Eigen::Matrix<double, N, 1> x = lu.solve(b), xt = lu.transpose().solve(b);
  EXPECT_LE((smallLuSolve<N>(lu, b) - x).norm(), tolerance * x.norm()) << "N=" << N << "\n" << A;
  EXPECT_LE((smallLuSolveTransposed<N>(lu, b) - xt).norm(), tolerance * xt.norm()) << "N=" << N << " transposed\n" << A;
  EXPECT_LE((A * smallLuSolve<N>(lu, b) - b).norm(), 1e-12 * (A.norm() * x.norm() + b.norm())) << "N=" << N;
  EXPECT_LE((A.transpose() * smallLuSolveTransposed<N>(lu, b) - b).norm(), 1e-12 * (A.norm() * xt.norm() + b.norm()))
      << "N=" << N << " transposed";
}

template <int N>
void checkSize(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int exchanged = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Eigen::Matrix<double, N, N> A;
    Eigen::Matrix<double, N, 1> b;
    for (int i = 0; i < N; ++i) {
      b[i] = u(rng);
      for (int j = 0; j < N; ++j) A(i, j) = u(rng);
    }
    if (trial % 4 == 0) A.row(0) *= 1e-6;  // a small first row: partial pivoting exchanges it
    const Eigen::PartialPivLU<Eigen::Matrix<double, N, N>> lu(A);
    if (!lu.permutationP().indices().isApprox(Eigen::Matrix<int, N, 1>::LinSpaced(0, N - 1))) ++exchanged;
    expectSolvesMatchEigen<N>(A, b, 1e-10);
  }
  EXPECT_GT(exchanged, 50) << "N=" << N << ": the row exchanges were exercised";
}

}  // namespace

TEST(SmallLuSolve, MatchesEigenWithRowExchanges) {
  checkSize<2>(11);
  checkSize<3>(12);
}

TEST(SmallLuSolve, IllConditioned) {
  Eigen::Matrix2d A;
  A << 1.0, 1.0, 1.0, 1.0 + 1e-9;
  expectSolvesMatchEigen<2>(A, Eigen::Vector2d(1.0, -2.0), 1e-6);
  Eigen::Matrix3d B;
  B << 0.0, 2.0, 1.0, 3.0, 0.0, 1.0, 1.0, 1.0, 1e-8;
  expectSolvesMatchEigen<3>(B, Eigen::Vector3d(0.5, 1.0, -1.0), 1e-10);
}
