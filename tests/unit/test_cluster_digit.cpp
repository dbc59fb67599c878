// Digit's leg loops and the cluster algorithms of paper 004: every
// leg loop closes on a rod with a ball joint at one end and a connect at the
// other, so the rod's spin about its own axis moves no constrained point: its
// column of K is 0 at every state, and it can only be independent. The scene
// key `independent` therefore declares single dofs of a joint as well as whole
// joints ({joint: left-achilles-rod, dofs: [wx]}: the rod runs along its x axis).
//   - the key's entries and their errors (file, element, value);
//   - declaring the rods whole-joint dependent is refused, the message naming
//     the rod and the dof to declare;
//   - digit_standing.yaml declares the spins, the springs and the base (the
//     feet welded, legs and base make one cluster): cluster-aba is accepted (the
//     solver panel's reason, solverRefusal, is empty), and refused with the
//     reason without the declaration.
// cluster-aba against kkt, cluster-rnea and the 10 s run on Digit are in
// test_cluster_solvers.cpp (Digit is one of its cluster scenes), cluster-efpa
// in test_cluster_efpa.cpp, allocation in test_allocation.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/loops/cluster_structure.hpp>
#include "model_error_message.hpp"
#include "tree_test_cases.hpp"

using namespace loopsim;
using namespace loopsim::test;

namespace {

/// refuseSolver's reason, "" when the solver is accepted.
std::string refusalReason(const Scene& scene, const std::string& solver) {
  const auto refusal = refuseSolver(scene.solverProblem(), solver);
  return refusal ? refusal->reason : std::string();
}


std::string digitStandingText() {
  std::ifstream in(scenesDir() / "digit_standing.yaml");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The scene's text with its `independent:` entry (up to `gravity:`) replaced.
std::string withIndependent(const std::string& replacement) {
  std::string text = digitStandingText();
  const std::size_t start = text.find("\nindependent:");
  const std::size_t end = text.find("\ngravity:");
  if (start == std::string::npos || end == std::string::npos) return text;
  return text.substr(0, start + 1) + replacement + text.substr(end + 1);
}

std::string loadError(const std::string& independent) {
  const std::string path = (scenesDir() / "digit_standing.yaml").string();
  return messageOf([&] { loadSceneString(withIndependent(independent), path, scenesDir()); });
}

}  // namespace

TEST(ClusterDigit, SceneKeyDeclaresSingleDofs) {
  const Scene scene = loadScene(scenesDir() / "digit_standing.yaml");
  const Model& m = *scene.model;
  const std::vector<int>& dofs = scene.solver_settings.independent_dofs;
  auto declared = [&](const std::string& joint, int k) {
    return std::find(dofs.begin(), dofs.end(), m.idx_v[m.jointId(joint)] + k) != dofs.end();
  };
  EXPECT_TRUE(std::is_sorted(dofs.begin(), dofs.end()));
  for (int k = 0; k < 6; ++k) EXPECT_TRUE(declared("base_joint", k)) << "a whole floating joint: all 6 dofs";
  for (const std::string side : {"left-", "right-"}) {
    for (const std::string rod : {"achilles-rod", "toe-A-rod", "toe-B-rod"}) {
      EXPECT_TRUE(declared(side + rod, 0)) << side + rod;
      EXPECT_FALSE(declared(side + rod, 1)) << side + rod;
      EXPECT_FALSE(declared(side + rod, 2)) << side + rod;
    }
    EXPECT_TRUE(declared(side + "shin", 0));
    EXPECT_FALSE(declared(side + "knee", 0));
  }
  // Positions name the same dofs as names.
  std::string text = digitStandingText();
  for (std::size_t at = text.find("dofs: [wx]"); at != std::string::npos; at = text.find("dofs: [wx]", at)) {
    text.replace(at, 10, "dofs: [0]");
  }
  const Scene numbered = loadSceneString(text, "digit.yaml", scenesDir());
  EXPECT_EQ(numbered.solver_settings.independent_dofs, dofs);
  EXPECT_EQ(numbered.solver_settings.independent_dofs_internal_loops, scene.solver_settings.independent_dofs_internal_loops);
  // cluster-efpa's own list: the knee and toe motors, no base.
  const std::vector<int>& internal = scene.solver_settings.independent_dofs_internal_loops;
  auto internal_declared = [&](const std::string& joint) {
    return std::find(internal.begin(), internal.end(), m.idx_v[m.jointId(joint)]) != internal.end();
  };
  EXPECT_TRUE(internal_declared("left-knee"));
  EXPECT_TRUE(internal_declared("right-toe-B"));
  EXPECT_FALSE(internal_declared("base_joint"));
  EXPECT_EQ(internal.size(), 16u);
  // The legs and base cluster: 46 dofs, 30 rows, 16 declared; the arms' 8 dofs are independent without it.
  const ConstraintSet set(m, scene.constraints, scene.time_constant);
  EXPECT_EQ(static_cast<int>(dofs.size()), 16);
  EXPECT_EQ(ClusterStructure(set, dofs, "test").independentDofs(), m.nv - set.dimension());
}

TEST(ClusterDigit, BadSingleDofEntriesAreClearErrors) {
  const std::string rest = ", left-shin]\n";
  struct Case {
    std::string yaml;
    std::vector<std::string> expected;  // substrings of the message
  };
  const std::vector<Case> cases = {
      {"independent: [{joint: left-achilles-rod, dofs: [3]}" + rest,
       {"digit_standing.yaml", "independent[0].dofs[0]", "dof 3 is not a dof of joint 'left-achilles-rod', which has 3"}},
      {"independent: [{joint: left-achilles-rod, dofs: [wq]}" + rest,
       {"unknown dof 'wq' of joint 'left-achilles-rod'", "its dofs are wx, wy, wz (or 0 to 2)"}},
      {"independent: [{joint: left-shin, dofs: [wx]}" + rest, {"its one dof is 0"}},
      {"independent: [{joint: left-achilles-rod, dofs: [-1]}" + rest, {"dof -1 is not a dof"}},
      {"independent: [{joint: left-achilles-rod, dofs: [0.5]}" + rest, {"expected an integer"}},
      {"independent: [{joint: left-achilles-rod, dofs: []}" + rest, {"at least one dof of joint 'left-achilles-rod'"}},
      {"independent: [{joint: left-achilles-rod}" + rest, {"'dofs' is required"}},
      {"independent: [{dofs: [0]}" + rest, {"'joint' is required"}},
      {"independent: [{joint: left-achilles-rod, dof: [0]}" + rest, {"dof", "independent[0]"}},
      // "did you mean" names the right joint
      {"independent: [{joint: left-achiles-rod, dofs: [0]}" + rest, {"unknown joint 'left-achiles-rod'", "left-achilles-rod"}},
      {"independent: [left-shin, {joint: left-shin, dofs: [0]}]\n",
       {"independent[1]", "dof 0 of joint 'left-shin' listed twice"}},
      {"independent: [{joint: left-achilles-rod, dofs: [0, wx]}]\n", {"listed twice"}},
      // An entry given where the list belongs reads as the per-view map, and is refused by its key.
      {"independent: {joint: left-achilles-rod, dofs: [0]}\n",
       {"unknown key 'joint'; valid keys: all_constraints, internal_loops"}},
  };
  for (const Case& c : cases) {
    const std::string msg = loadError(c.yaml);
    for (const std::string& part : c.expected) EXPECT_NE(msg.find(part), std::string::npos) << c.yaml << msg;
  }
}

// independent: {all_constraints: [...], internal_loops: [...]}: each list is
// checked against its own view; a list form sets both.
TEST(ClusterDigit, OneListPerView) {
  const std::string all = "[base_joint, left-shin, left-heel-spring, right-shin, right-heel-spring, "
                          "{joint: left-achilles-rod, dofs: [wx]}, {joint: left-toe-A-rod, dofs: [wx]}, "
                          "{joint: left-toe-B-rod, dofs: [wx]}, {joint: right-achilles-rod, dofs: [wx]}, "
                          "{joint: right-toe-A-rod, dofs: [wx]}, {joint: right-toe-B-rod, dofs: [wx]}]";
  // The list form: cluster-aba's view fits, and cluster-efpa gets the same list.
  const std::string path = (scenesDir() / "digit_standing.yaml").string();
  const Scene listed = loadSceneString(withIndependent("independent: " + all + "\n"), path, scenesDir());
  EXPECT_EQ(listed.solver_settings.independent_dofs_internal_loops, listed.solver_settings.independent_dofs);
  // Only one view given: the other is empty, and its solver refuses the scene.
  const Scene aba_only = loadSceneString(withIndependent("independent: {all_constraints: " + all + "}\n"), path, scenesDir());
  EXPECT_TRUE(aba_only.solver_settings.independent_dofs_internal_loops.empty());
  EXPECT_EQ(refusalReason(aba_only, "cluster-aba"), "");
  // The all_constraints list where internal_loops belongs: an error naming that key.
  std::string msg = loadError("independent: {internal_loops: " + all + "}\n");
  EXPECT_NE(msg.find("independent.internal_loops"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'base_joint' declared independent but close no loop"), std::string::npos) << msg;
  msg = loadError("independent: {all_constraint: " + all + "}\n");
  EXPECT_NE(msg.find("all_constraints"), std::string::npos) << msg;  // did you mean
  msg = loadError("independent: {}\n");
  EXPECT_NE(msg.find("all_constraints"), std::string::npos) << msg;
}

TEST(ClusterDigit, WholeRodsDependentAreRefusedNamingTheSpinDof) {
  // Whole 1-dof joints only, so that the counts fit (4 per loop cluster) and
  // the rods' three dofs stay dependent: K_d is singular along their spins.
  std::string independent = "independent: [";
  for (const std::string side : {"left", "right"}) {
    for (const std::string joint : {"knee", "shin", "tarsus", "heel-spring", "toe-A", "toe-B", "toe-pitch", "toe-roll"}) {
      independent += side + "-" + joint + (side == "right" && joint == "toe-roll" ? "]\n" : ", ");
    }
  }
  const std::string msg = loadError(independent);
  EXPECT_NE(msg.find("moves no constrained point"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dependent joint(s) 'left-achilles-rod'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("spin about its own axis"), std::string::npos) << msg;
  EXPECT_NE(msg.find("{joint: left-achilles-rod, dofs: [wx]}"), std::string::npos) << msg;
  // Both views say it: cluster-aba's (feet welded, one cluster down to the base) and cluster-efpa's.
  EXPECT_NE(msg.find("nor does it coordinate the internal loops alone"), std::string::npos) << msg;
}

TEST(ClusterDigit, SolverPanelTakesClusterAbaOnDigit) {
  const Scene scene = loadScene(scenesDir() / "digit_standing.yaml");
  EXPECT_EQ(refusalReason(scene, "cluster-aba"), "");
  EXPECT_EQ(refusalReason(scene, "kkt"), "");
  EXPECT_NO_THROW(requireSolver(scene.solverProblem(), "cluster-aba"));
  // Without the declaration the panel greys it with the reason.
  const Scene undeclared = loadSceneString(withIndependent(""), (scenesDir() / "digit_standing.yaml").string(), scenesDir());
  const std::string reason = refusalReason(undeclared, "cluster-aba");
  EXPECT_NE(reason.find("needs"), std::string::npos) << reason;
  EXPECT_NE(reason.find("independent"), std::string::npos) << reason;
  const Scene four_bar = loadScene(scenesDir() / "four_bar.yaml");
  EXPECT_EQ(refusalReason(four_bar, "cluster-aba"), "");
  EXPECT_NE(refusalReason(four_bar, "pv").find("internal loops"), std::string::npos) << refusalReason(four_bar, "pv");
}
