// YAML scenes: every scene in scenes/ loads; every validation error names the
// file, the YAML path and the value.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {
namespace {

namespace fs = std::filesystem;

const fs::path kScenesDir = fs::path(LOOPSIM_TEST_DATA_DIR) / ".." / ".." / "scenes";
const fs::path kDataScenes = fs::path(LOOPSIM_TEST_DATA_DIR) / "scenes";

const std::string kFourBar = R"(
name: fb
models:
  - generator: four_bar
)";

/// The error message of loading `text`, or "no error".
std::string loadError(const std::string& text, const fs::path& base_dir = kDataScenes) {
  try {
    loadSceneString(text, "test.yaml", base_dir);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

#define EXPECT_ERROR(text, ...)                                                                  \
  do {                                                                                           \
    const std::string message = loadError(text);                                                 \
    for (const std::string& part : std::vector<std::string>{__VA_ARGS__}) {                      \
      EXPECT_NE(message.find(part), std::string::npos) << "missing '" << part << "' in: " << message; \
    }                                                                                            \
  } while (0)

// Two hands on one arm-less base: 'attach' places each model on a frame of another.
const std::string kAttachedHands = R"(
name: hands
models:
  - generator: four_bar
  - urdf: robots/allegro/allegro_right_hand.urdf
    prefix: a_
    attach: {to: coupler, placement: {position: [0, 0, 0.1]}}
  - urdf: robots/allegro/allegro_right_hand.urdf
    prefix: b_
    attach: {to: a_link_3.0_tip}
)";

VectorX constraintErrors(const Scene& s) {
  const ConstraintSet set(*s.model, s.constraints, s.time_constant);
  Data data(*s.model);
  ConstraintData cd(set);
  computeConstraintTerms(set, data, s.q0, s.v0, cd);
  return cd.phi;
}

bool someSolverSupportsRedundantSets() {
  for (const auto& s : solverRegistry()) {
    if (s.capabilities.redundant || s.capabilities.soft) return true;
  }
  return false;
}

// ---- The scenes shipped in scenes/ ----

TEST(SceneFiles, EverySceneLoads) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kScenesDir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++count;
    SCOPED_TRACE(entry.path().string());
    bool redundant_without_solver = false;
    try {
      const Scene s = loadScene(entry.path());
      EXPECT_FALSE(s.description.empty());
      EXPECT_EQ(s.q0.size(), s.model->nq);
      EXPECT_EQ(s.v0.size(), s.model->nv);
      EXPECT_LT(constraintErrors(s).lpNorm<Eigen::Infinity>(), 1e-10);
      EXPECT_NE(findSolver(s.solver), nullptr);
    } catch (const ModelError& e) {
      // A knowingly redundant scene needs a solver for redundant sets; until
      // one is registered the loader must say so, and only for such a scene.
      const std::string message = e.what();
      redundant_without_solver = message.find("redundant constraint sets") != std::string::npos &&
                                 message.find("no registered solver can run this scene") != std::string::npos;
      EXPECT_TRUE(redundant_without_solver) << message;
      EXPECT_FALSE(someSolverSupportsRedundantSets()) << message;
    }
  }
  EXPECT_GE(count, 5);
}

TEST(SceneFiles, FourBarHasInPlaneRowsAndADrivenCrank) {
  const Scene s = loadScene(kScenesDir / "four_bar.yaml");
  EXPECT_EQ(s.name, "four_bar");
  ASSERT_EQ(s.constraints.size(), 1u);
  EXPECT_EQ(s.constraints[0].dimension(), 2);
  EXPECT_EQ(s.solver, "kkt");
  EXPECT_EQ(s.controller.kind, ControllerSpec::Kind::Sinusoid);
  ASSERT_EQ(s.controller.drives.size(), 1u);
  EXPECT_EQ(s.controller.drives[0].joint, s.model->jointId("crank_joint"));
  EXPECT_DOUBLE_EQ(s.controller.drives[0].frequency_hz, 0.5);
  EXPECT_EQ(s.actuated_joints, std::vector<int>{s.model->jointId("crank_joint")});
  EXPECT_LT(constraintErrors(s).lpNorm<Eigen::Infinity>(), 1e-10);
  // Stood up in the xz plane: the crank axis is horizontal.
  Data data(*s.model);
  forwardKinematics(*s.model, data, s.q0);
  const Vector3 axis = data.oMi[1].R * s.model->joint_axes[1];
  EXPECT_NEAR(axis.z(), 0.0, 1e-12);
}

TEST(SceneFiles, HumanoidStandsOnTwoWeldsWithPdHold) {
  const Scene s = loadScene(kScenesDir / "humanoid_welded_feet.yaml");
  EXPECT_EQ(s.model->nv, 36);
  EXPECT_EQ(ConstraintSet(*s.model, s.constraints).dimension(), 12);
  EXPECT_EQ(constraintRank(*s.model, s.constraints, s.q0).rank, 12);
  EXPECT_EQ(s.actuated_joints.size(), 30u);
  EXPECT_EQ(s.controller.kind, ControllerSpec::Kind::PdHold);
  EXPECT_EQ(s.controller.kp, 1000.0);
  // "Weld it where it stands": the target is the sole's pose at q0 (z = 0).
  EXPECT_NEAR(s.constraints[0].placement2.t.z(), 0.0, 1e-12);
}

TEST(SceneFiles, RedundantFourBarIsRefusedByKkt) {
  std::ifstream in(kScenesDir / "redundant_four_bar.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string with_kkt = text.str();
  with_kkt.replace(with_kkt.find("solver: prox-ltl"), 16, "solver: kkt");
  EXPECT_EQ(loadScene(kScenesDir / "redundant_four_bar.yaml").solver, "prox-ltl");
  const std::string message = loadError(with_kkt);
  EXPECT_NE(message.find("solver 'kkt' does not support redundant constraint sets"), std::string::npos) << message;
  // Without the declaration the rank check names the dependent row.
  std::string undeclared = text.str();
  undeclared.replace(undeclared.find("\nredundant: true"), 16, "\nredundant: false");
  const std::string rank_message = loadError(undeclared);
  EXPECT_NE(rank_message.find("rank-deficient at the initial configuration (rank 2 of 3)"), std::string::npos)
      << rank_message;
  EXPECT_NE(rank_message.find("dependent rows: connect 'loop' row z"), std::string::npos) << rank_message;
  EXPECT_NE(rank_message.find("redundant: true"), std::string::npos) << rank_message;
  EXPECT_NE(rank_message.find("prox-ltl"), std::string::npos) << rank_message;
}

TEST(SceneFiles, TwoArmsHoldingABoxFromRelativeUrdfs) {
  const Scene s = loadScene(kDataScenes / "two_arms_box.yaml");
  const Model& m = *s.model;
  EXPECT_EQ(m.nq, 2 + 2 + 7);
  EXPECT_EQ(s.model_files.size(), 2u);
  EXPECT_GE(m.jointId("left_shoulder"), 1);
  EXPECT_GE(m.jointId("right_elbow"), 1);
  EXPECT_GE(m.jointId("box_joint"), 1);
  EXPECT_DOUBLE_EQ(m.damping[m.idx_v[m.jointId("left_shoulder")]], 0.1);
  EXPECT_EQ(s.actuated_joints.size(), 4u);  // "all" leaves out the box's floating joint
  EXPECT_LT(constraintErrors(s).lpNorm<Eigen::Infinity>(), 1e-12);
  EXPECT_DOUBLE_EQ(s.dt, 0.002);
  EXPECT_DOUBLE_EQ(s.duration, 2.0);
}

TEST(SceneFiles, UrdfFromTheAssetsDirectoryWithAFloatingBase) {
  if (!fs::exists(fs::path(LOOPSIM_ASSETS_DIR) / "robots/atlas/atlas.urdf")) GTEST_SKIP() << "no Atlas asset";
  const Scene s = loadSceneString(R"(
models:
  - {urdf: robots/atlas/atlas.urdf, prefix: a_, base: floating, pose: {position: [0, 0, 1]}}
  - {urdf: robots/atlas/atlas.urdf, prefix: b_, pose: {position: [2, 0, 1]}}
)",
                                  "atlas.yaml", kScenesDir);
  EXPECT_EQ(s.model->nv, 36 + 30);
  EXPECT_TRUE(s.model->isFloatingBase());
  EXPECT_TRUE(s.q0.head<3>().isApprox(Vector3(0, 0, 1)));
  ASSERT_EQ(s.model_files.size(), 2u);
  EXPECT_NE(s.model_files[0].find("assets"), std::string::npos);
}

// ---- Settings ----

TEST(SceneLoader, ReadsEverySetting) {
  const Scene s = loadSceneString(kFourBar + R"(
description: all settings
bodies:
  - {name: ball, shape: sphere, size: 0.1, mass: 2, pose: {position: [1, 2, 3], quaternion: [0, 0, 0.6, 0.8]}}
initial:
  q: {rocker_joint: 0.3, ball_joint: [0, 0, 1, 0, 0, 0, 1]}
  v: {crank_joint: 0.5, ball_joint: [0, 0, 0, 1, 0, 0]}
hold: [crank_joint]
actuated: [crank_joint, coupler_joint]
controller: {type: gravity_compensation}
gravity: [0, 0, -1.62]
dt: 0.0005
duration: 3
solver: {name: kkt, mu: 1e6, tolerance: 1e-8, max_iterations: 20, warm_start: false, soft_weight: 1e4}
stabilization: {time_constant: 0.05}
projection: true
)",
                                  "x.yaml");
  EXPECT_EQ(s.name, "fb");
  EXPECT_EQ(s.description, "all settings");
  const Model& m = *s.model;
  EXPECT_DOUBLE_EQ(s.q0[m.idx_q[m.jointId("rocker_joint")]], 0.3);
  EXPECT_DOUBLE_EQ(s.v0[m.idx_v[m.jointId("crank_joint")]], 0.5);
  EXPECT_DOUBLE_EQ(s.q0[m.idx_q[m.jointId("ball_joint")] + 2], 1.0);
  EXPECT_DOUBLE_EQ(s.v0[m.idx_v[m.jointId("ball_joint")] + 3], 1.0);
  EXPECT_EQ(s.held_joints, std::vector<int>{m.jointId("crank_joint")});
  EXPECT_EQ(s.actuated_joints.size(), 2u);
  EXPECT_EQ(s.controller.kind, ControllerSpec::Kind::GravityCompensation);
  EXPECT_TRUE(m.gravity.isApprox(Vector3(0, 0, -1.62)));
  EXPECT_DOUBLE_EQ(s.dt, 0.0005);
  EXPECT_DOUBLE_EQ(s.duration, 3.0);
  EXPECT_DOUBLE_EQ(s.solver_settings.muValue(), 1e6);
  EXPECT_DOUBLE_EQ(s.solver_settings.tolerance, 1e-8);
  EXPECT_EQ(s.solver_settings.max_iterations, 20);
  EXPECT_FALSE(s.solver_settings.warm_start);
  EXPECT_DOUBLE_EQ(s.solver_settings.soft_weight, 1e4);
  EXPECT_DOUBLE_EQ(s.time_constant, 0.05);
  EXPECT_TRUE(s.projection);
  EXPECT_FALSE(s.redundant);
  EXPECT_EQ(s.text.find("all settings") != std::string::npos, true);
}

TEST(SceneLoader, ConstraintsFromFramesBodiesPlacementsRowsAndCouplings) {
  const Scene s = loadSceneString(R"(
models:
  - generator: pendulum_chain
    params: {links: 12, weld_tip: false}
    pose: {position: [0, 0, 2]}
constraints:
  - {name: hold_tip, type: connect, frame1: tip, rows: [x, z]}
  - {name: to_link, type: revolute, body1: link_9, placement1: {position: [0, 0, -0.1], rpy: [0, 0.2, 0]}, body2: link_1, kp: 4, kd: 3}
  - {name: gear, type: coupling, joints: [link_1_joint, link_2_joint], coefficients: [1, -2], offset: 0.1}
)",
                                  "x.yaml");
  ASSERT_EQ(s.constraints.size(), 3u);
  const Model& m = *s.model;
  const Constraint& tip = s.constraints[0];
  EXPECT_EQ(tip.kind, ConstraintKind::Connect);
  EXPECT_EQ(tip.body1, m.bodyId("link_12"));
  EXPECT_EQ(tip.body2, 0);
  EXPECT_EQ(tip.row_mask, (std::vector<int>{0, 2}));
  const Constraint& loop = s.constraints[1];
  EXPECT_EQ(loop.kind, ConstraintKind::RevoluteLoop);
  EXPECT_EQ(loop.body2, m.bodyId("link_1"));
  EXPECT_EQ(*loop.kp, 4.0);
  EXPECT_EQ(*loop.kd, 3.0);
  EXPECT_TRUE(loop.placement1.t.isApprox(Vector3(0, 0, -0.1)));
  const Constraint& gear = s.constraints[2];
  EXPECT_EQ(gear.coupling_joints, (std::vector<int>{1, 2}));
  EXPECT_EQ(gear.coupling_coefficients, (std::vector<double>{1, -2}));
  EXPECT_DOUBLE_EQ(gear.coupling_offset, 0.1);
  // Ends without placement2 close where they stand; the coupling row does not.
  const VectorX phi = constraintErrors(s);
  EXPECT_LT(phi.head(2 + 5).lpNorm<Eigen::Infinity>(), 1e-12);
  EXPECT_NEAR(phi[7], s.q0[0] - 2 * s.q0[1] - 0.1, 1e-12);
}

TEST(SceneLoader, PicksKktWhenNoSolverIsNamed) {
  EXPECT_EQ(loadSceneString(kFourBar, "x.yaml").solver, "kkt");
}

// ---- Validation errors: each names the file, the YAML path and the value ----

TEST(SceneValidation, UnknownKeysSuggestTheNearest) {
  EXPECT_ERROR(kFourBar + "durration: 3\n", "test.yaml: durration (line 5)",
               "unknown key 'durration' (did you mean 'duration'?)");
  EXPECT_ERROR(kFourBar + "    prefx: a_\n", "models[0].prefx", "unknown key 'prefx' (did you mean 'prefix'?)");
  EXPECT_ERROR(kFourBar + "solver: {name: kkt, tolerence: 1e-9}\n", "solver.tolerence",
               "(did you mean 'tolerance'?)");
  EXPECT_ERROR(kFourBar + "    params: {crank_angel: 1}\n", "models[0].params.crank_angel",
               "(did you mean 'crank_angle'?)");
  EXPECT_ERROR(kFourBar + "controller: {type: pd_hold, kp: 1, kd: 1, gains: 3}\nactuated: all\n", "controller.gains",
               "unknown key 'gains'");
}

TEST(SceneValidation, UnknownJointsFramesBodiesGeneratorsSuggestTheNearest) {
  EXPECT_ERROR(kFourBar + "initial: {q: {crank_jiont: 1}}\n", "initial.q.crank_jiont",
               "(did you mean 'crank_joint'?)");
  EXPECT_ERROR(kFourBar + "hold: [rocker_jont]\n", "hold[0]", "unknown joint 'rocker_jont' (did you mean 'rocker_joint'?)");
  EXPECT_ERROR(kFourBar + "actuated: [crank]\n", "actuated[0]", "unknown joint 'crank' (did you mean 'crank_joint'?)");
  EXPECT_ERROR(kFourBar + "constraints:\n  - {name: c, type: connect, frame1: coupler_tp}\n", "constraints[0].frame1",
               "unknown frame 'coupler_tp' (did you mean 'coupler_tip'?)");
  EXPECT_ERROR(kFourBar + "constraints:\n  - {name: c, type: weld, body1: rocker, body2: couplr}\n",
               "constraints[0].body2", "unknown body 'couplr' (did you mean 'coupler'?)");
  EXPECT_ERROR("models:\n  - generator: for_bar\n", "models[0].generator (line 2)",
               "unknown generator 'for_bar' (did you mean 'four_bar'?)");
  EXPECT_ERROR(kFourBar + "constraints:\n  - {name: c, type: wled, frame1: coupler_tip}\n", "constraints[0].type",
               "unknown constraint type 'wled' (did you mean 'weld'?)");
  EXPECT_ERROR(kFourBar + "constraints:\n  - {name: c, type: connect, frame1: coupler_tip, rows: [x, w]}\n",
               "constraints[0].rows[1]", "unknown row 'w' for a connect", "rows are x y z");
  EXPECT_ERROR(kFourBar + "controller: {type: sinusiod}\n", "controller.type", "(did you mean 'sinusoid'?)");
}

TEST(SceneValidation, TimeSettings) {
  EXPECT_ERROR(kFourBar + "dt: 0\n", "test.yaml: dt (line 5)", "must be > 0, got '0'");
  EXPECT_ERROR(kFourBar + "dt: -0.001\n", "dt", "must be > 0, got '-0.001'");
  EXPECT_ERROR(kFourBar + "duration: 0\n", "duration", "must be > 0, got '0'");
  EXPECT_ERROR(kFourBar + "dt: 2\nduration: 1\n", "dt", "dt is longer than the duration");
  EXPECT_ERROR(kFourBar + "stabilization: {time_constant: -1}\n", "stabilization.time_constant", "must be >= 0");
}

TEST(SceneValidation, NonUnitQuaternions) {
  EXPECT_ERROR(kFourBar + "    pose: {quaternion: [0, 0, 0, 2]}\n", "models[0].pose.quaternion",
               "quaternion [0, 0, 0, 2] is not unit (norm 2); quaternions are [x, y, z, w]");
  EXPECT_ERROR("bodies:\n  - {name: b, shape: box, size: [1, 1, 1], mass: 1}\ninitial: {q: {b_joint: [0, 0, 0, 0.5, 0, 0, 0.5]}}\n",
               "initial.q.b_joint", "is not unit");
  EXPECT_ERROR(kFourBar + "    pose: {quaternion: [0, 0, 0, 1], rpy: [0, 0, 0]}\n", "models[0].pose",
               "either 'quaternion' or 'rpy'");
}

TEST(SceneValidation, Solvers) {
  EXPECT_ERROR(kFourBar + "solver: kt\n", "test.yaml: solver (line 5)", "unknown solver 'kt' (did you mean 'kkt'?)",
               "available: kkt");
  EXPECT_ERROR(kFourBar + "solver: {name: kkk}\n", "solver.name", "unknown solver 'kkk' (did you mean 'kkt'?)");
  EXPECT_ERROR(kFourBar + "redundant: true\nsolver: kkt\n", "solver",
               "solver 'kkt' does not support redundant constraint sets, which this scene declares (redundant: true)");
  EXPECT_ERROR(kFourBar + "solver: {name: kkt, max_iterations: 0}\n", "solver.max_iterations", "must be >= 1");
}

TEST(SceneValidation, MissingCapabilityIsNamedForOverrides) {
  const Scene s = loadSceneString(kFourBar, "x.yaml");
  EXPECT_NO_THROW(requireSolver(s.solverProblem(), "kkt"));
  try {
    requireSolver(s.solverProblem(), "pv-nope");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown solver 'pv-nope'"), std::string::npos) << e.what();
  }
  // pv exists but takes world constraints only: the missing capability is named.
  try {
    requireSolver(s.solverProblem(), "pv");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("solver 'pv': does not support internal loops"), std::string::npos)
        << e.what();
  }
  // A solver lacking internal-loop support, per the registry's rule.
  SolverCapabilities no_loops;
  no_loops.internal_loops = false;
  EXPECT_EQ(missingCapability(no_loops, ConstraintSet(*s.model, s.constraints)),
            "internal loops (constraints between two moving bodies)");
}

TEST(SceneValidation, RankDeficiencyOnAnExactSolverNamesTheRows) {
  EXPECT_ERROR(kFourBar + "constraints:\n  - {name: again, type: revolute, frame1: coupler_tip, frame2: rocker_tip, rows: [x, y]}\n",
               "rank-deficient at the initial configuration (rank 2 of 4)", "dependent rows: revolute 'again' row x, revolute 'again' row y",
               "redundant: true", "prox-ltl");
  EXPECT_ERROR("models:\n  - generator: redundant_mechanism\n    params: {variant: duplicate_connect}\n",
               "(rank 3 of 6)", "connect 'loop_copy' row x");
}

TEST(SceneValidation, WrongTypesNameTheLine) {
  EXPECT_ERROR(kFourBar + "dt: fast\n", "dt (line 5)", "expected a number, got 'fast'");
  EXPECT_ERROR(kFourBar + "gravity: [0, 0]\n", "gravity", "expected 3 numbers, got 2");
  EXPECT_ERROR(kFourBar + "gravity: down\n", "gravity", "expected a list of 3 numbers, got 'down'");
  EXPECT_ERROR(kFourBar + "projection: maybe\n", "projection", "expected true or false, got 'maybe'");
  EXPECT_ERROR(kFourBar + "hold: crank_joint\n", "hold", "expected a list of names");
  EXPECT_ERROR("models: {generator: four_bar}\n", "models (line 1)", "expected a list, got a map");
  EXPECT_ERROR("models:\n  - generator: spatial_chain\n    params: {links: six}\n", "models[0].params.links (line 3)",
               "got 'six'");
  EXPECT_ERROR("models:\n  - generator: four_bar\n    params: {crank: 5, crank_angle: 3}\n", "models[0].params",
               "cannot assemble at crank_angle 3");
  EXPECT_ERROR("name: [unclosed\n", "test.yaml: line", "YAML syntax error");
  EXPECT_ERROR("- just\n- a list\n", "(top level)", "expected a map, got a list");
}

TEST(SceneValidation, ModelsAndBodies) {
  EXPECT_ERROR("name: empty\n", "a scene needs 'models' or 'bodies'");
  EXPECT_ERROR("models:\n  - {urdf: robots/missing.urdf}\n", "models[0].urdf (line 2)",
               "model file 'robots/missing.urdf' not found");
  EXPECT_ERROR("models:\n  - {urdf: a.urdf, generator: four_bar}\n", "models[0]", "give exactly one of 'urdf'");
  EXPECT_ERROR("models:\n  - {generator: four_bar, base: floating}\n", "models[0]", "'base: floating' also needs 'base_body'");
  EXPECT_ERROR("models:\n  - {generator: four_bar, base: floting}\n", "models[0].base", "(did you mean 'floating'?)");
  EXPECT_ERROR("bodies:\n  - {name: b, shape: cube, size: [1, 1, 1], mass: 1}\n", "bodies[0].shape",
               "shape must be box, sphere, cylinder or capsule, got 'cube'");
  EXPECT_ERROR("bodies:\n  - {name: b, shape: box, size: [1, 1, 1], mass: 0}\n", "bodies[0].mass", "must be > 0");
  EXPECT_ERROR("bodies:\n  - {name: b, shape: box, size: [1, 1, 1], mass: 1}\n  - {name: b, shape: sphere, size: 1, mass: 1}\n",
               "bodies[1].name", "duplicate name");
  EXPECT_ERROR(kFourBar + "  - generator: four_bar\n", "duplicate");  // same names without a prefix
  EXPECT_ERROR(kFourBar + "controller: {type: pd_hold, kp: 10, kd: 1}\n", "controller",
               "scene lists none (add 'actuated: [...]' or 'actuated: all')");
  EXPECT_ERROR(kFourBar + "actuated: [rocker_joint]\ncontroller: {type: sinusoid, kp: 1, kd: 1, drives: [{joint: crank_joint}]}\n",
               "controller.drives[0].joint", "has a drive but is not in 'actuated'");
  EXPECT_ERROR(kFourBar + "constraints:\n  - {name: c, type: weld, frame1: world}\n", "constraints[0]",
               "first end must be on a moving body");
  EXPECT_ERROR(kFourBar + "constraints:\n  - {name: loop, type: weld, frame1: rocker_tip}\n", "duplicate constraint name");
  EXPECT_ERROR(kFourBar + "constraints:\n  - {name: g, type: coupling, joints: [crank_joint], coefficients: [1, 2]}\n",
               "constraints[0].coefficients", "expected 1 numbers, got 2");
}

TEST(SceneValidation, MissingSceneFile) {
  try {
    loadScene(kDataScenes / "no_such_scene.yaml");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_scene.yaml: cannot open scene file"), std::string::npos) << e.what();
  }
}

// 'attach': a model fixed to a body or frame of another, appended inside that
// body's subtree (depth-first), its root link's inertia riding on the body;
// attachments to attached models; the errors name the entry and the value.
TEST(SceneLoader, AttachedModelsRideOnTheirTargetWithTheirRootInertia) {
  const Scene s = loadSceneString(kAttachedHands, "hands.yaml", fs::path(LOOPSIM_ASSETS_DIR));
  const Scene hand = loadSceneString("name: h\nmodels:\n  - urdf: robots/allegro/allegro_right_hand.urdf\n",
                                     "h.yaml", fs::path(LOOPSIM_ASSETS_DIR));
  const Scene four_bar = loadSceneString(kFourBar, "fb.yaml", kDataScenes);
  EXPECT_EQ(s.model->nv, four_bar.model->nv + 2 * hand.model->nv);
  // The fixed hand's palm (0.4154 kg) is carried by the world; attached, by the coupler or the fingertip.
  EXPECT_NEAR(s.model->totalMass(), four_bar.model->totalMass() + 2 * (hand.model->totalMass() + 0.4154), 1e-9);
  const int coupler = s.model->bodyId("coupler");
  const int a_palm = s.model->frameId("a_palm_link");
  ASSERT_GE(a_palm, 0);
  EXPECT_EQ(s.model->frames[static_cast<std::size_t>(a_palm)].body, coupler);
  EXPECT_TRUE(s.model->frames[static_cast<std::size_t>(a_palm)].placement.t.isApprox(Vector3(0, 0, 0.1)));
  // Hand b sits on hand a's index fingertip: its fingers hang below that link.
  const int b_first = s.model->bodyId("b_link_0.0");
  EXPECT_EQ(s.model->parent[static_cast<std::size_t>(b_first)], s.model->bodyId("a_link_3.0"));
  // Depth-first: every body's subtree is contiguous (ModelBuilder checks it; the loops still close).
  EXPECT_LT(constraintErrors(s).lpNorm<Eigen::Infinity>(), 1e-12);

  EXPECT_ERROR(std::string(kAttachedHands).replace(kAttachedHands.find("to: coupler"), 11, "to: copuler"),
               "no body or frame 'copuler'", "attach");
  EXPECT_ERROR(std::string(kAttachedHands).replace(kAttachedHands.find("    prefix: b_"), 14,
                                                   "    prefix: b_\n    pose: {position: [0, 0, 1]}"),
               "'pose' does not apply to an attached model");
}

}  // namespace
}  // namespace loopsim
