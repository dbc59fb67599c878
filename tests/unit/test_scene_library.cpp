// The scene library (scenes/*.yaml) and the robot assets it uses: every asset
// loads with the expected nq / nv and total mass; every scene closes its loops
// at the start (consistent-start projection, 1e-10) and runs 2 s without
// divergence on kkt (prox-ltl for knowingly redundant scenes), with the
// post-step projection holding the loops to 1e-8 where the scene asks for it.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <loopsim/parsers/mjcf_loader.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/parsers/urdf_loader.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {
namespace {

namespace fs = std::filesystem;

const fs::path kAssets = fs::path(LOOPSIM_ASSETS_DIR);
const fs::path kScenesDir = kAssets.parent_path() / "scenes";

// Total masses of the reference descriptions, computed once (sum of every
// <mass value> / <inertial mass>) from ../shared/models, which a fresh clone
// does not have: atlas/atlas_minimal_contact.urdf (Drake, 43 links),
// go1/go1.urdf (example-robot-data, 46 links), digit/digit-v3.xml
// (KinodynamicFabrics.jl, 37 bodies).
constexpr double kAtlasMass = 175.117964;  // kg
constexpr double kGo1Mass = 13.100529;     // kg
constexpr double kDigitMass = 47.925414;   // kg

void expectMass(const Model& model, double reference) {
  EXPECT_NEAR(model.totalMass(), reference, 0.02 * reference) << model.name;
}

TEST(RobotAssets, AtlasIsA30JointFloatingHumanoid) {
  const Model floating = loadUrdf(kAssets / "robots/atlas/atlas.urdf", UrdfOptions{.floating_base = true});
  EXPECT_EQ(floating.nq, 37);
  EXPECT_EQ(floating.nv, 36);
  EXPECT_TRUE(floating.isFloatingBase());
  expectMass(floating, kAtlasMass);
  const Model fixed = loadUrdf(kAssets / "robots/atlas/atlas.urdf");
  EXPECT_EQ(fixed.nq, 30);
  EXPECT_EQ(fixed.nv, 30);
  for (const char* frame : {"l_foot_sole", "r_foot_sole", "l_hand_mount", "r_hand_mount", "l_foot_front_outer",
                            "r_foot_back_inner"}) {
    EXPECT_GE(floating.frameId(frame), 0) << frame;
  }
}

TEST(RobotAssets, Go1IsA12JointFloatingQuadruped) {
  const Model go1 = loadUrdf(kAssets / "robots/go1/go1.urdf", UrdfOptions{.floating_base = true});
  EXPECT_EQ(go1.nq, 19);
  EXPECT_EQ(go1.nv, 18);
  expectMass(go1, kGo1Mass);
  for (const char* frame : {"FR_foot", "FL_foot", "RR_foot", "RL_foot"}) EXPECT_GE(go1.frameId(frame), 0) << frame;
}

TEST(RobotAssets, DigitWithCompliantAndRigidSprings) {
  const MjcfLoad compliant = loadMjcf(kAssets / "robots/digit/digit.xml");
  EXPECT_EQ(compliant.model.nq, 61);
  EXPECT_EQ(compliant.model.nv, 54);
  EXPECT_EQ(compliant.constraints.size(), 6u);
  expectMass(compliant.model, kDigitMass);
  const MjcfLoad rigid = loadMjcf(kAssets / "robots/digit/digit_rigid_springs.xml");
  EXPECT_EQ(rigid.model.nq, 57);
  EXPECT_EQ(rigid.model.nv, 50);
  EXPECT_EQ(rigid.constraints.size(), 6u);
  expectMass(rigid.model, kDigitMass);
  // The springs are joint stiffness in the compliant variant only.
  EXPECT_GT(compliant.model.stiffness.maxCoeff(), 1000.0);
  EXPECT_EQ(rigid.model.stiffness.maxCoeff(), 0.0);
}

// ---- MJCF models in scenes ----

std::string loadError(const std::string& text) {
  try {
    loadSceneString(text, "mjcf.yaml", kScenesDir);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SceneLibrary, MjcfModelsBringTheirLoopsPrefixed) {
  // Two Digits: the rigid-spring variant and the compliant one, side by side.
  const Scene s = loadSceneString(R"(
models:
  - {mjcf: robots/digit/digit_rigid_springs.xml, prefix: a_}
  - {mjcf: robots/digit/digit.xml, prefix: b_, pose: {position: [2, 0, 0]}}
)",
                                  "mjcf.yaml", kScenesDir);
  EXPECT_EQ(s.model->nq, 57 + 61);
  EXPECT_EQ(s.model->nv, 50 + 54);
  ASSERT_EQ(s.constraints.size(), 12u);
  EXPECT_EQ(s.constraints[0].name, "a_left-achilles-rod");
  EXPECT_EQ(s.constraints[6].name, "b_left-achilles-rod");
  for (const Constraint& c : s.constraints) {
    EXPECT_EQ(c.kind, ConstraintKind::Connect) << c.name;
    EXPECT_NE(c.body2, 0) << c.name;  // internal loops, not world constraints
  }
  EXPECT_EQ(s.model_files.size(), 2u);
  EXPECT_NE(s.model_files[0].find("digit_rigid_springs.xml"), std::string::npos);
  // The MJCF reference pose: b_'s base at (2, 0, 1), identity orientation [x y z w].
  const int b_base = s.model->jointId("b_base_joint");
  ASSERT_GT(b_base, 0);
  const VectorX b_pose = s.q0.segment<7>(s.model->idx_q[b_base]);
  EXPECT_NEAR((b_pose.head<3>() - Vector3(2, 0, 1)).norm(), 0.0, 1e-12);
  EXPECT_NEAR(b_pose[6], 1.0, 1e-12);
}

TEST(SceneLibrary, MjcfEntryErrors) {
  EXPECT_NE(loadError("models:\n  - {mjcf: robots/digit/digit.xml, urdf: robots/go1/go1.urdf}\n")
                .find("exactly one of 'urdf' or 'generator' or 'mjcf'"),
            std::string::npos);
  EXPECT_NE(loadError("models:\n  - {mjcf: robots/digit/nope.xml}\n").find("model file 'robots/digit/nope.xml' not found"),
            std::string::npos);
  EXPECT_NE(loadError("models:\n  - {mjcf: robots/digit/digit.xml, params: {a: 1}}\n")
                .find("'params' applies to generators only"),
            std::string::npos);
}

std::vector<fs::path> sceneFiles() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kScenesDir)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(SceneLibrary, HasTheRobotAndMechanismScenes) {
  std::set<std::string> names;
  for (const fs::path& f : sceneFiles()) names.insert(f.stem().string());
  for (const char* expected :
       {"atlas_standing", "atlas_2f2h", "atlas_point_feet", "go1_standing", "go1_three_feet", "digit_standing",
        "digit_box", "two_digits_box", "four_bar", "cycle", "chain_of_loops", "ladder", "long_stem", "geared_chain"}) {
    EXPECT_EQ(names.count(expected), 1u) << expected;
  }
}

class EveryScene : public testing::TestWithParam<fs::path> {};

TEST_P(EveryScene, ClosesAtTheStartAndRunsTwoSeconds) {
  Scene scene = loadScene(GetParam());
  scene.solver = scene.redundant ? "prox-ltl" : "kkt";
  if (findSolver(scene.solver) == nullptr) GTEST_SKIP() << scene.solver << " is not registered";
  requireSolver(scene.solverProblem(), scene.solver);
  scene.duration = 2.0;

  Simulation sim(scene);
  // Consistent start: the loops close at the initial pose.
  EXPECT_LT(sim.initialProjection().position_residual, 1e-10);
  const long steps = std::lround(scene.duration / scene.dt);
  for (long k = 0; k < steps && sim.step(); ++k) {
  }
  ASSERT_FALSE(sim.diverged()) << sim.divergence()->message();
  EXPECT_NEAR(sim.time(), 2.0, 1e-9);
  const RunSummary s = sim.summary();
  EXPECT_TRUE(std::isfinite(s.energy.total()));
  if (scene.projection && sim.constraints().dimension() > 0) {
    EXPECT_LT(s.max_position_violation, 1e-8) << scene.name;
  } else {
    EXPECT_LT(s.max_position_violation, 1e-2) << scene.name;  // Baumgarte alone
  }
}

std::string testName(const testing::TestParamInfo<fs::path>& info) {
  std::string name = info.param.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(SceneLibrary, EveryScene, testing::ValuesIn(sceneFiles()), testName);

}  // namespace
}  // namespace loopsim
