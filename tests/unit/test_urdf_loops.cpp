// URDF+ loops and couplings (generalized_rbda's extension) read as constraints:
//   - a planar <loop type="revolute"> keeps its in-plane rows {x, y}, a
//     spatial one all five; frames on the links' <origin>s, z on <axis>;
//   - a <coupling> is ratio·(predecessor's joints) − (successor's joints) = 0;
//   - independent="false" gives the clusters' independent joints;
//   - a scene with the file as a model closes the loop: cluster-aba and kkt
//     agree on random consistent states, and ABA does not;
//   - bad extensions are errors naming the element;
//   - the reference files (../shared/models, skipped when absent) load with
//     the loops and couplings of their robots.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/bench/state_sampling.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/parsers/urdf_loader.hpp>
#include <loopsim/scene/model_scene.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/joint_space/kkt_solver.hpp>
#include <loopsim/solvers/loops/cluster_aba_solver.hpp>
#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

namespace loopsim {
namespace {

namespace fs = std::filesystem;

fs::path sharedModel(const std::string& relative) { return fs::path(LOOPSIM_SHARED_DIR) / "models" / relative; }

#define REQUIRE_SHARED(path) \
  if (!fs::exists(sharedModel(path))) GTEST_SKIP() << "no " << sharedModel(path)

std::string bar(const std::string& name, double length) {
  const std::string l = std::to_string(length);
  return "<link name=\"" + name + "\"><inertial><origin xyz=\"" + std::to_string(length / 2) +
         " 0 0\"/><mass value=\"1\"/><inertia ixx=\"0.001\" iyy=\"" + std::to_string(length * length / 12) +
         "\" izz=\"" + std::to_string(length * length / 12) + "\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n";
}

std::string hinge(const std::string& name, const std::string& parent, const std::string& child, const std::string& xyz,
                  const std::string& axis, const std::string& independent = "") {
  return "<joint name=\"" + name + "\" type=\"continuous\"" +
         (independent.empty() ? "" : " independent=\"" + independent + "\"") + "><parent link=\"" + parent +
         "\"/><child link=\"" + child + "\"/><origin xyz=\"" + xyz + "\"/><axis xyz=\"" + axis + "\"/></joint>\n";
}

/// A four-bar in the xy plane (ground 1, crank 0.5, coupler 1, rocker 0.5; a
/// parallelogram at q = 0), closed between the coupler's and the rocker's tips.
/// `rocker_axis` tilts the rocker's joint to make the loop spatial.
std::string fourBar(const std::string& rocker_axis = "0 0 1", const std::string& extra = "") {
  return "<robot name=\"four_bar\"><link name=\"ground\"/>\n" + bar("crank", 0.5) + bar("coupler", 1.0) +
         bar("rocker", 0.5) + hinge("crank_joint", "ground", "crank", "0 0 0", "0 0 1", "true") +
         hinge("coupler_joint", "crank", "coupler", "0.5 0 0", "0 0 1", "false") +
         hinge("rocker_joint", "ground", "rocker", "1 0 0", rocker_axis, "false") +
         "<loop name=\"closure\" type=\"revolute\"><predecessor link=\"coupler\"><origin xyz=\"1 0 0\"/></predecessor>"
         "<successor link=\"rocker\"><origin xyz=\"0.5 0 0\"/></successor><axis xyz=\"0 0 1\"/></loop>\n" +
         extra + "</robot>";
}

std::string mechanismError(const std::string& xml) {
  try {
    loadUrdfMechanismString(xml, "inline.urdf");
  } catch (const ModelError& e) {
    return e.what();
  }
  ADD_FAILURE() << "loaded without an error:\n" << xml;
  return {};
}

/// A scene with `urdf` as its only model, in a fresh temporary directory.
class TemporaryScene {
 public:
  TemporaryScene(const std::string& urdf, const std::string& scene_body) {
    dir_ = fs::temp_directory_path() / ("loopsim_urdf_loops_" + std::to_string(::getpid()) + "_" + std::to_string(count_++));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "mechanism.urdf") << urdf;
    std::ofstream(dir_ / "scene.yaml") << scene_body;
  }
  ~TemporaryScene() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path scene() const { return dir_ / "scene.yaml"; }
  fs::path urdf() const { return dir_ / "mechanism.urdf"; }

 private:
  fs::path dir_;
  static inline int count_ = 0;
};

TEST(UrdfLoops, PlanarLoopKeepsItsInPlaneRowsOnTheLinksOrigins) {
  const UrdfMechanism m = loadUrdfMechanismString(fourBar(), "inline.urdf");
  ASSERT_EQ(m.constraints.size(), 1u);
  const Constraint& c = m.constraints[0];
  EXPECT_EQ(c.name, "closure");
  EXPECT_EQ(c.kind, ConstraintKind::RevoluteLoop);
  EXPECT_EQ(c.row_mask, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.body1, m.model.bodyId("coupler"));
  EXPECT_EQ(c.body2, m.model.bodyId("rocker"));
  EXPECT_LE((c.placement1.t - Vector3(1, 0, 0)).norm(), 1e-15);
  EXPECT_LE((c.placement2.t - Vector3(0.5, 0, 0)).norm(), 1e-15);
  EXPECT_LE((c.placement1.R.col(2) - Vector3::UnitZ()).norm(), 1e-15);
  EXPECT_EQ(m.independent_joints, (std::vector<std::string>{"crank_joint"}));
}

TEST(UrdfLoops, SpatialLoopKeepsAllFiveRows) {
  const UrdfMechanism m = loadUrdfMechanismString(fourBar("0 0.6 0.8"), "inline.urdf");
  ASSERT_EQ(m.constraints.size(), 1u);
  EXPECT_TRUE(m.constraints[0].row_mask.empty());
  EXPECT_EQ(m.constraints[0].dimension(), 5);
}

TEST(UrdfLoops, CouplingTurnsTheSuccessorRatioTimesThePredecessor) {
  // A rotor on the ground geared to the crank, and a second rotor on the
  // coupler geared to the crank's and coupler's sum (a belt from the ground).
  const std::string extra = bar("rotor", 0.1) + hinge("rotor_joint", "ground", "rotor", "0 0 0", "0 0 1", "false") +
                            "<coupling name=\"gear\"><predecessor link=\"crank\"/><successor link=\"rotor\"/>"
                            "<ratio value=\"6\"/></coupling>";
  const UrdfMechanism m = loadUrdfMechanismString(fourBar("0 0 1", extra), "inline.urdf");
  ASSERT_EQ(m.constraints.size(), 2u);
  const Constraint& c = m.constraints[1];
  EXPECT_EQ(c.kind, ConstraintKind::Coupling);
  EXPECT_EQ(c.coupling_joints, (std::vector<int>{m.model.jointId("crank_joint"), m.model.jointId("rotor_joint")}));
  EXPECT_EQ(c.coupling_coefficients, (std::vector<double>{6.0, -1.0}));
  EXPECT_EQ(m.independent_joints, (std::vector<std::string>{"crank_joint"}));

  const std::string belt = bar("rotor", 0.1) + hinge("rotor_joint", "ground", "rotor", "0 0 0", "0 0 1", "false") +
                           "<coupling name=\"belt\"><predecessor link=\"coupler\"/><successor link=\"rotor\"/>"
                           "<ratio value=\"2\"/></coupling>";
  const UrdfMechanism b = loadUrdfMechanismString(fourBar("0 0 1", belt), "inline.urdf");
  const Constraint& d = b.constraints[1];
  EXPECT_EQ(d.coupling_joints, (std::vector<int>{b.model.jointId("coupler_joint"), b.model.jointId("crank_joint"),
                                                 b.model.jointId("rotor_joint")}));
  EXPECT_EQ(d.coupling_coefficients, (std::vector<double>{2.0, 2.0, -1.0}));
}

TEST(UrdfLoops, TheTreeLoaderNamesTheLoopItCannotReturn) {
  try {
    loadUrdfString(fourBar(), "inline.urdf");
    ADD_FAILURE() << "loadUrdf returned the open tree of a closed mechanism";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("<loop name='closure'>: a loop closure written as a URDF+ extension"),
              std::string::npos)
        << e.what();
  }
}

TEST(UrdfLoops, BadExtensionsAreErrorsNamingTheElement) {
  const std::string base = fourBar();
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string xml = base;
    const std::size_t at = xml.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return xml.replace(at, from.size(), to);
  };
  const std::string coupling = "<coupling name=\"g\"><predecessor link=\"crank\"/><successor link=\"rocker\"/>";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {with("type=\"revolute\"", "type=\"prismatic\""),
       "<loop name='closure'> (line 8): loop type 'prismatic': this loader reads type=\"revolute\" loops"},
      {with("successor link=\"rocker\"", "successor link=\"rockr\""),
       "<loop name='closure'> (line 8): <successor> link 'rockr' does not exist"},
      {with("<successor link=\"rocker\"><origin xyz=\"0.5 0 0\"/></successor>", ""),
       "<loop name='closure'> (line 8): missing <successor link=\"...\"> element"},
      {with("<axis xyz=\"0 0 1\"/></loop>", "<axis xyz=\"0 0 0\"/></loop>"), "the loop's axis must not be zero"},
      {with("<axis xyz=\"0 0 1\"/></loop>", "</loop>"), "missing <axis xyz=\"...\"> element"},
      {with("<origin xyz=\"1 0 0\"/></predecessor>", "<origin xyz=\"1 x 0\"/></predecessor>"), "'x' is not a number"},
      {with("independent=\"true\"", "independent=\"yes\""),
       "joint 'crank_joint': independent='yes' (line 5): expected 'true' or 'false'"},
      {with("</robot>", coupling + "<ratio value=\"0\"/></coupling></robot>"), "<ratio value='0'>: must not be zero"},
      {with("</robot>", coupling + "</coupling></robot>"), "missing <ratio value=\"...\"> element"},
      {with("</robot>", "<coupling name=\"closure\"><predecessor link=\"crank\"/><successor link=\"rocker\"/>"
                        "<ratio value=\"2\"/></coupling></robot>"),
       "duplicate loop or coupling name"},
      {with("</robot>", "<coupling name=\"g\"><predecessor link=\"ground\"/><successor link=\"crank\"/>"
                        "<ratio value=\"2\"/></coupling></robot>"),
       "no joint moves link 'ground' relative to the other link"},
      {with("successor link=\"rocker\"><origin", "successor link=\"coupler\"><origin"),
       "predecessor and successor are the same link"},
      {with("<axis xyz=\"0 0 1\"/></loop>", "<axes xyz=\"0 0 1\"/></loop>"),
       "<loop name='closure'> (line 8): unknown element <axes> (line 8); expected <axis>, <predecessor>, <successor>"},
  };
  for (const auto& [xml, expected] : cases) {
    const std::string message = mechanismError(xml);
    EXPECT_NE(message.find(expected), std::string::npos) << "expected: " << expected << "\ngot: " << message;
    EXPECT_EQ(message.rfind("inline.urdf: ", 0), 0u) << message;
  }
  // A dependent mark in a file with loops must coordinate one of them.
  const std::string stray = bar("tail", 0.2) + hinge("tail_joint", "ground", "tail", "0 0 0", "0 0 1", "false");
  EXPECT_NE(mechanismError(fourBar("0 0 1", stray))
                .find("joint 'tail_joint': independent=\"false\", but the joint moves no <loop> or <coupling>"),
            std::string::npos);
}

TEST(UrdfLoops, SceneClosesTheLoopAndClusterAbaAgreesWithKkt) {
  const test::QuietLog quiet;
  // Gravity in the mechanism's plane; the crank is the independent joint (from the file).
  // q = 0 is the parallelogram's flat (singular) pose: start from a closed, regular one.
  const TemporaryScene files(fourBar(), "name: urdf_four_bar\nmodels:\n  - urdf: mechanism.urdf\n"
                                        "initial:\n  q: {crank_joint: 1.0, coupler_joint: -1.0, rocker_joint: 1.0}\n"
                                        "gravity: [0, -9.81, 0]\nsolver: kkt\n");
  const Scene scene = loadScene(files.scene());
  ASSERT_EQ(scene.constraints.size(), 1u);
  EXPECT_EQ(scene.solver_settings.independent_dofs, (std::vector<int>{scene.model->idx_v[scene.model->jointId("crank_joint")]}));
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  EXPECT_EQ(set.dimension(), 2);
  KktSolver kkt(set, {});
  SolverSettings settings;
  settings.independent_dofs = scene.solver_settings.independent_dofs;
  ClusterAbaSolver cluster(set, settings);
  int compared = 0;
  for (const SampledState& s : sampleStates(scene, set, 12, 9100)) {
    const std::vector<Force> fext(scene.model->nbodies(), Force(Vector6::Zero()));
    VectorX vdot_ref(3), lambda_ref(2), vdot(3), lambda(2);
    kkt.solve(s.q, s.v, s.tau, fext, vdot_ref, lambda_ref);
    if (!cluster.solve(s.q, s.v, s.tau, fext, vdot, lambda).converged || cluster.lastPivotRatio() < 1e-6) continue;
    Data data(*scene.model);
    EXPECT_GT(test::relativeError(aba(*scene.model, data, s.q, s.v, s.tau, fext), vdot_ref), 1e-3);
    EXPECT_LE(test::relativeError(vdot, vdot_ref), 1e-9);
    EXPECT_LE(test::relativeError(lambda, lambda_ref), 1e-8);
    ++compared;
  }
  EXPECT_GE(compared, 9);
}

// Opened on its own (`loopsim run FILE.urdf`), a URDF+ file starts at q = 0,
// here the parallelogram's flat pose: the error says how to give a closed one.
TEST(UrdfLoops, OpenedAloneAFlatStartSaysHowToGiveAPose) {
  const TemporaryScene files(fourBar(), "");
  try {
    loadModelScene(files.urdf(), ModelFormat::urdf);
    ADD_FAILURE() << "the flat four-bar loaded";
  } catch (const ModelError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("rank-deficient at the initial configuration"), std::string::npos) << message;
    EXPECT_NE(message.find("The file's loops are taken at its q = 0 (a URDF+ file has no initial pose): open it in "
                           "a scene that starts from a closed, regular pose"),
              std::string::npos)
        << message;
  }
}

// The reference loop files: each closes one planar loop whose dependent joints
// number its rows; as scene models, cluster-aba agrees with kkt on them.
TEST(UrdfLoopsSharedModels, LoopMechanismsCloseAndAgree) {
  REQUIRE_SHARED("loops/four_bar.urdf");
  const test::QuietLog quiet;
  unsigned seed = 9200;
  // Closed, regular starting poses (the files' q = 0 is flat, or open for the six-bar).
  // With the independent joints each file marks (the leg's hip is in no loop).
  const std::vector<std::tuple<std::string, std::string, std::vector<std::string>>> files_and_poses = {
      {"four_bar.urdf", "{joint1: 1.0, joint2: -1.0, joint3: 1.0}", {"joint1"}},  // a parallelogram
      {"six_bar.urdf", "{joint4: 0.9733899101495, joint5: -1.6961241579630}",     // links 4, 5 reach the
       {"joint1", "joint2", "joint3"}},                                            // straight chain's tip
      {"planar_leg_linkage.urdf", "{thigh_to_driver: 1.0, driver_to_foot: -1.0, thigh_to_support: 1.0}",
       {"thigh_to_driver"}},
  };
  for (const auto& [file, pose, independent] : files_and_poses) {
    const char* name = file.c_str();
    const UrdfMechanism m = loadUrdfMechanism(sharedModel(std::string("loops/") + name));
    ASSERT_EQ(m.constraints.size(), 1u) << name;
    EXPECT_EQ(m.constraints[0].row_mask, (std::vector<int>{0, 1})) << name;
    EXPECT_EQ(m.independent_joints, independent) << name;
    // The loops lie in the xy plane: gravity along -y acts in it.
    const TemporaryScene files("", "name: shared_loop\nmodels:\n  - urdf: " + sharedModel(std::string("loops/") + name).string() +
                                   "\ninitial:\n  q: " + pose + "\ngravity: [0, -9.81, 0]\nsolver: kkt\n");
    const Scene scene = loadScene(files.scene());
    const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
    const int nv = scene.model->nv, rows = set.dimension();
    KktSolver kkt(set, {});
    SolverSettings settings;
    settings.independent_dofs = scene.solver_settings.independent_dofs;
    ClusterAbaSolver cluster(set, settings);
    int compared = 0;
    for (const SampledState& s : sampleStates(scene, set, 12, seed++)) {
      const std::vector<Force> fext(scene.model->nbodies(), Force(Vector6::Zero()));
      VectorX vdot_ref(nv), lambda_ref(rows), vdot(nv), lambda(rows);
      kkt.solve(s.q, s.v, s.tau, fext, vdot_ref, lambda_ref);
      if (!cluster.solve(s.q, s.v, s.tau, fext, vdot, lambda).converged || cluster.lastPivotRatio() < 1e-6) continue;
      EXPECT_LE(test::relativeError(vdot, vdot_ref), 1e-9) << name;
      ++compared;
    }
    EXPECT_GE(compared, 9) << name;
  }
}

// The reference robots' transmissions: the couplings our Mini Cheetah scene
// declares by hand are the file's own.
TEST(UrdfLoopsSharedModels, MiniCheetahCouplingsAreTheScenes) {
  REQUIRE_SHARED("extras/mini_cheetah.urdf");
  const UrdfMechanism m = loadUrdfMechanism(sharedModel("extras/mini_cheetah.urdf"));
  const Scene scene = loadScene(test::scenesDir() / "mini_cheetah_standing.yaml");
  int matched = 0;
  for (const Constraint& c : m.constraints) {
    ASSERT_EQ(c.kind, ConstraintKind::Coupling) << c.name;
    for (const Constraint& d : scene.constraints) {
      if (d.name != c.name) continue;
      ASSERT_EQ(d.coupling_joints.size(), c.coupling_joints.size()) << c.name;
      for (std::size_t k = 0; k < c.coupling_joints.size(); ++k) {
        EXPECT_EQ(scene.model->joint_names[d.coupling_joints[k]], m.model.joint_names[c.coupling_joints[k]]) << c.name;
        EXPECT_EQ(d.coupling_coefficients[k], c.coupling_coefficients[k]) << c.name;
      }
      ++matched;
    }
  }
  EXPECT_EQ(matched, 12);
  EXPECT_EQ(m.independent_joints.size(), 12u);
  const UrdfMechanism humanoid = loadUrdfMechanism(sharedModel("extras/mit_humanoid.urdf"));
  EXPECT_EQ(humanoid.constraints.size(), 18u);
}

}  // namespace
}  // namespace loopsim
