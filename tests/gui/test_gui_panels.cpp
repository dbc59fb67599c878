// The control panel clicked (guiClicking): the solver's radio buttons, Run,
// Pause and Reset, the scene picker and a joint slider dragged.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "gui_test_support.hpp"
#include <loopsim/scene/scene_loader.hpp>

namespace fs = std::filesystem;
using namespace loopsim::test::gui;

namespace {

// The GUI's "joint 'NAME' set to V at t = T s; position violation E; q = ..." lines, in order.
struct JointSet {
  double value = 0.0, time = 0.0, violation = 0.0;
  std::vector<double> q;
};

std::vector<JointSet> jointSets(const std::string& text, const std::string& joint) {
  std::vector<JointSet> sets;
  const std::string marker = "joint '" + joint + "' set to ";
  for (auto at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    const std::string line = text.substr(at, text.find('\n', at) - at);
    JointSet set;
    set.value = numberAfter(line, marker);
    set.time = numberAfter(line, " at t = ");
    set.violation = numberAfter(line, "; position violation ");
    const auto q_at = line.find("; q = ");
    if (q_at != std::string::npos) {
      std::istringstream in(line.substr(q_at + 6));
      for (double x; in >> x;) set.q.push_back(x);
    }
    sets.push_back(set);
  }
  return sets;
}

// The last "widget: 'LABEL' at X0 Y0 X1 Y1" rectangle of a --log-widgets log.
bool widgetBox(const std::string& text, const std::string& label, std::array<int, 4>& box) {
  const std::string marker = "widget: '" + label + "' at ";
  const auto at = text.rfind(marker);
  if (at == std::string::npos) return false;
  std::istringstream in(text.substr(at + marker.size()));
  return static_cast<bool>(in >> box[0] >> box[1] >> box[2] >> box[3]);
}

}  // namespace

// The Solver panel's radio button, clicked: the next steps use the new solver from the state
// reached (no reset), exactly as a scripted --switch-solver at that step.
TEST(Gui, ClickingASolverInThePanelSwitchesOnTheNextStepKeepingTheState) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  const fs::path clicked = freshPath("clicked_switch.csv"), scripted = freshPath("scripted_switch.csv");
  const Output out = guiClicking(scenePath("four_bar.yaml") + " --paused --record " + clicked.string(),
                                 "click 'Step (Right)'; waitfor 'event: step to t = 0.001 s'\n"
                                 "click 'Step (Right)'; waitfor 'event: step to t = 0.002 s'\n"
                                 "click 'Step (Right)'; waitfor 'event: step to t = 0.003 s'\n"
                                 "click 'prox-ltl'; waitfor 'event: solver prox-ltl'\n"
                                 "click 'Step (Right)'; waitfor 'event: step to t = 0.004 s'\n"
                                 "click 'Step (Right)'; waitfor 'event: step to t = 0.005 s'");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("event: solver prox-ltl from t = 0.003 s (step 3)"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("event: step to t = 0.005 s (step 5)"), std::string::npos) << out.text;
  const Output script = runGui(scenePath("four_bar.yaml") + " --switch-solver 0.003:prox-ltl --frames 1 --size 160x120 --msaa 0 "
                                                            "--hide-ui --record " + scripted.string());
  ASSERT_EQ(script.exit_code, 0) << script.text;
  const loopsim::CsvTable c = loopsim::readCsv(clicked), s = loopsim::readCsv(scripted);
  ASSERT_EQ(c.columns, s.columns);
  ASSERT_EQ(c.rows.size(), 6u) << "t = 0 to 5 ms: the state was kept, not reset";
  ASSERT_GT(s.rows.size(), 6u);
  // Row k: the state at the start of step k and that step's torques, forces and solver figures.
  for (std::size_t k = 0; k < c.rows.size(); ++k) {
    const bool last = k + 1 == c.rows.size();  // the final state: no step taken from it
    for (std::size_t col = 0; col < c.columns.size(); ++col) {
      const std::string& column = c.columns[col];
      if (column.rfind("timing:", 0) == 0) continue;
      if (last && column != "t" && column.rfind("q:", 0) != 0 && column.rfind("v:", 0) != 0) continue;
      const double a = c.rows[k][col], b = s.rows[k][col];
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << column << " at row " << k << ": " << a << " vs " << b;
    }
  }
  // prox-ltl iterates where kkt solves directly: the switch shows in the record.
  const auto iterations = static_cast<std::size_t>(c.requireColumn("iterations"));
  EXPECT_NE(c.rows[3][iterations], c.rows[2][iterations]) << "the step from t = 3 ms is prox-ltl's";
  for (const fs::path& p : {clicked, scripted}) {
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
}

// Run, Pause and Reset, clicked: the simulation runs from the click on Run and stops at the
// click on Pause (the record ends there, however long the window stays open after it); Reset
// takes it back to t = 0.
TEST(Gui, ClickingRunPauseAndResetInThePanelRunsStopsAndResetsTheSimulation) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  const fs::path csv = freshPath("run_pause.csv");
  const Output out = guiClicking(scenePath("four_bar.yaml") + " --paused --record " + csv.string(),
                                 "click 'Run (Space)'; waitfor 'event: run from t = 0 s (step 0)'\n"
                                 "sleep 0.5\n"
                                 "click 'Pause (Space)'; waitfor 'event: pause at'\n"
                                 "sleep 0.5\n"
                                 "click 'Run (Space)'; waitfor 'event: run from' 2\n"
                                 "sleep 0.3\n"
                                 "click 'Pause (Space)'; waitfor 'event: pause at' 2\n"
                                 "sleep 0.5\n"
                                 "click 'Reset (Backspace)'; waitfor 'event: reset to'");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  const auto first_pause = out.text.find("event: pause at t = ");
  ASSERT_NE(first_pause, std::string::npos) << out.text;
  const auto second_pause = out.text.find("event: pause at t = ", first_pause + 1);
  ASSERT_NE(second_pause, std::string::npos) << out.text;
  const double paused = numberAfter(out.text.substr(first_pause), "event: pause at t = ");
  const double resumed = numberAfter(out.text.substr(first_pause), "event: run from t = ");
  const double paused_again = numberAfter(out.text.substr(second_pause), "event: pause at t = ");
  EXPECT_GT(paused, 0.0) << "it ran after the click on Run\n" << out.text;
  EXPECT_EQ(resumed, paused) << "nothing ran while paused\n" << out.text;
  EXPECT_GT(paused_again, resumed) << out.text;
  EXPECT_NE(out.text.find("event: reset to t = 0 s (step 0)", second_pause), std::string::npos) << out.text;
  const loopsim::CsvTable table = loopsim::readCsv(csv);
  ASSERT_FALSE(table.rows.empty());
  EXPECT_NEAR(table.rows.back()[static_cast<std::size_t>(table.requireColumn("t"))], paused_again, 1e-9)
      << "no step after the last click on Pause";
  fs::remove(csv);
  fs::remove(fs::path(csv).replace_extension(".json"));
}

// The File panel's scenes/ combo, clicked open, and another scene's entry, clicked: the GUI
// opens that scene in place of the first (the event, and the loaded model's name in the log).
// Not a --frames run, whose summary prints the final q: that run ignores the mouse (scripted).
TEST(Gui, PickingASceneInTheFilePanelOpensIt) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  // belt_chain.yaml is among the first entries the list shows without scrolling it.
  const Output out = guiClicking(scenePath("four_bar.yaml") + " --paused",
                                 "click 'scenes/'; click 'scenes/belt_chain.yaml'; waitfor 'event: opened '");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  const auto opened = out.text.find("event: opened ");
  ASSERT_NE(opened, std::string::npos) << out.text;
  const std::string path = out.text.substr(opened + 14, out.text.find('\n', opened) - opened - 14);
  EXPECT_TRUE(fs::equivalent(path, scenePath("belt_chain.yaml"))) << path;
  EXPECT_EQ(out.text.find("event: opened ", opened + 1), std::string::npos) << "one scene opened\n" << out.text;
  // The session's model is the belt chain's (the name comes from the scene the GUI loaded).
  EXPECT_NE(out.text.find("opened " + path + " (belt_chain, solver "), std::string::npos) << out.text;
  EXPECT_EQ(out.text.find("cannot open"), std::string::npos) << out.text;
}

// The Joints section's slider, dragged with the mouse (press, move, release) while paused: the
// joint takes the value under the mouse, so it moves by the dragged distance in the slider's
// scale, the simulation does not step, and the other joints follow so that the loop stays closed
// at every value the drag set (the GUI's own line per value: the q as set and the closure error).
TEST(Gui, DraggingAJointSliderWithTheMouseSetsTheJointAndTheLoopStaysClosed) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  const std::string set = "waitfor \"joint 'crank_joint' set to\" ";
  // The crank starts at 1 rad, near 66 % of its ±pi slider; each move sets a new value (a line).
  const Output out = guiClicking(scenePath("four_bar.yaml") + " --paused",
                                 "click Joints\n"
                                 "press crank_joint 66; " + set + "1\n"
                                 "moveto crank_joint 70; " + set + "2\n"
                                 "moveto crank_joint 75; " + set + "3\n"
                                 "moveto crank_joint 80; " + set + "4\n"
                                 "release crank_joint");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  const loopsim::Scene scene = loopsim::loadScene(scenePath("four_bar.yaml"));
  const loopsim::Model& model = *scene.model;
  const int joint = model.jointId("crank_joint");
  const auto crank = static_cast<std::size_t>(model.idx_q[static_cast<std::size_t>(joint)]);
  const std::vector<JointSet> sets = jointSets(out.text, "crank_joint");
  ASSERT_EQ(sets.size(), 4u) << "one value at the press and one per move\n" << out.text;
  for (const JointSet& s : sets) {
    EXPECT_EQ(s.time, 0.0) << "paused: no step";
    ASSERT_EQ(s.q.size(), static_cast<std::size_t>(model.nq)) << out.text;
    EXPECT_EQ(s.q[crank], s.value) << "the slider's joint keeps the value set";
    EXPECT_LT(s.violation, 1e-10) << "the loop is closed at " << s.value;
  }
  // ImGui maps a float slider's frame, less 2 px of padding each side and its 10 px grab, onto
  // the range: the drag from 66 % to 80 % of the frame moves the crank by that fraction of it.
  std::array<int, 4> frame{};
  ASSERT_TRUE(widgetBox(out.text, "crank_joint", frame)) << out.text;
  const int width = frame[2] - frame[0];
  const int pressed_x = frame[0] + width * 66 / 100, released_x = frame[0] + width * 80 / 100;
  const auto iq = static_cast<Eigen::Index>(crank);
  ASSERT_FALSE(std::isfinite(model.lower_position_limit[iq]) && std::isfinite(model.upper_position_limit[iq]));
  const double lower = -std::numbers::pi, upper = std::numbers::pi;  // no position limits: ±pi (jointSliderRange)
  const double per_pixel = (upper - lower) / (width - 4 - 10);
  const double dragged = sets.back().value - sets.front().value;
  std::printf("[ measured ] slider %d px: dragged %d px, crank %.4f -> %.4f rad (%.4f, expected %.4f), closure <= %.1e\n",
              width, released_x - pressed_x, sets.front().value, sets.back().value, dragged,
              (released_x - pressed_x) * per_pixel, std::max({sets[0].violation, sets[1].violation, sets[2].violation, sets[3].violation}));
  EXPECT_NEAR(dragged, (released_x - pressed_x) * per_pixel, 1.5 * per_pixel) << out.text;
  EXPECT_NEAR(sets.back().value, lower + (released_x - (frame[0] + 2 + 5)) * per_pixel, 1.5 * per_pixel) << "the value under the mouse";
  double followed = 0.0;
  for (std::size_t i = 0; i < sets.back().q.size(); ++i) {
    if (i != crank) followed = std::max(followed, std::abs(sets.back().q[i] - sets.front().q[i]));
  }
  EXPECT_GT(followed, 0.05) << "the coupler and rocker followed the crank\n" << out.text;
}
