// factorJoint's D⁻¹ for spherical (3 x 3) and floating (6 x 6) joints
// (algorithms/joint_motion.hpp inverseSpd): exactly symmetric and as accurate
// as Eigen's LLT solve, also for the penalty solvers' D that mixes O(1) and
// O(μ) eigenvalues.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include <loopsim/algorithms/joint_motion.hpp>

namespace loopsim {
namespace {

template <int N>
Eigen::Matrix<double, N, N> randomSpd(std::mt19937& rng, double penalty) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::Matrix<double, N, N> B;
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < N; ++j) B(i, j) = normal(rng);
  }
  Eigen::Matrix<double, N, N> A = B * B.transpose() + 0.1 * Eigen::Matrix<double, N, N>::Identity();
  // A rank-one penalty μ k kᵀ: eigenvalues O(1) and O(μ).
  Eigen::Matrix<double, N, 1> k;
  for (int i = 0; i < N; ++i) k[i] = normal(rng);
  A += penalty * k * k.transpose();
  return A;
}

template <int N>
void checkInverses(double penalty) {
  std::mt19937 rng(N);
  double worst_ratio = 0.0;
  for (int sample = 0; sample < 200; ++sample) {
    const Eigen::Matrix<double, N, N> A = randomSpd<N>(rng, penalty);
    Eigen::Matrix<double, N, N> inverse;
    detail::inverseSpd<N>(A, inverse);
    EXPECT_EQ(inverse, inverse.transpose()) << "not exactly symmetric";
    const Eigen::Matrix<double, N, N> eigen = A.llt().solve(Eigen::Matrix<double, N, N>::Identity());
    // Residuals ‖A X − I‖ of both inverses: ours within a small factor of Eigen's
    // (both backward stable), and at round-off relative to cond(A).
    const double ours = (A * inverse - Eigen::Matrix<double, N, N>::Identity()).norm();
    const double theirs = (A * eigen - Eigen::Matrix<double, N, N>::Identity()).norm();
    const double condition = A.norm() * eigen.norm();
    EXPECT_LE(ours, 1e-14 * condition) << "sample " << sample << ", penalty " << penalty;
    worst_ratio = std::max(worst_ratio, ours / std::max(theirs, 1e-300));
  }
  EXPECT_LE(worst_ratio, 100.0) << "penalty " << penalty;
}

TEST(InverseSpd, SphericalAndFloatingJointInversesMatchLltSolve) {
  for (const double penalty : {0.0, 1e3, 1e6, 1e9}) {
    checkInverses<3>(penalty);
    checkInverses<6>(penalty);
  }
}

TEST(InverseSpd, NotPositiveDefiniteGivesNaNNotAGuess) {
  Eigen::Matrix3d A = Eigen::Matrix3d::Identity();
  A(2, 2) = -1.0;
  Eigen::Matrix3d inverse;
  detail::inverseSpd<3>(A, inverse);
  EXPECT_TRUE(inverse.hasNaN());
}

}  // namespace
}  // namespace loopsim
