// The simulation in the window, scripted from the command line (--frames):
// solver switches against `loopsim run`, records that replay bit for bit, the
// wall clock, a divergence, a joint set and live stabilization changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gui_test_support.hpp"
#include <loopsim/scene/scene_loader.hpp>

namespace fs = std::filesystem;
using namespace loopsim::test::gui;

namespace {

// "gui: q = ... (position violation V)" of a --frames run.
std::vector<double> shownQ(const std::string& text, double& violation) {
  std::vector<double> q;
  const auto at = text.find("gui: q =");
  if (at == std::string::npos) return q;
  const std::string line = text.substr(at + 8, text.find('\n', at) - at - 8);
  std::istringstream in(line.substr(0, line.find(" (")));
  for (double x; in >> x;) q.push_back(x);
  violation = numberAfter(line, "(position violation ");
  return q;
}

}  // namespace

TEST(Gui, SwitchingSolverKeepsTheTrajectoryOfRunAndQContinuous) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path gui_csv = freshPath("switch_gui.csv"), run_csv = freshPath("switch_run.csv");
  // 45 frames of 1/60 s = 0.75 s; the scene starts with prox-ltl and switches to ltl at 0.5 s.
  const Output gui = runGui(scenePath("atlas_2f2h.yaml") + " --solver prox-ltl --switch-solver 0.5:ltl --frames 45 --size 160x120 --msaa 0 --hide-ui --record " + gui_csv.string());
  ASSERT_EQ(gui.exit_code, 0) << gui.text;
  EXPECT_NE(gui.text.find("solver ltl from t = 0.5"), std::string::npos) << gui.text;
  const Output run = runLoopsim("run " + scenePath("atlas_2f2h.yaml") + " --solver prox-ltl --duration 0.75 --quiet --record " +
                                run_csv.string());
  ASSERT_EQ(run.exit_code, 0) << run.text;

  const loopsim::CsvTable g = loopsim::readCsv(gui_csv), r = loopsim::readCsv(run_csv);
  ASSERT_EQ(g.columns, r.columns);
  ASSERT_EQ(g.rows.size(), r.rows.size()) << "the same number of steps (0.75 s)";
  const int t_col = g.requireColumn("t");
  std::vector<int> q_cols;
  for (std::size_t c = 0; c < g.columns.size(); ++c) {
    if (g.columns[c].rfind("q:", 0) == 0 || g.columns[c].rfind("v:", 0) == 0) q_cols.push_back(static_cast<int>(c));
  }
  ASSERT_GT(q_cols.size(), 60u);
  // Up to the switch (row k is the state at the start of step k): bit for bit.
  std::size_t switch_row = 0;
  while (switch_row < g.rows.size() && g.rows[switch_row][t_col] < 0.5 - 1e-9) ++switch_row;
  ASSERT_EQ(switch_row, 500u);
  for (std::size_t k = 0; k <= switch_row; ++k) {
    for (int c : q_cols) ASSERT_EQ(g.rows[k][c], r.rows[k][c]) << g.columns[c] << " at row " << k;
  }
  // q stays continuous across the switch: no step moves more than 3x the largest step before it.
  auto step_motion = [&](std::size_t k) {
    double m = 0.0;
    for (int c : q_cols) {
      if (g.columns[c].rfind("q:", 0) == 0) m = std::max(m, std::abs(g.rows[k + 1][c] - g.rows[k][c]));
    }
    return m;
  };
  double before = 0.0;
  for (std::size_t k = switch_row - 20; k < switch_row; ++k) before = std::max(before, step_motion(k));
  for (std::size_t k = switch_row; k + 1 < g.rows.size() && k < switch_row + 20; ++k) {
    EXPECT_LE(step_motion(k), 3.0 * before + 1e-12) << "jump in q at row " << k;
  }
  // After the switch the solvers differ only by rounding: the runs stay close but the GUI's is its own.
  double after = 0.0;
  for (int c : q_cols) after = std::max(after, std::abs(g.rows.back()[c] - r.rows.back()[c]));
  EXPECT_LT(after, 1e-6);
  for (const fs::path& p : {gui_csv, run_csv}) {
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
}

TEST(Gui, ARefusedSolverSwitchIsShownAndTheRunGoesOn) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const Output out = runGui(scenePath("redundant_four_bar.yaml") + " --switch-solver 0.1:ltl --frames 12 --size 160x120 --msaa 0 --hide-ui");
  EXPECT_EQ(out.exit_code, 1) << out.text;
  EXPECT_NE(out.text.find("gui: error shown: Cannot switch to ltl:"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("does not support redundant constraint sets"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: t = 0.200000 s, solver prox-ltl"), std::string::npos) << out.text;
  const Output unknown = runLoopsim("gui " + scenePath("four_bar.yaml") + " --switch-solver 0.1:ltll");
  EXPECT_EQ(unknown.exit_code, 1) << unknown.text;
  EXPECT_NE(unknown.text.find("--switch-solver: '0.1:ltll': unknown solver 'ltll'"), std::string::npos) << unknown.text;
}

// Issue 12: the GUI starts with and switches to solver `auto` (probed at the
// switch's state); a redundant set gets a redundant-capable solver.
TEST(Gui, AutoSolverAtStartAndAtASwitch) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const Output out = runGui(scenePath("redundant_four_bar.yaml") +
                            " --solver auto --switch-solver 0.1:lcaba --switch-solver 0.15:auto --frames 12 --size "
                            "160x120 --msaa 0 --hide-ui");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("solver auto from t = 0.15"), std::string::npos) << out.text;
  const std::size_t at = out.text.find("gui: t = 0.200000 s, solver ");
  ASSERT_NE(at, std::string::npos) << out.text;
  const std::string picked = out.text.substr(at + 28, out.text.find('\n', at) - at - 28);
  EXPECT_TRUE(picked == "prox-ltl" || picked == "lcaba" || picked == "prox-bbo") << picked;
}

TEST(Gui, RecordsOfTheGuiAndOfRunHaveOneFormatAndBothReplayBitForBit) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path csv = freshPath("replayed.csv"), run_csv = freshPath("replayed_run.csv");
  const Output gui = runGui(scenePath("four_bar.yaml") + " --frames 30 --size 160x120 --msaa 0 --hide-ui --record " + csv.string());
  ASSERT_EQ(gui.exit_code, 0) << gui.text;
  // Both with their defaults: the same columns (perturbation included) and the same numbers but the wall-clock ones.
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.5 --quiet --record " + run_csv.string()).exit_code, 0);
  const loopsim::CsvTable g = loopsim::readCsv(csv), r = loopsim::readCsv(run_csv);
  ASSERT_EQ(g.columns, r.columns);
  EXPECT_NE(std::find(g.columns.begin(), g.columns.end(), "perturbation:body"), g.columns.end());
  ASSERT_EQ(g.rows.size(), r.rows.size());
  for (std::size_t k = 0; k < g.rows.size(); ++k) {
    for (std::size_t c = 0; c < g.columns.size(); ++c) {
      if (g.columns[c].rfind("timing:", 0) == 0) continue;
      const double a = g.rows[k][c], b = r.rows[k][c];
      ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << g.columns[c] << " at row " << k << ": " << a << " vs " << b;
    }
  }
  for (const fs::path& p : {csv, run_csv}) {
    const Output replay = runLoopsim("replay " + p.string() + " --verify");
    EXPECT_EQ(replay.exit_code, 0) << replay.text;
    EXPECT_NE(replay.text.find("verify: OK, 501 rows identical bit for bit"), std::string::npos) << replay.text;
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
}

// SIGINT or SIGTERM to a recording GUI: the window closes between frames, the
// partial record is removed (as an interrupted `run` removes it) and the exit
// code is the shell's 128 + signal, with a line saying so.
TEST(Gui, ASignalEndsARecordingGuiWithoutLeavingAPartialRecord) {
  if (!haveXvfb() || !haveXdotool()) GTEST_SKIP() << "xvfb-run or xdotool not found: GUI tests skipped";
  for (const auto& [signal, code] : {std::pair<std::string, int>{"INT", 130}, {"TERM", 143}}) {
    const fs::path dir = freshPath("signal_record_" + signal);
    fs::create_directories(dir);
    const fs::path script = dir / "signal.sh";
    std::ofstream(script) << std::string(LOOPSIM_BINARY) + " gui " + scenePath("four_bar.yaml") +
                                 " --size 160x120 --msaa 0 --hide-ui --record " + (dir / "rec.csv").string() + " &\n"
                                 "gui=$!\n"
                                 "xdotool search --sync --name loopsim > /dev/null\n"
                                 "i=0; while ! ls " + dir.string() + " | grep -q 'rec.csv.partial-'; do sleep 0.05; "
                                 "i=$((i+1)); [ $i -gt 600 ] && break; done\n"
                                 "sleep 0.3\n"
                                 "kill -" + signal + " $gui\n"
                                 "wait $gui\n";
    const Output out = inXvfb("timeout 120 sh " + script.string());
    fs::remove(script);
    EXPECT_EQ(out.exit_code, code) << out.text;
    EXPECT_NE(out.text.find("loopsim gui: interrupted by SIG" + signal + " after "), std::string::npos) << out.text;
    EXPECT_NE(out.text.find("; the partial record was removed"), std::string::npos) << out.text;
    EXPECT_TRUE(fs::is_empty(dir)) << "left behind: " << fs::directory_iterator(dir)->path();
    fs::remove_all(dir);
  }
}

// --wall-clock: physics follows the wall clock as in a window, yet in whole steps of the
// scene's dt, so the states reached are a prefix of `loopsim run`'s trajectory bit for bit
// (what is drawn, and how fast, only decides how far it gets), and never ahead of the wall clock.
TEST(Gui, WallClockPhysicsStaysOnTheTrajectoryOfRunAndNeverAheadOfTheClock) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path csv = freshPath("wall_clock.csv"), run_csv = freshPath("wall_clock_run.csv");
  const Output gui = runGui(scenePath("four_bar.yaml") + " --frames 20 --wall-clock --size 160x120 --msaa 0 --hide-ui --record " + csv.string());
  ASSERT_EQ(gui.exit_code, 0) << gui.text;
  double wall = 0.0, simulated = 0.0;
  const std::size_t at = gui.text.find("gui: 20 frames in ");
  ASSERT_NE(at, std::string::npos) << gui.text;
  ASSERT_EQ(std::sscanf(gui.text.c_str() + at, "gui: 20 frames in %lf s", &wall), 1) << gui.text;
  const std::size_t sim_at = gui.text.find("simulated ", at);
  ASSERT_NE(sim_at, std::string::npos) << gui.text;
  ASSERT_EQ(std::sscanf(gui.text.c_str() + sim_at, "simulated %lf s", &simulated), 1) << gui.text;
  EXPECT_LE(simulated, wall + 0.001) << "at most the wall time (rounded to a whole 1 ms step)\n" << gui.text;
  // At most 0.1 s per frame: 2 s; the run goes further and the GUI's rows are its first ones.
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 2.1 --quiet --record " + run_csv.string()).exit_code, 0);
  const loopsim::CsvTable g = loopsim::readCsv(csv), r = loopsim::readCsv(run_csv);
  ASSERT_EQ(g.columns, r.columns);
  ASSERT_GE(g.rows.size(), 2u);
  ASSERT_LT(g.rows.size(), r.rows.size());
  for (std::size_t k = 0; k < g.rows.size(); ++k) {
    const bool last = k + 1 == g.rows.size();  // the final state: no step taken from it (no torques, no λ)
    for (std::size_t c = 0; c < g.columns.size(); ++c) {
      const std::string& column = g.columns[c];
      if (column.rfind("timing:", 0) == 0) continue;
      if (last && column != "t" && column.rfind("q:", 0) != 0 && column.rfind("v:", 0) != 0) continue;
      const double a = g.rows[k][c], b = r.rows[k][c];
      ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << column << " at row " << k << ": " << a << " vs " << b;
    }
  }
  for (const fs::path& p : {csv, run_csv}) {
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
}

namespace {

// The four-bar with an explicit PD far too stiff for dt = 10 ms: the loop opens at the second step.
fs::path unstableFourBar(const std::string& name) {
  const fs::path scene = freshPath(name);
  std::ofstream(scene) << R"(name: unstable
models:
  - generator: four_bar
    params: {ground: 0.9, crank: 0.3, coupler: 1.0, rocker: 0.8, crank_angle: 1.0}
    pose: {position: [0, 0, 1.0], rpy: [1.5707963267948966, 0, 0]}
actuated: [crank_joint]
controller: {type: pd_hold, kp: 100000, kd: 0}
initial: {v: {crank_joint: 1.0}}
dt: 0.01
)";
  return scene;
}

}  // namespace

TEST(Gui, DivergencePausesAndSaysWhatAndWhen) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path scene = unstableFourBar("unstable.yaml"), png = freshPath("unstable.png");
  const Output out = runGui(scene.string() + " --frames 6 --size 320x240 --msaa 0 --hide-ui --screenshot " + png.string());
  EXPECT_EQ(out.exit_code, 3) << out.text;
  EXPECT_NE(out.text.find("gui: 6 frames"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: diverged at t = 0.02 s (step 2): constraint violation"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: t = 0.020000 s"), std::string::npos) << "paused where it diverged\n" << out.text;
  // The fastest joint's body is drawn in the warning red.
  const Image image = readPng(png);
  ASSERT_EQ(image.width, 320) << out.text;
  long red = 0;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const auto p = image.at(x, y);
      red += (p[0] > 100 && p[0] > 3 * p[1] && p[0] > 3 * p[2]) ? 1 : 0;
    }
  }
  EXPECT_GT(red, 100) << "no highlighted body in " << png;
  fs::remove(scene);
  fs::remove(png);
}

TEST(Gui, ADivergenceIsSaidInADockedMessageClearOfTheModel) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path scene = unstableFourBar("unstable_docked.yaml");
  const Output out = runGui(scene.string() + " --frames 6 --size 1280x720 --msaa 0");
  EXPECT_EQ(out.exit_code, 3) << out.text;
  // The message is docked at the top, as wide as the free area: its reason wraps there.
  const std::vector<ScreenRect> panels = panelsOf(out.text);
  EXPECT_TRUE(std::any_of(panels.begin(), panels.end(), [](const ScreenRect& p) { return p.name == "Diverged"; })) << out.text;
  expectPanelsClear(panels, {rectAfter(out.text, "gui: model on screen: ", "the model")}, out.text);
  fs::remove(scene);
}

TEST(Gui, AJointSliderSetsQWhilePausedAndTheLoopStaysClosed) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const loopsim::Scene scene = loopsim::loadScene(scenePath("four_bar.yaml"));
  const auto crank = static_cast<std::size_t>(scene.model->idx_q[static_cast<std::size_t>(scene.model->jointId("crank_joint"))]);
  double violation_before = 0.0, violation = 0.0;
  const Output before = runGui(scenePath("four_bar.yaml") + " --paused --frames 2 --size 160x120 --msaa 0 --hide-ui");
  ASSERT_EQ(before.exit_code, 0) << before.text;
  const std::vector<double> q0 = shownQ(before.text, violation_before);
  // --set-joint is the slider's action, scripted: the crank at 0.5 rad, the coupler and rocker follow.
  const Output out = runGui(scenePath("four_bar.yaml") + " --paused --set-joint crank_joint=0.5 --frames 2 --size 160x120 --msaa 0 --hide-ui");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("joint 'crank_joint' set to 0.5 at t = 0 s"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: t = 0.000000 s"), std::string::npos) << "paused: no step" << out.text;
  const std::vector<double> q = shownQ(out.text, violation);
  ASSERT_EQ(q.size(), q0.size()) << out.text;
  EXPECT_EQ(q[crank], 0.5) << "the slider's joint keeps its value exactly";
  EXPECT_LT(violation, 1e-10) << "the loop is closed again";
  double moved = 0.0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (i != crank) moved = std::max(moved, std::abs(q[i] - q0[i]));
  }
  EXPECT_GT(moved, 1e-2) << "the other joints followed the crank" << out.text;
  std::printf("[ measured ] crank 0.5 rad: the other joints moved up to %.3f rad, closure %.2e\n", moved, violation);

  // Running on from the set pose; a record cannot start from it (it replays from the scene's start).
  const Output running = runGui(scenePath("four_bar.yaml") + " --set-joint crank_joint=0.5 --frames 3 --size 160x120 --msaa 0 --hide-ui");
  ASSERT_EQ(running.exit_code, 0) << running.text;
  EXPECT_NE(running.text.find("gui: t = 0.050000 s"), std::string::npos) << running.text;
  const Output refused = runGui(scenePath("four_bar.yaml") + " --set-joint crank_joint=0.5 --record /tmp/x.csv --frames 1 --hide-ui");
  EXPECT_EQ(refused.exit_code, 1) << refused.text;
  EXPECT_NE(refused.text.find("--set-joint: a record replays from the scene's start"), std::string::npos) << refused.text;
  const Output unknown = runGui(scenePath("four_bar.yaml") + " --set-joint crank=0.5 --frames 1 --size 160x120 --msaa 0 --hide-ui");
  EXPECT_EQ(unknown.exit_code, 1) << unknown.text;
  EXPECT_NE(unknown.text.find("--set-joint: no joint 'crank' in the model"), std::string::npos) << unknown.text;
}

// Slider drags back and forth keep the loop on its branch: the passive joints
// follow continuously (no whole turns), stay within [-π, π], and coming back to
// a value gives the pose that value gave directly.
TEST(Gui, JointSliderDragsKeepThePassiveJointsOnTheNearestBranch) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  double violation = 0.0, violation_direct = 0.0;
  const Output direct = runGui(scenePath("four_bar.yaml") +
                               " --paused --set-joint crank_joint=0.5 --frames 2 --size 160x120 --msaa 0 --hide-ui");
  ASSERT_EQ(direct.exit_code, 0) << direct.text;
  const std::vector<double> q_direct = shownQ(direct.text, violation_direct);
  const Output dragged = runGui(scenePath("four_bar.yaml") +
                                " --paused --set-joint crank_joint=3.1,crank_joint=-3.1,crank_joint=2.9,"
                                "crank_joint=-1.5,crank_joint=0.5 --frames 2 --size 160x120 --msaa 0 --hide-ui");
  ASSERT_EQ(dragged.exit_code, 0) << dragged.text;
  const std::vector<double> q = shownQ(dragged.text, violation);
  ASSERT_EQ(q.size(), q_direct.size()) << dragged.text;
  EXPECT_LT(violation, 1e-10) << "the loop is closed";
  for (std::size_t i = 0; i < q.size(); ++i) {
    EXPECT_LE(std::abs(q[i]), 3.1415926535897932 + 1e-9) << "joint " << i << " wound past a half turn";
    EXPECT_NEAR(q[i], q_direct[i], 1e-6) << "joint " << i << ": another branch after the drags";
  }
  // A value beyond the slider's range is refused, naming the range.
  const Output beyond = runGui(scenePath("four_bar.yaml") +
                               " --paused --set-joint crank_joint=7 --frames 1 --size 160x120 --msaa 0 --hide-ui");
  EXPECT_NE(beyond.exit_code, 0) << beyond.text;
  EXPECT_NE(beyond.text.find("position 7 is outside the joint's range [-3.14159, 3.14159]"), std::string::npos)
      << beyond.text;
}

TEST(Gui, LiveBaumgarteAndProjectionChangesApplyOnTheNextStepAndTheRecordReplays) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path csv = freshPath("stabilization.csv"), plain = freshPath("stabilization_plain.csv");
  // --set-stabilization is the Settings panel's "Apply on next step", scripted.
  const Output gui = runGui(scenePath("four_bar.yaml") + " --set-stabilization 0.1:0.01:on --set-stabilization 0.3:0:off "
                                                         "--frames 30 --size 160x120 --msaa 0 --hide-ui --record " + csv.string());
  ASSERT_EQ(gui.exit_code, 0) << gui.text;
  EXPECT_NE(gui.text.find("stabilization: T = 0.01 s, projection on from t = 0.1 s (step 100)"), std::string::npos) << gui.text;
  EXPECT_NE(gui.text.find("stabilization: T = 0 s, projection off from t = 0.3 s (step 300)"), std::string::npos) << gui.text;
  std::ifstream json(fs::path(csv).replace_extension(".json"));
  const std::string summary((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  EXPECT_NE(summary.find("\"stabilization_changes\""), std::string::npos) << summary;
  const Output replay = runLoopsim("replay " + csv.string() + " --verify");
  EXPECT_EQ(replay.exit_code, 0) << replay.text;
  EXPECT_NE(replay.text.find("verify: OK, 501 rows identical bit for bit"), std::string::npos) << replay.text;
  // The changes took effect: the run is not the unchanged one.
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.5 --quiet --record " + plain.string()).exit_code, 0);
  const loopsim::CsvTable changed = loopsim::readCsv(csv), unchanged = loopsim::readCsv(plain);
  const auto violation = static_cast<std::size_t>(changed.requireColumn("position_violation"));
  EXPECT_EQ(changed.rows[100][violation], unchanged.rows[100][violation]) << "the same run up to the change";
  EXPECT_NE(changed.rows[101][violation], unchanged.rows[101][violation]) << "projected from step 100 on";
  for (const fs::path& p : {csv, plain}) {
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
}
