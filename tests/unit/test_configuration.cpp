// The configuration manifold: integrate / difference, normalize, neutral and
// random configurations.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include "test_models.hpp"

using namespace loopsim;

namespace {

VectorX randomVector(std::mt19937& rng, int n, double scale) {
  std::normal_distribution<double> g(0.0, scale);
  return VectorX::NullaryExpr(n, [&](Eigen::Index) { return g(rng); });
}

Quaternion quaternionAt(const VectorX& q, int iq) { return Quaternion(q[iq + 3], q[iq], q[iq + 1], q[iq + 2]); }

// Configurations are equal when 1-dof coordinates and positions agree and
// quaternions agree up to sign.
double configurationDistance(const Model& model, const VectorX& a, const VectorX& b) {
  double worst = 0.0;
  for (int i = 1; i < model.nbodies(); ++i) {
    const int iq = model.idx_q[i];
    switch (model.joint_types[i]) {
      case JointType::Revolute:
      case JointType::Prismatic: worst = std::max(worst, std::abs(a[iq] - b[iq])); break;
      case JointType::Spherical:
        worst = std::max(worst, quaternionAt(a, iq).angularDistance(quaternionAt(b, iq)));
        break;
      case JointType::Floating:
        worst = std::max(worst, (a.segment<3>(iq) - b.segment<3>(iq)).norm());
        worst = std::max(worst, quaternionAt(a, iq + 3).angularDistance(quaternionAt(b, iq + 3)));
        break;
    }
  }
  return worst;
}

std::vector<Model> models() { return {test::fixedChain7(), test::branchingTree(), test::floatingHumanoid()}; }

}  // namespace

TEST(Configuration, IntegrateDifferenceRoundTrip) {
  std::mt19937 rng(301);
  for (const Model& model : models()) {
    for (int s = 0; s < 20; ++s) {
      const VectorX q0 = randomConfiguration(model, rng);
      // Rotation vectors below π so the displacement is the principal logarithm.
      const VectorX v = randomVector(rng, model.nv, 0.5);
      VectorX q1(model.nq), v_back(model.nv), q_back(model.nq);
      integrate(model, q0, v, 1.0, q1);
      difference(model, q0, q1, v_back);
      EXPECT_LT((v_back - v).norm(), 1e-12 * std::max(1.0, v.norm())) << model.name;
      // And the other way round, between two random configurations.
      const VectorX q2 = randomConfiguration(model, rng);
      difference(model, q0, q2, v_back);
      integrate(model, q0, v_back, 1.0, q_back);
      EXPECT_LT(configurationDistance(model, q_back, q2), 1e-12) << model.name;
      // difference(q, q) = 0.
      difference(model, q2, q2, v_back);
      EXPECT_LT(v_back.norm(), 1e-14) << model.name;
    }
  }
}

TEST(Configuration, IntegrateIsExactOnSO3AndSE3AndMayAlias) {
  const Model model = test::floatingHumanoid();
  std::mt19937 rng(302);
  const VectorX q = randomConfiguration(model, rng);
  const VectorX v = randomVector(rng, model.nv, 1.0);
  const double dt = 0.7;
  VectorX q_next = q;
  integrate(model, q_next, v, dt, q_next);  // in place
  // Floating base: (R, p)' = (R, p) exp6(dt [ω; v]).
  const SE3 before(quaternionAt(q, 3).toRotationMatrix(), q.head<3>());
  const SE3 expected = before * exp6(Motion(dt * v.head<3>(), dt * v.segment<3>(3)));
  const SE3 after(quaternionAt(q_next, 3).toRotationMatrix(), q_next.head<3>());
  EXPECT_TRUE(after.isApprox(expected, 1e-12));
  EXPECT_NEAR(q_next.segment<4>(3).norm(), 1.0, 1e-15);
  // Revolute coordinates: q + dt v.
  EXPECT_LT((q_next.tail(model.nq - 7) - (q.tail(model.nq - 7) + dt * v.tail(model.nv - 6))).norm(), 1e-14);

  // Spherical joint: R' = R exp3(dt ω) with ω in the child frame.
  const Model tree = test::branchingTree();
  const int ball = tree.jointId("ball_b");
  const VectorX qt = randomConfiguration(tree, rng);
  const VectorX vt = randomVector(rng, tree.nv, 1.0);
  VectorX qt_next(tree.nq);
  integrate(tree, qt, vt, dt, qt_next);
  const Matrix3 R_expected = quaternionAt(qt, tree.idx_q[ball]).toRotationMatrix() *
                             exp3(dt * vt.segment<3>(tree.idx_v[ball]));
  EXPECT_TRUE(quaternionAt(qt_next, tree.idx_q[ball]).toRotationMatrix().isApprox(R_expected, 1e-12));
}

TEST(Configuration, IntegratedVelocityIsTheBodyVelocity) {
  // Moving along q ⊕ t v for small t displaces each body by its body twist
  // from forwardKinematics(q, v): links configuration and velocity conventions.
  const Model model = test::floatingHumanoid();
  Data data(model);
  std::mt19937 rng(303);
  const VectorX q = randomConfiguration(model, rng);
  const VectorX v = randomVector(rng, model.nv, 1.0);
  const double eps = 1e-7;
  VectorX q_eps(model.nq);
  integrate(model, q, v, eps, q_eps);
  forwardKinematics(model, data, q_eps);
  const std::vector<SE3> moved = data.oMi;
  forwardKinematics(model, data, q, v);
  for (int i = 1; i < model.nbodies(); ++i) {
    const Vector6 fd = log6(data.oMi[i].inverse() * moved[i]).toVector() / eps;
    EXPECT_LT((fd - data.v[i].toVector()).norm(), 1e-5 * std::max(1.0, fd.norm())) << model.body_names[i];
  }
}

TEST(Configuration, NormalizeFixesQuaternionsOnly) {
  const Model model = test::branchingTree();
  std::mt19937 rng(304);
  VectorX q = randomConfiguration(model, rng);
  const VectorX original = q;
  for (int i = 1; i < model.nbodies(); ++i) {
    if (model.joint_types[i] == JointType::Spherical) q.segment<4>(model.idx_q[i]) *= 1.7;
  }
  normalize(model, q);
  EXPECT_LT((q - original).norm(), 1e-15);
  VectorX qh = randomConfiguration(test::floatingHumanoid(), rng);
  const VectorX qh_original = qh;
  qh.segment<4>(3) *= 0.3;
  normalize(test::floatingHumanoid(), qh);
  EXPECT_LT((qh - qh_original).norm(), 1e-15);
}

TEST(Configuration, NeutralAndRandomConfigurations) {
  std::mt19937 rng(305);
  for (const Model& model : models()) {
    const VectorX q0 = neutral(model);
    ASSERT_EQ(q0.size(), model.nq);
    for (int i = 1; i < model.nbodies(); ++i) {
      const int iq = model.idx_q[i];
      switch (model.joint_types[i]) {
        case JointType::Revolute:
        case JointType::Prismatic: EXPECT_EQ(q0[iq], 0.0); break;
        case JointType::Spherical: EXPECT_EQ(q0.segment<4>(iq), Vector4(0, 0, 0, 1)); break;
        case JointType::Floating:
          EXPECT_EQ(q0.segment<3>(iq), Vector3::Zero());
          EXPECT_EQ(q0.segment<4>(iq + 3), Vector4(0, 0, 0, 1));
          break;
      }
    }
    for (int s = 0; s < 200; ++s) {
      const VectorX q = randomConfiguration(model, rng);
      for (int i = 1; i < model.nbodies(); ++i) {
        const int iq = model.idx_q[i];
        switch (model.joint_types[i]) {
          case JointType::Revolute:
          case JointType::Prismatic: {
            const double lo = model.lower_position_limit[iq], hi = model.upper_position_limit[iq];
            EXPECT_GE(q[iq], std::isfinite(lo) ? lo : -M_PI);
            EXPECT_LE(q[iq], std::isfinite(hi) ? hi : M_PI);
            break;
          }
          case JointType::Spherical: EXPECT_NEAR(q.segment<4>(iq).norm(), 1.0, 1e-14); break;
          case JointType::Floating:
            EXPECT_LE(q.segment<3>(iq).cwiseAbs().maxCoeff(), 1.0);
            EXPECT_NEAR(q.segment<4>(iq + 3).norm(), 1.0, 1e-14);
            break;
        }
      }
    }
  }
  // Samples spread over the range (not stuck at a bound or the neutral value).
  const Model chain = test::fixedChain7();
  double lo = 1e9, hi = -1e9;
  for (int s = 0; s < 200; ++s) {
    const double x = randomConfiguration(chain, rng)[1];  // j2: unlimited
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_LT(lo, -2.5);
  EXPECT_GT(hi, 2.5);
}
