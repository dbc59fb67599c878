// Collision elements of the model files (URDF <collision>; the MJCF geoms are in
// tests/mujoco/test_mjcf_loader.cpp) and what a scene with contact makes of them:
//   - URDF shapes, sizes, placements on merged links, names, a mesh's vertices,
//     an unreadable mesh warned about at load and refused by a scene that uses it;
//   - our assets: Go1's four foot spheres at the foot frames, Atlas's two soles
//     spanning the reference's contact corners;
//   - a scene: the model's elements join the ground (unless contact.model_collisions
//     is false), bad sizes are errors naming the model file, element and value;
//   - Go1 dropped on the ground under its PD hold comes to rest on its four feet.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/parsers/mesh_vertices.hpp>
#include <loopsim/parsers/urdf_loader.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>

#include "collision_elements.hpp"
#include "quiet_log.hpp"

namespace loopsim {
namespace {

using test::findCollision;
using test::QuietLog;

namespace fs = std::filesystem;

fs::path asset(const std::string& relative) { return fs::path(LOOPSIM_ASSETS_DIR) / relative; }
fs::path wedgeMesh() { return fs::path(LOOPSIM_TEST_DATA_DIR) / "mjcf" / "meshes" / "wedge.obj"; }

bool hasWarning(const Model& model, const std::string& needle) {
  return std::any_of(model.warnings.begin(), model.warnings.end(),
                     [&](const std::string& w) { return w.find(needle) != std::string::npos; });
}

// A base with one moving link "arm" whose body also carries the fixed link "tip".
std::string armUrdf(const std::string& arm_collisions, const std::string& tip_collisions) {
  return R"(<robot name="r"><link name="base"/>
    <link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/>
    </inertial>)" + arm_collisions + R"(</link>
    <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
    <link name="tip">)" + tip_collisions + R"(</link>
    <joint name="tip_fixed" type="fixed"><origin xyz="0 0 -0.5" rpy="0 0 1.5707963267948966"/>
      <parent link="arm"/><child link="tip"/></joint></robot>)";
}

TEST(UrdfCollisions, ShapesSizesNamesAndPlacementsOnMergedLinks) {
  const std::string arm = R"(
    <collision><origin xyz="0 0 -0.25"/><geometry><cylinder radius="0.03" length="0.5"/></geometry></collision>
    <collision name="guard"><origin xyz="0.1 0 0"/><geometry><box size="0.1 0.2 0.3"/></geometry></collision>)";
  const std::string tip = R"(<collision><origin xyz="0.01 0 0"/><geometry><sphere radius="0.02"/></geometry></collision>)";
  const Model m = loadUrdfString(armUrdf(arm, tip), "arm.urdf");
  ASSERT_EQ(m.collisions.size(), 3u);
  const CollisionElement* cylinder = findCollision(m, "arm/0");
  const CollisionElement* box = findCollision(m, "arm/1");
  const CollisionElement* sphere = findCollision(m, "tip");
  ASSERT_TRUE(cylinder && box && sphere);
  EXPECT_EQ(cylinder->shape, CollisionElement::Shape::Cylinder);
  EXPECT_TRUE(cylinder->size.head<2>().isApprox(Eigen::Vector2d(0.03, 0.5)));
  EXPECT_TRUE(cylinder->placement.t.isApprox(Vector3(0, 0, -0.25)));
  EXPECT_EQ(cylinder->element, "link 'arm' <collision> 0");
  EXPECT_EQ(cylinder->file, "arm.urdf");
  EXPECT_EQ(box->shape, CollisionElement::Shape::Box);
  EXPECT_TRUE(box->size.isApprox(Vector3(0.1, 0.2, 0.3)));  // full extents
  // The fixed link's element sits on the arm's body, through the fixed joint (yaw 90°).
  EXPECT_EQ(sphere->shape, CollisionElement::Shape::Sphere);
  EXPECT_EQ(sphere->body, m.bodyId("arm"));
  EXPECT_DOUBLE_EQ(sphere->size.x(), 0.02);
  EXPECT_LT((sphere->placement.t - Vector3(0, 0.01, -0.5)).norm(), 1e-12);
  EXPECT_EQ(sphere->element, "link 'tip' <collision>");
  // URDF has neither friction nor bitmasks.
  EXPECT_TRUE(std::isnan(sphere->friction));
  EXPECT_EQ(sphere->contype, 1u);
  EXPECT_EQ(sphere->conaffinity, 1u);
}

TEST(UrdfCollisions, AMeshKeepsItsScaledVerticesAndAMissingOneIsWarnedAbout) {
  const std::string arm = "<collision><geometry><mesh filename=\"" + wedgeMesh().string() +
                          "\" scale=\"2 1 1\"/></geometry></collision>";
  const std::string tip = R"(<collision><geometry><mesh filename="no/such/part.stl"/></geometry></collision>)";
  const Model m = loadUrdfString(armUrdf(arm, tip), "arm.urdf");
  const CollisionElement* wedge = findCollision(m, "arm");
  const CollisionElement* missing = findCollision(m, "tip");
  ASSERT_TRUE(wedge && missing);
  EXPECT_EQ(wedge->shape, CollisionElement::Shape::Mesh);
  EXPECT_TRUE(wedge->mesh_problem.empty()) << wedge->mesh_problem;
  ASSERT_EQ(wedge->vertices.size(), 4u);  // the file's four vertices, x doubled
  Vector3 extent = Vector3::Zero();
  for (const Vector3& v : wedge->vertices) extent = extent.cwiseMax(v);
  EXPECT_TRUE(extent.isApprox(Vector3(0.2, 0.05, 0.03), 1e-6)) << extent.transpose();  // assimp reads floats
  EXPECT_TRUE(missing->vertices.empty());
  EXPECT_EQ(missing->mesh_problem, "file not found");
  EXPECT_TRUE(hasWarning(m, "link 'tip' <collision>: collision mesh 'no/such/part.stl': file not found"));
  // The reader alone: nothing thrown, the reason given.
  const MeshVertices not_a_mesh = readMeshVertices(fs::path(LOOPSIM_TEST_DATA_DIR) / "urdf" / "bad.urdf",
                                                   Vector3::Ones());
  EXPECT_TRUE(not_a_mesh.points.empty());
  EXPECT_FALSE(not_a_mesh.problem.empty());
}

TEST(UrdfCollisions, Go1HasItsFourFootSpheresAtTheFootFrames) {
  const Model m = loadUrdf(asset("robots/go1/go1.urdf"), {.floating_base = true});
  // The trunk's box, and per leg the thigh's box and the foot's sphere.
  ASSERT_EQ(m.collisions.size(), 9u);
  const CollisionElement* trunk = findCollision(m, "base");
  ASSERT_NE(trunk, nullptr);
  EXPECT_EQ(trunk->shape, CollisionElement::Shape::Box);
  for (const std::string leg : {"FR", "FL", "RR", "RL"}) {
    const CollisionElement* foot = findCollision(m, leg + "_foot");
    ASSERT_NE(foot, nullptr) << leg;
    const Frame& frame = m.frames[m.existingFrame(leg + "_foot")];
    EXPECT_EQ(foot->shape, CollisionElement::Shape::Sphere);
    EXPECT_DOUBLE_EQ(foot->size.x(), 0.02);  // the reference's collision sphere
    EXPECT_EQ(foot->body, frame.body);
    EXPECT_EQ(foot->body, m.bodyId(leg + "_calf"));
    EXPECT_LT((foot->placement.t - frame.placement.t).norm(), 1e-15) << leg;
  }
}

TEST(UrdfCollisions, AtlasSolesSpanTheReferenceContactCorners) {
  const Model m = loadUrdf(asset("robots/atlas/atlas.urdf"), {.floating_base = true});
  ASSERT_EQ(m.collisions.size(), 2u);
  for (const std::string side : {"l", "r"}) {
    const CollisionElement* sole = findCollision(m, side + "_foot");
    ASSERT_NE(sole, nullptr) << side;
    EXPECT_EQ(sole->shape, CollisionElement::Shape::Box);
    // The bottom face's corners are the foot's corner frames (the reference's contact points).
    for (const std::string corner : {"front_outer", "front_inner", "back_outer", "back_inner"}) {
      const Frame& frame = m.frames[m.existingFrame(side + "_foot_" + corner)];
      ASSERT_EQ(frame.body, sole->body);
      const Vector3 local = sole->placement.R.transpose() * (frame.placement.t - sole->placement.t);
      EXPECT_LT((local.cwiseAbs() - Vector3(0.5 * sole->size.x(), 0.5 * sole->size.y(), 0.5 * sole->size.z())).norm(),
                1e-9)
          << side << " " << corner;
      EXPECT_LT(local.z(), 0.0) << "the corners are on the bottom face";
    }
  }
}

// ------------------------------------------------------------------- scenes

fs::path writeTemp(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("loopsim_model_collisions_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / name;
  std::ofstream(file) << text;
  return file;
}

std::string armScene(const fs::path& urdf, const std::string& contact) {
  return "name: arm\nmodels:\n  - urdf: " + urdf.string() + "\nground: {height: -1}\n" + contact +
         "dt: 0.001\nduration: 0.01\n";
}

TEST(UrdfCollisions, ASceneWithContactCollidesTheModelsElementsUnlessTold) {
  const QuietLog quiet;
  const fs::path urdf = writeTemp(
      "tip.urdf", armUrdf("", R"(<collision><geometry><sphere radius="0.02"/></geometry></collision>)"));
  const Scene with = loadSceneString(armScene(urdf, ""), "arm.yaml");
  ASSERT_TRUE(with.geometry);
  ASSERT_GE(with.geometry->geometryId("tip"), 0);
  const Geometry& tip = with.geometry->geometry(with.geometry->geometryId("tip"));
  EXPECT_EQ(tip.body, with.model->bodyId("arm"));
  EXPECT_DOUBLE_EQ(tip.friction, 1.0);  // URDF gives none: the default
  const Scene without = loadSceneString(armScene(urdf, "contact: {model_collisions: false}\n"), "arm.yaml");
  EXPECT_FALSE(without.geometry) << "only the ground is left, and nothing can touch it";
}

TEST(UrdfCollisions, BadElementsAreErrorsNamingTheModelFileElementAndValue) {
  const QuietLog quiet;
  auto sceneError = [&](const std::string& file, const std::string& tip) -> std::string {
    const fs::path urdf = writeTemp(file, armUrdf("", tip));
    try {
      loadSceneString(armScene(urdf, ""), "arm.yaml");
    } catch (const ModelError& e) {
      return e.what();
    }
    ADD_FAILURE() << tip << " was accepted";
    return {};
  };
  const std::string zero = sceneError("zero.urdf", R"(<collision><geometry><sphere radius="0"/></geometry></collision>)");
  EXPECT_NE(zero.find("zero.urdf"), std::string::npos) << zero;
  EXPECT_NE(zero.find("link 'tip' <collision>"), std::string::npos) << zero;
  EXPECT_NE(zero.find("radius must be positive and finite, got 0"), std::string::npos) << zero;
  const std::string negative =
      sceneError("negative.urdf", R"(<collision><geometry><box size="0.1 -0.2 0.1"/></geometry></collision>)");
  EXPECT_NE(negative.find("negative.urdf"), std::string::npos) << negative;
  EXPECT_NE(negative.find("-0.2"), std::string::npos) << negative;
  const std::string mesh =
      sceneError("mesh.urdf", R"(<collision><geometry><mesh filename="gone.stl"/></geometry></collision>)");
  EXPECT_NE(mesh.find("mesh.urdf"), std::string::npos) << mesh;
  EXPECT_NE(mesh.find("collision mesh"), std::string::npos) << mesh;
  EXPECT_NE(mesh.find("gone.stl"), std::string::npos) << mesh;
  EXPECT_NE(mesh.find("file not found"), std::string::npos) << mesh;
}

TEST(UrdfCollisions, Go1DroppedOnTheGroundRestsOnItsFourFeet) {
  const QuietLog quiet;
  const fs::path scenes = fs::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes";
  const Scene scene = loadScene(scenes / "go1_ground.yaml");
  ASSERT_TRUE(scene.geometry);
  Simulation sim(scene);
  const int steps = static_cast<int>(std::lround(3.0 / scene.dt));  // the scene's duration: settled
  for (int k = 0; k < steps; ++k) sim.step();
  const Model& m = *scene.model;
  Data data(m);
  forwardKinematics(m, data, sim.q());
  int feet_down = 0;
  for (const std::string leg : {"FR", "FL", "RR", "RL"}) {
    const Frame& frame = m.frames[m.existingFrame(leg + "_foot")];
    const double centre_z = (data.oMi[frame.body] * frame.placement).t.z();
    // The sphere (r 0.02) rests on the plane z = 0: no deeper than the slop allows.
    EXPECT_NEAR(centre_z, 0.02, 2e-3) << leg;
    if (std::abs(centre_z - 0.02) < 2e-3) ++feet_down;
  }
  EXPECT_EQ(feet_down, 4);
  EXPECT_EQ(static_cast<int>(sim.contacts().size()), 4) << "one contact per foot";
  EXPECT_LT(sim.v().norm(), 1e-3) << "at rest";
  const double base_z = sim.q()[m.idx_q[1] + 2];
  EXPECT_GT(base_z, 0.2) << "standing, not folded";
}

}  // namespace
}  // namespace loopsim
