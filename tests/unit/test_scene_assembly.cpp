// ModelAssembly: several models and free bodies in one forest, with
// prefixes, base poses and base modes; joint properties, frames and visuals kept.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/generators.hpp>
#include <loopsim/scene/model_assembly.hpp>
#include <loopsim/scene/rigid_shapes.hpp>

namespace loopsim {
namespace {

SE3 somePose() {
  return SE3(Eigen::AngleAxisd(0.7, Vector3(1, 2, 3).normalized()).toRotationMatrix(), Vector3(0.5, -1.0, 2.0));
}

SE3 frameInWorld(const Model& m, const VectorX& q, const std::string& frame) {
  Data data(m);
  forwardKinematics(m, data, q);
  const Frame& f = m.frames[m.existingFrame(frame)];
  return data.oMi[f.body] * f.placement;
}

TEST(ModelAssembly, TwoPrefixedFourBarsKeepTheirDynamicsAndClosure) {
  const GeneratedMechanism fb = fourBar();
  ModelAssembly assembly("two_four_bars");
  const AppendedModel left = assembly.append(fb.model, {"left_", SE3::Identity(), BaseMode::Keep, {}}, fb.q0);
  const AppendedModel right = assembly.append(fb.model, {"right_", somePose(), BaseMode::Keep, {}}, fb.q0);
  std::vector<Constraint> constraints;
  for (const auto* where : {&left, &right}) {
    for (const Constraint& c : fb.constraints) constraints.push_back(remapConstraint(c, *where));
  }
  const ModelAssembly::Result r = std::move(assembly).build();
  const Model& m = r.model;
  EXPECT_EQ(m.nq, 6);
  EXPECT_EQ(m.nbodies(), 7);
  EXPECT_GE(m.jointId("left_crank_joint"), 1);
  EXPECT_GE(m.jointId("right_rocker_joint"), 1);
  EXPECT_EQ(constraints[1].name, "right_loop");
  EXPECT_EQ(m.visuals.size(), 2 * fb.model.visuals.size());
  EXPECT_EQ(r.q0.head(3), fb.q0);
  EXPECT_EQ(r.q0.tail(3), fb.q0);

  // Frames: the right copy is the source moved by the base pose.
  const SE3 source_tip = frameInWorld(fb.model, fb.q0, "coupler_tip");
  EXPECT_TRUE(frameInWorld(m, r.q0, "left_coupler_tip").isApprox(source_tip, 1e-12));
  EXPECT_TRUE(frameInWorld(m, r.q0, "right_coupler_tip").isApprox(somePose() * source_tip, 1e-12));

  // Loops still close, and a rigid base pose leaves the mass matrix unchanged.
  const ConstraintSet set(m, constraints);
  Data data(m);
  ConstraintData cd(set);
  computeConstraintTerms(set, data, r.q0, VectorX::Zero(m.nv), cd);
  EXPECT_LT(cd.phi.lpNorm<Eigen::Infinity>(), 1e-12);
  Data source_data(fb.model);
  const MatrixX M_source = crba(fb.model, source_data, fb.q0);
  const MatrixX M = crba(m, data, r.q0);
  EXPECT_TRUE(M.topLeftCorner(3, 3).isApprox(M_source, 1e-12));
  EXPECT_TRUE(M.bottomRightCorner(3, 3).isApprox(M_source, 1e-12));
  EXPECT_LT(M.topRightCorner(3, 3).norm(), 1e-15);  // two separate trees
}

TEST(ModelAssembly, FloatingRootStaysFloatingWithItsWorldPoseInQ) {
  const GeneratedMechanism h = humanoidTree({0.4, false});
  ModelAssembly assembly("h");
  assembly.append(h.model, {"a_", somePose(), BaseMode::Keep, {}}, h.q0);
  const ModelAssembly::Result r = std::move(assembly).build();
  EXPECT_EQ(r.model.nq, 37);
  EXPECT_TRUE(r.model.isFloatingBase());
  EXPECT_TRUE(r.model.joint_placements[1].isApprox(SE3::Identity()));
  const SE3 pelvis = somePose() * SE3(Matrix3::Identity(), h.q0.head<3>());
  EXPECT_TRUE(r.q0.head<3>().isApprox(pelvis.t, 1e-12));
  EXPECT_TRUE(frameInWorld(r.model, r.q0, "a_left_foot").isApprox(somePose() * frameInWorld(h.model, h.q0, "left_foot"),
                                                                   1e-12));
  // Joint properties survive: limits, effort and velocity limits.
  const int knee = r.model.jointId("a_left_knee");
  const int source_knee = h.model.jointId("left_knee");
  EXPECT_EQ(r.model.upper_position_limit[r.model.idx_q[knee]], h.model.upper_position_limit[h.model.idx_q[source_knee]]);
  EXPECT_EQ(r.model.effort_limit[r.model.idx_v[knee]], 300.0);
  EXPECT_DOUBLE_EQ(r.model.totalMass(), h.model.totalMass());
}

TEST(ModelAssembly, FixedBaseMergesAFloatingRootIntoTheWorld) {
  const GeneratedMechanism h = humanoidTree({0.4, false});
  ModelAssembly assembly("h");
  const AppendedModel where = assembly.append(h.model, {"", somePose(), BaseMode::Fixed, {}}, h.q0);
  const ModelAssembly::Result r = std::move(assembly).build();
  EXPECT_EQ(r.model.nq, 30);
  EXPECT_EQ(r.model.nv, 30);
  EXPECT_EQ(where.bodies[1].body, 0);
  EXPECT_EQ(where.joints[1], -1);
  EXPECT_NEAR(r.model.totalMass(), h.model.totalMass() - 10.0, 1e-9);  // the pelvis is now the world
  // The pelvis is a world frame where it stood; the feet are where they were.
  EXPECT_TRUE(frameInWorld(r.model, r.q0, "pelvis").isApprox(somePose() * frameInWorld(h.model, h.q0, "pelvis"), 1e-12));
  EXPECT_TRUE(
      frameInWorld(r.model, r.q0, "right_foot").isApprox(somePose() * frameInWorld(h.model, h.q0, "right_foot"), 1e-12));
}

TEST(ModelAssembly, FloatingBaseForAFixedModelNeedsABaseBody) {
  const GeneratedMechanism fb = fourBar();
  {
    ModelAssembly assembly("x");
    EXPECT_THROW(assembly.append(fb.model, {"", SE3::Identity(), BaseMode::Floating, {}}, fb.q0), ModelError);
  }
  ModelAssembly assembly("x");
  const RigidShape base{VisualGeometry::Shape::Box, Vector3(0.2, 0.2, 0.1), 3.0, {}};
  const AppendedModel where = assembly.append(fb.model, {"p_", somePose(), BaseMode::Floating, base}, fb.q0);
  const Constraint loop = remapConstraint(fb.constraints[0], where);
  const ModelAssembly::Result r = std::move(assembly).build();
  EXPECT_EQ(r.model.nq, 10);
  EXPECT_TRUE(r.model.isFloatingBase());
  EXPECT_EQ(r.model.body_names[1], "p_floating_base");
  EXPECT_NEAR(r.model.totalMass(), fb.model.totalMass() + 3.0, 1e-12);
  EXPECT_TRUE(frameInWorld(r.model, r.q0, "p_rocker_tip").isApprox(somePose() * frameInWorld(fb.model, fb.q0, "rocker_tip"),
                                                                    1e-12));
  const ConstraintSet set(r.model, {loop});
  Data data(r.model);
  ConstraintData cd(set);
  computeConstraintTerms(set, data, r.q0, VectorX::Zero(r.model.nv), cd);
  EXPECT_LT(cd.phi.lpNorm<Eigen::Infinity>(), 1e-12);
}

TEST(ModelAssembly, FreeBodiesHaveTheirShapeInertiaAndVisual) {
  ModelAssembly assembly("bodies");
  const int box = assembly.addFreeBody("box", {VisualGeometry::Shape::Box, Vector3(0.1, 0.2, 0.3), 6.0, {}}, somePose());
  const int ball = assembly.addFreeBody("ball", {VisualGeometry::Shape::Sphere, Vector3(0.5, 0, 0), 2.0, {}}, SE3());
  const int can = assembly.addFreeBody("can", {VisualGeometry::Shape::Cylinder, Vector3(0.1, 0.4, 0), 3.0, {}}, SE3());
  const ModelAssembly::Result r = std::move(assembly).build();
  const Model& m = r.model;
  EXPECT_EQ(m.nq, 21);
  EXPECT_EQ(m.jointId("box_joint"), box);
  EXPECT_EQ(m.joint_types[box], JointType::Floating);
  EXPECT_TRUE(m.body_inertias[box].inertia_com.diagonal().isApprox(
      6.0 / 12.0 * Vector3(0.04 + 0.09, 0.01 + 0.09, 0.01 + 0.04), 1e-14));
  EXPECT_TRUE(m.body_inertias[ball].inertia_com.diagonal().isApprox(Vector3::Constant(0.4 * 2.0 * 0.25), 1e-14));
  EXPECT_TRUE(m.body_inertias[can].inertia_com.diagonal().isApprox(
      Vector3(3.0 * (0.03 + 0.16) / 12.0, 3.0 * (0.03 + 0.16) / 12.0, 0.5 * 3.0 * 0.01), 1e-14));
  EXPECT_EQ(m.visuals.size(), 3u);
  EXPECT_TRUE(frameInWorld(m, r.q0, "box").isApprox(somePose(), 1e-12));
  ModelAssembly bad("bad");
  EXPECT_THROW(bad.addFreeBody("b", {VisualGeometry::Shape::Box, Vector3(0.1, 0.1, 0.1), 0.0, {}}, SE3()), ModelError);
}

TEST(ModelAssembly, ACapsulesInertiaIsTheIntegralOverItsVolume) {
  // Midpoint rule on a grid over the capsule's bounding box (r 0.1, cylinder 0.3, 2 kg).
  const double r = 0.1, h = 0.3, mass = 2.0;
  const Inertia capsule = shapeInertia({VisualGeometry::Shape::Capsule, Vector3(r, h, 0), mass, {}}, "capsule");
  const int n = 160;
  const Vector3 half(r, r, 0.5 * h + r);
  const Vector3 cell = 2.0 * half / n;
  Vector3 second_moment = Vector3::Zero();  // Σ x², y², z² over the cells inside
  long inside = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        const Vector3 p = -half + cell.cwiseProduct(Vector3(i + 0.5, j + 0.5, k + 0.5));
        const double axial = std::max(0.0, std::abs(p.z()) - 0.5 * h);  // beyond the cylinder: a cap
        if (p.x() * p.x() + p.y() * p.y() + axial * axial > r * r) continue;
        second_moment += p.cwiseAbs2();
        ++inside;
      }
  const Vector3 s = mass * second_moment / static_cast<double>(inside);
  const Vector3 expected(s.y() + s.z(), s.x() + s.z(), s.x() + s.y());
  EXPECT_TRUE(capsule.inertia_com.isDiagonal(1e-15));
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(capsule.inertia_com(a, a), expected[a], 2e-3 * expected[a]) << a;
  // Without a cylinder part it is a sphere; sizes must be positive.
  EXPECT_THROW(shapeInertia({VisualGeometry::Shape::Capsule, Vector3(r, 0, 0), mass, {}}, "capsule"), ModelError);
}

TEST(ModelAssembly, CopiesPerDofJointProperties) {
  ModelBuilder b("props");
  JointSpec spec;
  spec.axis = Vector3::UnitY();
  spec.lower = -0.5;
  spec.upper = 1.5;
  spec.damping = 0.3;
  spec.armature = 0.02;
  spec.stiffness = 12.0;
  spec.spring_reference = 0.25;
  spec.velocity_limit = 4.0;
  spec.effort_limit = 40.0;
  const int body = b.addBody(0, "j", spec, SE3(), Inertia(1.0, Vector3(0, 0, -0.5), Matrix3::Identity() * 0.01), "link");
  b.addFrame("site", body, SE3(Matrix3::Identity(), Vector3(0, 0, -1)));
  const Model source = std::move(b).build();
  ModelAssembly assembly("a");
  assembly.append(source, {"x_", somePose(), BaseMode::Keep, {}});
  const Model m = std::move(assembly).build().model;
  const int j = m.jointId("x_j");
  ASSERT_EQ(j, 1);
  EXPECT_EQ(m.lower_position_limit[0], -0.5);
  EXPECT_EQ(m.upper_position_limit[0], 1.5);
  EXPECT_EQ(m.damping[0], 0.3);
  EXPECT_EQ(m.armature[0], 0.02);
  EXPECT_EQ(m.stiffness[0], 12.0);
  EXPECT_EQ(m.spring_reference[0], 0.25);
  EXPECT_EQ(m.velocity_limit[0], 4.0);
  EXPECT_EQ(m.effort_limit[0], 40.0);
  EXPECT_TRUE(m.joint_placements[1].isApprox(somePose()));
  EXPECT_GE(m.frameId("x_site"), 0);
  EXPECT_GE(m.frameId("x_link"), 0);
}

}  // namespace
}  // namespace loopsim
