// bench --contact's MuJoCo side (engine/bench/mujoco_scene.hpp and
// contact_step_benchmark.hpp): the scenes MuJoCo is given come to the same rest
// as loopsim's, so the step times compare like work, and scenes it cannot be
// given are refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include <loopsim/bench/contact_step_benchmark.hpp>
#include <loopsim/bench/mujoco_scene.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>

namespace loopsim {
namespace {

std::filesystem::path scenesDir() { return std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes"; }

ContactBenchRow benchOne(const std::string& scene_file) {
  ContactBenchOptions options;
  options.rounds = 3;
  options.steps = 5;
  const auto rows = runContactStepBenchmark({loadScene(scenesDir() / scene_file)}, options);
  EXPECT_EQ(rows.size(), 1u);
  return rows.front();
}

void expectTimed(const ContactBenchRow& row) {
  for (const RatioSpread& r : {row.admm_to_mujoco, row.pgs_to_mujoco}) {
    EXPECT_TRUE(std::isfinite(r.median) && r.median > 0.0) << row.scene;
    EXPECT_LE(r.lower_quartile, r.median);
    EXPECT_LE(r.median, r.upper_quartile);
  }
  EXPECT_GT(row.admm_us, 0.0);
  EXPECT_GT(row.mujoco_us, 0.0);
  EXPECT_NEAR(row.real_time_factor, 1e-3 / (row.admm_us * 1e-6), 1e-9 * row.real_time_factor);
}

// The free cube of box_drop, written as MJCF from the scene: both land on the
// four corners of a face, its centre 0.1 m up (MuJoCo's soft contact sinks < 1 mm).
TEST(ContactStepBenchmark, TheDroppedCubeRestsAlikeInBoth) {
  const ContactBenchRow row = benchOne("box_drop.yaml");
  EXPECT_EQ(row.scene, "box_drop");
  EXPECT_EQ(row.nv, 6);
  EXPECT_NEAR(row.loopsim_height, 0.1, 1e-6);
  EXPECT_NEAR(row.mujoco_height, 0.1, 1e-3);
  EXPECT_EQ(row.loopsim_contacts, 4.0);
  EXPECT_EQ(row.mujoco_contacts, 4.0);
  EXPECT_TRUE(std::isnan(row.chosen_to_dense.median)) << "a free cube's factor is dense: no column against itself";
  expectTimed(row);
}

// Go1 from its URDF through MuJoCo's importer, its PD as position actuators and
// joint damping, the holding feed-forward applied: both stand on four feet at
// the same height.
TEST(ContactStepBenchmark, Go1StandsAlikeInBoth) {
  const ContactBenchRow row = benchOne("go1_ground.yaml");
  EXPECT_NEAR(row.mujoco_height, row.loopsim_height, 2e-3);
  EXPECT_EQ(row.loopsim_contacts, 4.0);
  EXPECT_EQ(row.mujoco_contacts, 4.0);
  expectTimed(row);
}

// The tilted ground of box_incline_slide becomes a plane along its normal.
TEST(ContactStepBenchmark, ATiltedGroundIsAPlaneAlongItsNormal) {
  const std::string text = mujoco_peer::mujocoSceneText(loadScene(scenesDir() / "box_incline_slide.yaml"));
  const Scene scene = loadScene(scenesDir() / "box_incline_slide.yaml");
  const mujoco_peer::MjModelPtr m = mujoco_peer::mujocoSceneModel(scene);
  ASSERT_EQ(m->ngeom, 2) << text;
  const int plane = m->geom_type[0] == mjGEOM_PLANE ? 0 : 1;
  ASSERT_EQ(m->geom_type[plane], mjGEOM_PLANE) << text;
  // The plane's z axis (its normal) is the scene's ground normal: 30° about y.
  const double* quat = m->geom_quat + 4 * plane;
  const double normal_z = 1.0 - 2.0 * (quat[1] * quat[1] + quat[2] * quat[2]);
  EXPECT_NEAR(normal_z, std::cos(30.0 * M_PI / 180.0), 1e-12) << text;
  EXPECT_NEAR(m->geom_friction[3 * plane], 0.3, 1e-12);
  EXPECT_NEAR(m->opt.timestep, scene.dt, 0.0);
}

// A URDF scene's constraints (atlas_standing's welds) have no MuJoCo
// counterpart: refused, naming the scene file and why.
TEST(ContactStepBenchmark, RefusesWhatMujocoCannotBeGiven) {
  const Scene welded = loadScene(scenesDir() / "atlas_standing.yaml");
  try {
    (void)runContactStepBenchmark({welded}, ContactBenchOptions{});
    FAIL() << "atlas_standing was accepted";
  } catch (const ModelError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("atlas_standing.yaml"), std::string::npos) << what;
    EXPECT_NE(what.find("constraints"), std::string::npos) << what;
  }
  Scene no_ground = loadScene(scenesDir() / "four_bar.yaml");
  EXPECT_THROW((void)mujoco_peer::mujocoSceneText(no_ground), ModelError);
}

}  // namespace
}  // namespace loopsim
