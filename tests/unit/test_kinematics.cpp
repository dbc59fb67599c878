// Frame Jacobians, velocities and accelerations against finite differences of
// forward kinematics along q(t) = q ⊕ (t v + ½ t² a).
#include <gtest/gtest.h>

#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/jacobians.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include "test_models.hpp"

using namespace loopsim;

namespace {

VectorX randomVector(std::mt19937& rng, int n) {
  std::normal_distribution<double> g(0.0, 1.0);
  return VectorX::NullaryExpr(n, [&](Eigen::Index) { return g(rng); });
}

Vector6 vec(const Motion& m) { return m.toVector(); }

// q(t) = q ⊕ (t v + ½ t² a) and v(t) = v + t a: the configuration path with
// initial velocity v and acceleration a, to O(t²) in the velocity, an even
// error that cancels in central differences.
struct Path {
  const Model& model;
  VectorX q, v, a;
  VectorX qAt(double t) const {
    VectorX out(model.nq);
    integrate(model, q, t * v + 0.5 * t * t * a, 1.0, out);
    return out;
  }
  VectorX vAt(double t) const { return v + t * a; }
};

const char* name(ReferenceFrame rf) {
  switch (rf) {
    case ReferenceFrame::Local: return "Local";
    case ReferenceFrame::LocalWorldAligned: return "LocalWorldAligned";
    case ReferenceFrame::World: return "World";
  }
  return "?";
}

// The frame's motion over [-eps, eps] by finite differences of placements,
// in convention rf.
Vector6 finiteDifferenceVelocity(const Model& model, Data& data, const Path& path, int frame, ReferenceFrame rf,
                                 double eps) {
  forwardKinematics(model, data, path.qAt(eps));
  const SE3 plus = framePlacement(model, data, frame);
  forwardKinematics(model, data, path.qAt(-eps));
  const SE3 minus = framePlacement(model, data, frame);
  forwardKinematics(model, data, path.q);
  const SE3 now = framePlacement(model, data, frame);
  switch (rf) {
    case ReferenceFrame::Local:  // oMf(t) = oMf(0) exp(t ξ_body)
      return (vec(log6(now.inverse() * plus)) - vec(log6(now.inverse() * minus))) / (2 * eps);
    case ReferenceFrame::World:  // oMf(t) = exp(t ξ_spatial) oMf(0)
      return (vec(log6(plus * now.inverse())) - vec(log6(minus * now.inverse()))) / (2 * eps);
    case ReferenceFrame::LocalWorldAligned: {
      Vector6 out;
      out << now.R * (log3(now.R.transpose() * plus.R) - log3(now.R.transpose() * minus.R)) / (2 * eps),
          (plus.t - minus.t) / (2 * eps);
      return out;
    }
  }
  return Vector6::Zero();
}

Vector6 velocityAt(const Model& model, Data& data, const Path& path, double t, int frame, ReferenceFrame rf) {
  forwardKinematics(model, data, path.qAt(t), path.vAt(t));
  return vec(frameVelocity(model, data, frame, rf));
}

struct Case {
  const char* name;
  Model model;
};

std::vector<Case> models() {
  return {{"chain7", test::fixedChain7()}, {"branching_tree", test::branchingTree()},
          {"humanoid", test::floatingHumanoid()}};
}

constexpr ReferenceFrame kAll[] = {ReferenceFrame::Local, ReferenceFrame::LocalWorldAligned, ReferenceFrame::World};

}  // namespace

TEST(Kinematics, FrameJacobiansMatchFiniteDifferencesAndFrameVelocity) {
  std::mt19937 rng(201);
  for (auto& [model_name, model] : models()) {
    Data data(model);
    Matrix6X J(6, model.nv);
    for (int sample = 0; sample < 3; ++sample) {
      const Path path{model, randomConfiguration(model, rng), randomVector(rng, model.nv), VectorX::Zero(model.nv)};
      for (int frame = 1; frame < static_cast<int>(model.frames.size()); ++frame) {
        for (const ReferenceFrame rf : kAll) {
          const Vector6 fd = finiteDifferenceVelocity(model, data, path, frame, rf, 1e-6);
          forwardKinematics(model, data, path.q, path.v);
          frameJacobian(model, data, frame, rf, J);
          const Vector6 Jv = J * path.v;
          EXPECT_LT((Jv - fd).norm(), 1e-7 * std::max(1.0, fd.norm()))
              << model_name << " frame " << model.frames[frame].name << " " << name(rf);
          EXPECT_LT((Jv - vec(frameVelocity(model, data, frame, rf))).norm(), 1e-12 * std::max(1.0, Jv.norm()))
              << model_name << " frame " << model.frames[frame].name << " " << name(rf);
        }
      }
    }
  }
}

TEST(Kinematics, JacobianColumnsOutsideTheSupportAreZero) {
  const Model model = test::floatingHumanoid();
  Data data(model);
  std::mt19937 rng(202);
  forwardKinematics(model, data, randomConfiguration(model, rng));
  Matrix6X J(6, model.nv);
  const int hand = model.existingFrame("left_hand");
  frameJacobian(model, data, hand, ReferenceFrame::World, J);
  for (int k = 0; k < model.nv; ++k) {
    bool in_support = false;
    for (int j = model.frames[hand].body; j > 0; j = model.parent[j]) in_support |= model.dof_joint[k] == j;
    if (in_support) {
      EXPECT_GT(J.col(k).norm(), 0.0) << "dof " << k;
    } else {
      EXPECT_EQ(J.col(k).norm(), 0.0) << "dof " << k;
    }
  }
}

TEST(Kinematics, FrameAccelerationsMatchFiniteDifferencesOfVelocities) {
  std::mt19937 rng(203);
  const double eps = 1e-5;
  for (auto& [model_name, model] : models()) {
    Data data(model);
    for (int sample = 0; sample < 3; ++sample) {
      const Path path{model, randomConfiguration(model, rng), randomVector(rng, model.nv),
                      randomVector(rng, model.nv)};
      for (int frame = 1; frame < static_cast<int>(model.frames.size()); ++frame) {
        const std::string where = std::string(model_name) + " frame " + model.frames[frame].name;
        auto derivative = [&](ReferenceFrame rf) {
          return Vector6((velocityAt(model, data, path, eps, frame, rf) - velocityAt(model, data, path, -eps, frame, rf)) /
                         (2 * eps));
        };
        const Vector6 d_local = derivative(ReferenceFrame::Local);
        const Vector6 d_world = derivative(ReferenceFrame::World);
        const Vector6 d_aligned = derivative(ReferenceFrame::LocalWorldAligned);
        forwardKinematics(model, data, path.q, path.v, path.a);
        const Matrix3 oRf = framePlacement(model, data, frame).R;
        auto tol = [](const Vector6& x) { return 1e-6 * std::max(1.0, x.norm()); };
        // Spatial acceleration: the derivative of the body twist (Local) and of the spatial twist (World).
        const Vector6 acc_local = vec(frameAcceleration(model, data, frame, ReferenceFrame::Local));
        EXPECT_LT((acc_local - d_local).norm(), tol(d_local)) << where;
        const Vector6 acc_world = vec(frameAcceleration(model, data, frame, ReferenceFrame::World));
        EXPECT_LT((acc_world - d_world).norm(), tol(d_world)) << where;
        const Vector6 acc_aligned = vec(frameAcceleration(model, data, frame, ReferenceFrame::LocalWorldAligned));
        // Fixed-size segments, not a comma initialiser of products: GCC 12 at
        // -march=x86-64-v3 flags the latter's AVX loads (-Warray-bounds false positive).
        Vector6 rotated_local;
        rotated_local.head<3>() = oRf * acc_local.head<3>();
        rotated_local.tail<3>() = oRf * acc_local.tail<3>();
        EXPECT_LT((acc_aligned - rotated_local).norm(), 1e-12 * std::max(1.0, acc_aligned.norm())) << where;
        // Classical acceleration: the derivative of [ω; ṗ] in world axes; in Local axes, rotated back.
        const Vector6 classical_aligned =
            vec(frameClassicalAcceleration(model, data, frame, ReferenceFrame::LocalWorldAligned));
        EXPECT_LT((classical_aligned - d_aligned).norm(), tol(d_aligned)) << where;
        const Vector6 classical_local = vec(frameClassicalAcceleration(model, data, frame, ReferenceFrame::Local));
        Vector6 expected_local;
        expected_local.head<3>() = oRf.transpose() * d_aligned.head<3>();
        expected_local.tail<3>() = oRf.transpose() * d_aligned.tail<3>();
        EXPECT_LT((classical_local - expected_local).norm(), tol(d_aligned)) << where;
      }
    }
    // The classical and spatial linear accelerations differ when the frame rotates and translates.
    const Path path{model, randomConfiguration(model, rng), randomVector(rng, model.nv), randomVector(rng, model.nv)};
    forwardKinematics(model, data, path.q, path.v, path.a);
    const int last = static_cast<int>(model.frames.size()) - 1;
    EXPECT_GT((frameClassicalAcceleration(model, data, last, ReferenceFrame::Local).v -
               frameAcceleration(model, data, last, ReferenceFrame::Local).v)
                  .norm(),
              1e-3)
        << model_name;
    EXPECT_THROW(frameClassicalAcceleration(model, data, last, ReferenceFrame::World), std::invalid_argument);
  }
}

TEST(Kinematics, FramePlacementsComposeJointPlacements) {
  const Model model = test::branchingTree();
  Data data(model);
  std::mt19937 rng(204);
  const VectorX q = randomConfiguration(model, rng);
  forwardKinematics(model, data, q);
  updateFramePlacements(model, data);
  for (int f = 0; f < static_cast<int>(model.frames.size()); ++f) {
    const SE3 expected = data.oMi[model.frames[f].body] * model.frames[f].placement;
    EXPECT_TRUE(data.oMf[f].isApprox(expected, 1e-14)) << model.frames[f].name;
    EXPECT_TRUE(framePlacement(model, data, f).isApprox(expected, 1e-14)) << model.frames[f].name;
  }
  // At the neutral configuration every body sits at the product of its joint placements.
  forwardKinematics(model, data, neutral(model));
  for (int i = 1; i < model.nbodies(); ++i) {
    const SE3 expected = data.oMi[model.parent[i]] * model.joint_placements[i];
    EXPECT_TRUE(data.oMi[i].isApprox(expected, 1e-14)) << model.body_names[i];
  }
  // A revolute joint rotates about its axis: the axis is fixed by liMi's rotation part.
  const int j = model.jointId("elbow_a");
  forwardKinematics(model, data, q);
  const Vector3 axis_in_parent = model.joint_placements[j].R * model.joint_axes[j];
  EXPECT_TRUE((data.liMi[j].R * model.joint_axes[j]).isApprox(axis_in_parent, 1e-14));
}

TEST(Kinematics, BodyPlacementEqualsTheForwardKinematicsPlacement) {
  // Floating base, spherical and revolute joints: every body, bit for bit the same product.
  const Model model = test::floatingHumanoid();
  Data data(model);
  std::mt19937 rng(205);
  const VectorX q = randomConfiguration(model, rng);
  forwardKinematics(model, data, q);
  for (int i = 0; i < model.nbodies(); ++i) {
    EXPECT_TRUE(bodyPlacement(model, q, i).isApprox(data.oMi[i], 1e-14)) << model.body_names[i];
  }
  EXPECT_THROW(bodyPlacement(model, q, model.nbodies()), std::invalid_argument);
  EXPECT_THROW(bodyPlacement(model, VectorX::Zero(model.nq + 1), 1), std::invalid_argument);
}
