// A model file simulated on its own (`loopsim run MODEL`, `loopsim gui MODEL`):
// a floating-base model is put just above a ground plane at z = 0 (its lowest
// collision geometry 5 mm up) and comes to rest on it; a fixed-base one, or --no-ground, gets none.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/collision/shape_extent.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/scene/model_scene.hpp>
#include <loopsim/sim/simulation.hpp>

#include "model_error_message.hpp"
#include "quiet_log.hpp"

namespace loopsim {
namespace {

const std::filesystem::path kGo1 = std::filesystem::path(LOOPSIM_ASSETS_DIR) / "robots/go1/go1.urdf";

double lowestGeometry(const Scene& scene, const VectorX& q) {
  Data data(*scene.model);
  forwardKinematics(*scene.model, data, q);
  return lowestBodyGeometryHeight(*scene.geometry, data.oMi);
}

TEST(ShapeExtent, LowestPointOfEachShapeInClosedForm) {
  // Turned about x by 90° and lifted by 1: local y points up, local z along -y.
  const SE3 turned(Eigen::AngleAxisd(M_PI / 2, Vector3::UnitX()).toRotationMatrix(), Vector3(0, 0, 1));
  const Vector3 up = Vector3::UnitZ();
  EXPECT_NEAR(lowestAlong(Geometry::sphere("s", 1, SE3(), 0.2), turned, up), 0.8, 1e-15);
  // Box 0.2 x 0.4 x 0.6 turned: its local y (0.4) points along world z.
  EXPECT_NEAR(lowestAlong(Geometry::box("b", 1, SE3(), Vector3(0.2, 0.4, 0.6)), turned, up), 0.8, 1e-15);
  // Cylinder and capsule lying on their side (axis horizontal): the radius decides.
  EXPECT_NEAR(lowestAlong(Geometry::cylinder("c", 1, SE3(), 0.1, 1.0), turned, up), 0.9, 1e-15);
  EXPECT_NEAR(lowestAlong(Geometry::capsule("k", 1, SE3(), 0.1, 1.0), turned, up), 0.9, 1e-15);
  // Upright (identity): the half length adds.
  EXPECT_NEAR(lowestAlong(Geometry::cylinder("c", 1, SE3(), 0.1, 1.0), SE3(), up), -0.5, 1e-15);
  EXPECT_NEAR(lowestAlong(Geometry::capsule("k", 1, SE3(), 0.1, 1.0), SE3(), up), -0.6, 1e-15);
  // A tilted cylinder: the rim point, brute-forced over the rim.
  const SE3 tilted(Eigen::AngleAxisd(0.7, Vector3(1, 2, 0).normalized()).toRotationMatrix(), Vector3(0.3, 0, 2));
  const Geometry cylinder = Geometry::cylinder("c", 1, SE3(), 0.25, 0.8);
  double brute = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 100000; ++k) {
    const double a = 2 * M_PI * k / 100000.0;
    for (const double end : {-0.4, 0.4}) {
      brute = std::min(brute, tilted.actPoint(Vector3(0.25 * std::cos(a), 0.25 * std::sin(a), end)).z());
    }
  }
  EXPECT_NEAR(lowestAlong(cylinder, tilted, up), brute, 1e-9);
  EXPECT_LE(lowestAlong(cylinder, tilted, up), brute);
  // A convex hull: its lowest vertex.
  const Geometry hull = Geometry::convex("h", 1, SE3(), {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, -2}});
  EXPECT_NEAR(lowestAlong(hull, SE3(), up), -2.0, 1e-15);
}

TEST(ModelScene, AFloatingGo1GetsAGroundUnderItsFeetAndComesToRestOnIt) {
  test::QuietLog quiet;
  const ModelScene one = loadModelScene(kGo1, ModelFormat::urdf, {.floating_base = true});
  ASSERT_TRUE(one.lift.has_value()) << one.ground_note;
  EXPECT_NE(one.text.find("base: floating"), std::string::npos);
  EXPECT_NE(one.text.find("ground: {height: 0}"), std::string::npos);
  // The lowest collision geometry starts kGroundGap above the ground at z = 0, the
  // URDF's feet having hung below the base at the origin.
  EXPECT_NEAR(lowestGeometry(one.scene, one.scene.q0), kGroundGap, 1e-12);
  EXPECT_GT(*one.lift, 0.3);

  // No controller: the legs fold and the trunk comes down on the ground; nothing
  // passes through it and the robot comes to rest.
  Scene scene = one.scene;
  Simulation sim(scene);
  for (int k = 0; k < 3000; ++k) ASSERT_TRUE(sim.step()) << "t = " << sim.time();
  const double lowest = lowestGeometry(scene, sim.q());
  std::printf("go1 opened directly: moved up %.4f m, lowest geometry after 3 s %.5f m, |v| %.2e\n", *one.lift,
              lowest, sim.v().norm());
  EXPECT_GT(lowest, -2e-3);  // on the ground within the slop
  EXPECT_LT(lowest, 2e-3);
  EXPECT_LT(sim.v().norm(), 1e-2);
}

TEST(ModelScene, NoGroundForAFixedBaseModelOrWhenTurnedOff) {
  test::QuietLog quiet;
  const ModelScene fixed = loadModelScene(kGo1, ModelFormat::urdf);
  EXPECT_FALSE(fixed.lift.has_value());
  EXPECT_TRUE(fixed.ground_note.empty());
  EXPECT_EQ(fixed.text.find("ground"), std::string::npos);
  const ModelScene off = loadModelScene(kGo1, ModelFormat::urdf, {.floating_base = true, .ground = false});
  EXPECT_FALSE(off.lift.has_value());
  EXPECT_TRUE(off.scene.model->isFloatingBase());
}

TEST(ModelScene, FloatingIsRefusedForAnMjcfNamingTheOption) {
  const std::filesystem::path digit = std::filesystem::path(LOOPSIM_ASSETS_DIR) / "robots/digit/digit.xml";
  const std::string message = test::messageOf([&] { loadModelScene(digit, ModelFormat::mjcf, {.floating_base = true}); });
  EXPECT_NE(message.find("--floating"), std::string::npos) << message;
  EXPECT_NE(message.find("digit.xml"), std::string::npos) << message;
}

}  // namespace
}  // namespace loopsim
