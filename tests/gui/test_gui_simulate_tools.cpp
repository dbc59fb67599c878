// What MuJoCo's simulate offers beside the view, in loopsim's panels: control
// sliders (an actuated joint's PD target, live), keyframes saved and loaded,
// "Print model" / "Print data" to new text files, and q copied to the clipboard.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gui_test_support.hpp"

namespace fs = std::filesystem;
using namespace loopsim::test::gui;

namespace {

// A 1 kg rod on a hinge held by a PD with the holding feed-forward, starting at 1 rad.
fs::path pdPendulum() {
  const fs::path scene = freshPath("pd_pendulum.yaml");
  std::ofstream(scene) << "name: pd_pendulum\n"
                          "models:\n"
                          "  - urdf: " << (fs::path(LOOPSIM_ASSETS_DIR) / "mechanisms" / "pendulum_limit.urdf").string() << "\n"
                          "    pose: {position: [0, 0, 1.0]}\n"
                          "initial:\n"
                          "  q: {hinge: 1.0}\n"
                          "actuated: [hinge]\n"
                          "controller: {type: pd_hold, feedforward: hold, kp: 200, kd: 10}\n"
                          "gravity: [0, 0, -9.81]\n"
                          "dt: 0.001\n";
  return scene;
}

// The path that a "event: print KIND PATH" line names.
fs::path printedFile(const std::string& text, const std::string& kind) {
  const std::string marker = "event: print " + kind + " ";
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) return {};
  const std::size_t end = text.find('\n', at);
  return text.substr(at + marker.size(), end - at - marker.size());
}

std::string fileText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST(Gui, AControlSliderDrivesTheJointToItsTarget) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path scene = pdPendulum();
  // The target moves from 1 to 1.4 rad; in 2 s the PD (with the feed-forward recomputed at the
  // new target) settles there.
  const Output moved = runGui(scene.string() + " --set-control hinge=1.4 --frames 120 --size 320x240 --msaa 0 --hide-ui");
  ASSERT_EQ(moved.exit_code, 0) << moved.text;
  EXPECT_NE(moved.text.find("control 'hinge' target 1.4 from t = 0 s"), std::string::npos) << moved.text;
  EXPECT_NEAR(numberAfter(moved.text, "gui: q = "), 1.4, 1e-4) << moved.text;
  // Refused, naming the joint and why: outside its range; a scene whose controller has no targets.
  const Output outside = runGui(scene.string() + " --set-control hinge=9 --frames 2 --size 320x240 --msaa 0 --hide-ui");
  EXPECT_EQ(outside.exit_code, 1) << outside.text;
  EXPECT_NE(outside.text.find("position 9 is outside the joint's range"), std::string::npos) << outside.text;
  const Output no_targets =
      runGui(scenePath("pendulum_limit.yaml") + " --set-control hinge=1.0 --frames 2 --size 320x240 --msaa 0 --hide-ui");
  EXPECT_EQ(no_targets.exit_code, 1) << no_targets.text;
  EXPECT_NE(no_targets.text.find("control 'hinge': the scene's controller has no position targets"), std::string::npos)
      << no_targets.text;
  const Output recorded = runGui(scene.string() + " --set-control hinge=1.4 --record " + freshPath("c.csv").string() + " --frames 2");
  EXPECT_EQ(recorded.exit_code, 1) << recorded.text;
  EXPECT_NE(recorded.text.find("--set-control: a record replays the scene's controller"), std::string::npos) << recorded.text;
  fs::remove(scene);
}

TEST(Gui, KeyframesPrintoutsAndCopiedPoseFromThePanel) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  const fs::path scene = pdPendulum();
  const Output out = guiClicking(scene.string() + " --paused",
                                 "step 1; step 2\n"
                                 "click 'Save key'; waitfor 'event: keyframe 1 saved at t = 0.002 s'\n"
                                 "step 3; step 4; step 5\n"
                                 "click 'Load key'; waitfor 'event: keyframe 1 loaded: t = 0.002 s'\n"
                                 "click 'Copy q'; waitfor 'event: copied q'\n"
                                 "click 'Print model'; waitfor 'event: print model'\n"
                                 "click 'Print data'; waitfor 'event: print data'");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  // Loaded: the state of step 2 again (the step after it is step 3 at t = 0.003 s).
  EXPECT_NE(out.text.find("event: keyframe 1 loaded: t = 0.002 s"), std::string::npos) << out.text;
  const double copied = numberAfter(out.text, "event: copied q: ");
  EXPECT_TRUE(std::isfinite(copied) && std::abs(copied - 1.0) < 1e-3) << out.text;
  const fs::path model = printedFile(out.text, "model"), data = printedFile(out.text, "data");
  ASSERT_TRUE(fs::is_regular_file(model)) << out.text;
  ASSERT_TRUE(fs::is_regular_file(data)) << out.text;
  EXPECT_NE(model.filename().string().find("loopsim-model-"), std::string::npos) << model;
  const std::string model_text = fileText(model), data_text = fileText(data);
  EXPECT_NE(model_text.find("controller:  pd_hold, kp 200, kd 10"), std::string::npos) << model_text;
  EXPECT_NE(model_text.find("nv:          1"), std::string::npos) << model_text;
  EXPECT_NE(data_text.find("time 0.002 s, step 2"), std::string::npos) << data_text;
  EXPECT_NE(data_text.find("hinge"), std::string::npos) << data_text;
  fs::remove(model);
  fs::remove(data);
  fs::remove(scene);
}
