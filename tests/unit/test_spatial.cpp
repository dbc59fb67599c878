#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include <Eigen/Geometry>

#include <loopsim/spatial/inertia.hpp>

using namespace loopsim;

namespace {
SE3 randomSE3(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Vector3 w(n(rng), n(rng), n(rng));
  Vector3 t(n(rng), n(rng), n(rng));
  return {exp3(w), t};
}
Motion randomMotion(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  return Motion(Vector6::NullaryExpr([&](Eigen::Index) { return n(rng); }));
}
}  // namespace

TEST(Spatial, ActMatchesActionMatrix) {
  std::mt19937 rng(1);
  for (int k = 0; k < 20; ++k) {
    const SE3 M = randomSE3(rng);
    const Motion m = randomMotion(rng);
    const Force f(randomMotion(rng).toVector());
    EXPECT_TRUE(M.act(m).toVector().isApprox(M.actionMatrix() * m.toVector(), 1e-12));
    // Force transform is the inverse transpose of the motion transform.
    const Matrix6 Xf = M.actionMatrix().inverse().transpose();
    EXPECT_TRUE(M.act(f).toVector().isApprox(Xf * f.toVector(), 1e-12));
    EXPECT_TRUE(M.actInv(M.act(m)).toVector().isApprox(m.toVector(), 1e-12));
    EXPECT_TRUE(M.actInv(M.act(f)).toVector().isApprox(f.toVector(), 1e-12));
    // Power is frame independent.
    EXPECT_NEAR(dot(M.act(m), M.act(f)), dot(m, f), 1e-10);
  }
}

// The in-place forms the hot loops use equal the operators to round-off.
TEST(Spatial, InPlaceProductAndInversesMatchTheOperators) {
  std::mt19937 rng(7);
  for (int k = 0; k < 20; ++k) {
    const SE3 A = randomSE3(rng), B = randomSE3(rng);
    SE3 out = randomSE3(rng);
    out.setProduct(A, B);
    EXPECT_TRUE(out.R.isApprox((A * B).R, 1e-14));
    EXPECT_TRUE(out.t.isApprox((A * B).t, 1e-14));
    out.setInverse(A);
    EXPECT_TRUE(out.R.isApprox(A.inverse().R, 1e-14));
    EXPECT_TRUE(out.t.isApprox(A.inverse().t, 1e-14));
    out.setInverseTimes(A, B);
    const SE3 expected = A.inverse() * B;
    EXPECT_TRUE(out.R.isApprox(expected.R, 1e-12));
    EXPECT_TRUE(out.t.isApprox(expected.t, 1e-12));
  }
}

TEST(Spatial, CrossProductsMatchFeatherstone) {
  std::mt19937 rng(2);
  const Motion a = randomMotion(rng), b = randomMotion(rng);
  const Force f(randomMotion(rng).toVector());
  Matrix6 crm = Matrix6::Zero();
  crm.topLeftCorner<3, 3>() = skew(a.w);
  crm.bottomLeftCorner<3, 3>() = skew(a.v);
  crm.bottomRightCorner<3, 3>() = skew(a.w);
  EXPECT_TRUE(a.cross(b).toVector().isApprox(crm * b.toVector(), 1e-12));
  const Matrix6 crf = -crm.transpose();
  EXPECT_TRUE(a.crossDual(f).toVector().isApprox(crf * f.toVector(), 1e-12));
}

TEST(Spatial, InertiaTransformAndSum) {
  std::mt19937 rng(3);
  const Inertia I(2.5, Vector3(0.1, -0.2, 0.3), Vector3(0.4, 0.5, 0.6).asDiagonal());
  const SE3 M = randomSE3(rng);
  const Motion m = randomMotion(rng);
  EXPECT_TRUE((I * m).toVector().isApprox(I.matrix() * m.toVector(), 1e-12));
  // I_a m_a = X* (I_b m_b)
  const Inertia Ia = I.transformed(M);
  EXPECT_TRUE((Ia * M.act(m)).toVector().isApprox(M.act(I * m).toVector(), 1e-12));
  // addTransformedInertia accumulates X* I X⁻¹ onto what is there.
  Matrix6 sum = I.matrix();
  addTransformedInertia(M, I.matrix(), sum);
  EXPECT_TRUE(sum.isApprox(I.matrix() + Ia.matrix(), 1e-12));
  const Inertia J(1.0, Vector3(-0.3, 0.0, 0.2), Matrix3::Identity() * 0.1);
  EXPECT_TRUE((I + J).matrix().isApprox(I.matrix() + J.matrix(), 1e-12));
}

// InertiaAtOrigin::assign (CRBA's per-body world inertia, six entries formed
// once) against Inertia's own transform and parallel-axis shift:
// R I_c Rᵀ + m(|c|²1 - c cᵀ), h = m c.
TEST(Spatial, InertiaAtOriginAssignMatchesTheParallelAxisForm) {
  std::mt19937 rng(11);
  std::normal_distribution<double> n(0.0, 1.0);
  for (int sample = 0; sample < 50; ++sample) {
    const Matrix3 A = Matrix3::NullaryExpr([&] { return n(rng); });
    const Inertia body(0.5 + std::abs(n(rng)), Vector3(n(rng), n(rng), n(rng)),
                       A * A.transpose() + 0.1 * Matrix3::Identity());
    SE3 X = randomSE3(rng);
    X.t *= 1.0 + 10.0 * (sample % 2);  // up to ~20 m from the origin
    const Inertia world = body.transformed(X);
    const Vector3& c = world.com;
    const Matrix3 expected = world.inertiaAtOrigin();
    InertiaAtOrigin Y;
    Y.I_o.setConstant(std::nan(""));  // every entry must be written
    Y.h.setConstant(std::nan(""));
    Y.assign(body, X);
    const double scale = expected.norm();
    EXPECT_EQ(Y.mass, body.mass);
    EXPECT_LE((Y.h - body.mass * c).norm(), 1e-14 * body.mass * c.norm()) << "sample " << sample;
    EXPECT_LE((Y.I_o - expected).norm(), 1e-14 * scale) << "sample " << sample;
    EXPECT_EQ(Y.I_o, Y.I_o.transpose()) << "sample " << sample;
  }
}

TEST(Spatial, Log3MatchesAngleAxisOnEveryBranch) {
  // log3's three forms: the series (θ < 1e-4), atan2 (cos θ > -0.9) and
  // AngleAxis near π; each against the rotation it was built from.
  std::mt19937 rng(5);
  std::normal_distribution<double> n(0.0, 1.0);
  for (const double theta : {0.0, 1e-12, 1e-8, 0.99e-4, 1.01e-4, 0.3, 1.5, 2.68, 2.70, 3.0, std::numbers::pi - 1e-6}) {
    for (int k = 0; k < 5; ++k) {
      const Vector3 axis = Vector3(n(rng), n(rng), n(rng)).normalized();
      const Matrix3 R = Eigen::AngleAxisd(theta, axis).toRotationMatrix();
      const double tolerance = theta > 3.0 ? 1e-9 : 1e-15;  // near π the axis is ill-conditioned in R
      EXPECT_LE((log3(R) - theta * axis).norm(), tolerance * std::max(1.0, theta)) << "theta " << theta;
    }
  }
}

TEST(Spatial, ExpLogRoundTrip) {
  std::mt19937 rng(4);
  for (int k = 0; k < 20; ++k) {
    Motion nu = randomMotion(rng);
    if (nu.w.norm() > 3.0) nu.w *= 3.0 / nu.w.norm();  // log is unique only for angles below pi
    EXPECT_TRUE(log6(exp6(nu)).toVector().isApprox(nu.toVector(), 1e-9)) << nu.toVector().transpose();
    const Motion tiny = nu * 1e-7;
    EXPECT_TRUE(log6(exp6(tiny)).toVector().isApprox(tiny.toVector(), 1e-9));
  }
}
