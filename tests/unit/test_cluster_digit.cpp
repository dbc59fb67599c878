// Digit's leg loops and the cluster algorithms of paper 004 (issue 12): every
// leg loop closes on a rod with a ball joint at one end and a connect at the
// other, so the rod's spin about its own axis moves no constrained point: its
// column of K is 0 at every state. That dof can only be independent, but
// `independent` declares whole joints (a ball's 3 dofs): the toe cluster
// (toe-A, toe-B, their rods, toe-pitch, toe-roll: 10 dofs, 6 rows) needs 4
// independent dofs and its two rods alone would bring 6. So no declaration
// clusters Digit; the refusal must say why (the rods' spin dofs, by name),
// and the solver panel's reason (solverRefusal) is that message.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include "tree_test_cases.hpp"

using namespace loopsim;
using namespace loopsim::test;

namespace {

std::string digitStandingText() {
  std::ifstream in(scenesDir() / "digit_standing.yaml");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST(ClusterDigit, TheRodsSpinDofsCannotBeDependent) {
  // The actuated knee, toe-A and toe-B with the leg's other 1-dof joints, so
  // that the counts fit (4 per loop cluster) and only the rods stay dependent.
  std::string text = digitStandingText();
  text += "independent: [";
  for (const std::string side : {"left", "right"}) {
    for (const std::string joint : {"knee", "shin", "tarsus", "heel-spring", "toe-A", "toe-B", "toe-pitch", "toe-roll"}) {
      text += side + "-" + joint + (side == "right" && joint == "toe-roll" ? "]\n" : ", ");
    }
  }
  const std::string path = (scenesDir() / "digit_standing.yaml").string();
  try {
    loadSceneString(text, path, scenesDir());
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("independent"), std::string::npos) << msg;
    EXPECT_NE(msg.find("moves no constrained point"), std::string::npos) << msg;
    EXPECT_NE(msg.find("dependent joint(s) 'left-achilles-rod'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("spin about its own axis"), std::string::npos) << msg;
    // Both views say it: cluster-aba's (feet welded, one cluster down to the base) and cluster-efpa's.
    EXPECT_NE(msg.find("nor does it coordinate the internal loops alone"), std::string::npos) << msg;
  }
}

TEST(ClusterDigit, SolverPanelReasonForDigitStanding) {
  const Scene scene = loadScene(scenesDir() / "digit_standing.yaml");
  const std::string reason = solverRefusal(scene, "cluster-aba");
  EXPECT_NE(reason.find("needs"), std::string::npos) << reason;
  EXPECT_NE(reason.find("independent"), std::string::npos) << reason;
  EXPECT_EQ(solverRefusal(scene, "kkt"), "");
  const Scene four_bar = loadScene(scenesDir() / "four_bar.yaml");
  EXPECT_EQ(solverRefusal(four_bar, "cluster-aba"), "");
  EXPECT_NE(solverRefusal(four_bar, "pv").find("internal loops"), std::string::npos) << solverRefusal(four_bar, "pv");
}
