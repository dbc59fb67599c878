// The Settings section's fields typed in and ticked (guiClicking), then
// "Apply on next step": each equals, bit for bit, the scripted run with the
// same setting, and differs from the unchanged one.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "gui_test_support.hpp"

namespace fs = std::filesystem;
using namespace loopsim::test::gui;

namespace {

// The record `clicked` of a GUI run equals the record `scripted` bit for bit (NaN as NaN) over
// `clicked`'s rows, but for the timings and, in `clicked`'s last row (its final state: no step
// was taken from it), the columns of a step.
void expectSameRecordedSteps(const loopsim::CsvTable& clicked, const loopsim::CsvTable& scripted) {
  ASSERT_EQ(clicked.columns, scripted.columns);
  ASSERT_LE(clicked.rows.size(), scripted.rows.size());
  for (std::size_t k = 0; k < clicked.rows.size(); ++k) {
    const bool last = k + 1 == clicked.rows.size();
    for (std::size_t col = 0; col < clicked.columns.size(); ++col) {
      const std::string& column = clicked.columns[col];
      if (column.rfind("timing:", 0) == 0) continue;
      if (last && column != "t" && column.rfind("q:", 0) != 0 && column.rfind("v:", 0) != 0) continue;
      const double a = clicked.rows[k][col], b = scripted.rows[k][col];
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << column << " at row " << k << ": " << a << " vs " << b;
    }
  }
}

// The last "widget: 'LABEL' ..." line of a --log-widgets log, after the label.
std::string lastWidgetLine(const std::string& text, const std::string& label) {
  const std::string marker = "widget: '" + label + "' ";
  const auto at = text.rfind(marker);
  if (at == std::string::npos) return {};
  return text.substr(at + marker.size(), text.find('\n', at) - at - marker.size());
}

void removeRecords(std::initializer_list<fs::path> records) {
  for (const fs::path& p : records) {
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
}

// "solver: {name: SOLVER, KEYS}" (KEYS empty: none).
std::string solverLine(const std::string& solver, const std::string& keys) {
  return "solver: {name: " + solver + (keys.empty() ? "" : ", " + keys) + "}";
}

// The four-bar scene with solverLine(solver, keys) in place of its `solver: kkt`, in a fresh file:
// the scene keys are the scripted form of the Settings section's fields. An empty path when the
// scene has no such line.
fs::path fourBarSceneWith(const std::string& solver, const std::string& keys) {
  std::ifstream in(scenePath("four_bar.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string line = "\nsolver: kkt\n";
  const auto at = text.find(line);
  if (at == std::string::npos) return {};
  // Appended, not "\n" + solverLine(...): GCC 12 at -O3 warns (-Wrestrict, a false positive) on the prepending insert.
  text.replace(at, line.size(), std::string("\n").append(solverLine(solver, keys)).append("\n"));
  const fs::path path = freshPath("four_bar_" + solver + ".yaml");
  std::ofstream(path) << text;
  return path;
}

// Three records of the four-bar's first `steps` steps under `solver`: `clicked`, the GUI paused,
// its Settings section opened, `actions` there (e.g. "typein tolerance 1e-4"), then "Apply on next
// step" before the first step and Step (Right) clicked `steps` times; `scripted`, `loopsim run` of
// the four-bar with the scene keys `keys` (fourBarSceneWith) and the options `options`; `plain`,
// `loopsim run` of the four-bar under `solver` unchanged. The clicked steps are checked to equal
// the scripted ones bit for bit; the GUI's output is in `gui`.
struct SettingsRuns {
  Output gui;
  loopsim::CsvTable clicked, scripted, plain;
};

void clickSettingsOnTheFourBar(const std::string& solver, const std::string& actions, const std::string& keys,
                               const std::string& options, int steps, SettingsRuns& runs) {
  const fs::path clicked = freshPath("clicked_settings.csv"), scripted = freshPath("scripted_settings.csv"),
                 plain = freshPath("plain_settings.csv"), scene = fourBarSceneWith(solver, keys);
  ASSERT_FALSE(scene.empty()) << "four_bar.yaml has no line 'solver: kkt'";
  std::string clicks = "click Settings\n" + actions + "\nclick 'Apply on next step'; waitfor 'event: settings applied'\n";
  for (int k = 1; k <= steps; ++k) clicks += "step " + std::to_string(k) + "\n";
  runs.gui = guiClicking(scenePath("four_bar.yaml") + " --solver " + solver + " --paused --record " + clicked.string(), clicks);
  ASSERT_EQ(runs.gui.exit_code, 0) << runs.gui.text;
  const std::string run = " --solver " + solver + " --duration " + std::to_string(0.001 * steps) + " --quiet --record ";
  const Output script = runLoopsim("run " + scene.string() + run + scripted.string() + " " + options);
  ASSERT_EQ(script.exit_code, 0) << script.text;
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + run + plain.string()).exit_code, 0);
  runs.clicked = loopsim::readCsv(clicked);
  runs.scripted = loopsim::readCsv(scripted);
  runs.plain = loopsim::readCsv(plain);
  removeRecords({clicked, scripted, plain});
  fs::remove(scene);
  ASSERT_EQ(runs.clicked.rows.size(), static_cast<std::size_t>(steps + 1)) << "t = 0 to " << steps << " ms\n" << runs.gui.text;
  ASSERT_EQ(runs.plain.rows.size(), runs.clicked.rows.size());
  SCOPED_TRACE("the clicked run against run of the four-bar with " + solverLine(solver, keys) + " " + options);
  expectSameRecordedSteps(runs.clicked, runs.scripted);
}

// The column `name` of `table`, row by row.
std::vector<double> columnOf(const loopsim::CsvTable& table, const std::string& name) {
  const auto col = static_cast<std::size_t>(table.requireColumn(name));
  std::vector<double> values;
  for (const std::vector<double>& row : table.rows) values.push_back(row[col]);
  return values;
}

}  // namespace

// The Settings section's Baumgarte T, typed in (a click, which selects the field's text as
// ImGui's number fields do, the new value, Enter), and its projection checkbox, clicked, then
// "Apply on next step": the steps after it are those of the scripted --set-stabilization at that
// step bit for bit, and not those of the unchanged run. Enter is held until the field lets go:
// ImGui 1.86 reads keys as held or not once per frame, and misses a press shorter than a frame.
TEST(Gui, TypingBaumgarteTAndTickingProjectionInTheSettingsPanelApplyOnTheNextStep) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  const fs::path clicked = freshPath("clicked_stabilization.csv"), scripted = freshPath("scripted_stabilization.csv"),
                 plain = freshPath("plain_stabilization.csv");
  const Output out = guiClicking(scenePath("four_bar.yaml") + " --paused --record " + clicked.string(),
                                 "click 'Step (Right)'; waitfor 'event: step to t = 0.001 s'\n"
                                 "click 'Step (Right)'; waitfor 'event: step to t = 0.002 s'\n"
                                 "click 'Step (Right)'; waitfor 'event: step to t = 0.003 s'\n"
                                 "click Settings\n"
                                 "typein 'Baumgarte T (s)' 0.02\n"
                                 "click projection\n"
                                 "click 'Apply on next step##stabilization'; waitfor 'stabilization: T = '\n"
                                 "click 'Step (Right)'; waitfor 'event: step to t = 0.004 s'\n"
                                 "click 'Step (Right)'; waitfor 'event: step to t = 0.005 s'");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("stabilization: T = 0.02 s, projection on from t = 0.003 s (step 3)"), std::string::npos) << out.text;
  const Output script = runGui(scenePath("four_bar.yaml") + " --set-stabilization 0.003:0.02:on --frames 1 --size 160x120 --msaa 0 "
                                                            "--hide-ui --record " + scripted.string());
  ASSERT_EQ(script.exit_code, 0) << script.text;
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.005 --quiet --record " + plain.string()).exit_code, 0);
  const loopsim::CsvTable c = loopsim::readCsv(clicked), s = loopsim::readCsv(scripted), u = loopsim::readCsv(plain);
  ASSERT_EQ(c.columns, s.columns);
  ASSERT_EQ(c.columns, u.columns);
  ASSERT_EQ(c.rows.size(), 6u) << "t = 0 to 5 ms";
  ASSERT_GT(s.rows.size(), 6u);
  ASSERT_EQ(u.rows.size(), 6u);
  bool changed = false;  // the unchanged run's q or v differs after the change
  for (std::size_t k = 0; k < c.rows.size(); ++k) {
    const bool last = k + 1 == c.rows.size();  // the final state: no step taken from it
    for (std::size_t col = 0; col < c.columns.size(); ++col) {
      const std::string& column = c.columns[col];
      if (column.rfind("timing:", 0) == 0) continue;
      const bool state = column == "t" || column.rfind("q:", 0) == 0 || column.rfind("v:", 0) == 0;
      if (last && !state) continue;
      const double a = c.rows[k][col], b = s.rows[k][col];
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << column << " at row " << k << ": " << a << " vs " << b;
      if (state && k <= 3) {
        EXPECT_EQ(a, u.rows[k][col]) << column << " at row " << k << ": the same run up to the change";
      }
      if (state && k > 3 && a != u.rows[k][col]) changed = true;
    }
  }
  EXPECT_TRUE(changed) << "the steps after the change are not the unchanged run's";
  for (const fs::path& p : {clicked, scripted, plain}) {
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
}

// The Settings section's mu, typed in (a click, which selects the field's text, the new value,
// Enter held until the field lets go, as for Baumgarte T), then "Apply on next step" before the
// first step: prox-ltl runs with that mu, bit for bit as `loopsim run --mu` with it, and not as
// with the scene's (1e8, where it converges in 2 iterations; 6 or 7 at mu = 50). The event
// reports the mu the solver runs with.
TEST(Gui, TypingMuInTheSettingsPanelAppliesItOnTheNextStep) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  SettingsRuns runs;
  ASSERT_NO_FATAL_FAILURE(clickSettingsOnTheFourBar("prox-ltl", "typein mu 50", "", "--mu 50", 3, runs));
  EXPECT_NE(runs.gui.text.find("event: settings applied: solver prox-ltl from t = 0 s (step 0), mu 50\n"), std::string::npos)
      << runs.gui.text;
  const std::vector<double> clicked = columnOf(runs.clicked, "iterations"), plain = columnOf(runs.plain, "iterations");
  std::printf("[ measured ] prox-ltl iterations at step 0: %g at mu 50 (clicked), %g at the scene's mu\n", clicked[0], plain[0]);
  EXPECT_NE(clicked[0], plain[0]) << "the first step ran with the scene's mu";
}

// The "auto" checkbox beside mu, ticked, then "Apply on next step" before the first step: the mu
// field is greyed, and prox-ltl runs with mu resolved at the state (paper 001 VI-D), bit for bit as
// `loopsim run --mu auto`; the event reports the resolved mu at full precision, which given to
// `run --mu` gives that run too.
TEST(Gui, TickingAutoBesideMuInTheSettingsPanelResolvesMuAtTheState) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  SettingsRuns runs;
  ASSERT_NO_FATAL_FAILURE(clickSettingsOnTheFourBar("prox-ltl", "click 'auto##mu'", "", "--mu auto", 3, runs));
  const std::string& text = runs.gui.text;
  EXPECT_TRUE(lastWidgetLine(text, "mu").ends_with(" disabled")) << "the mu field is greyed under auto\n" << text;
  const std::string marker = "event: settings applied: solver prox-ltl from t = 0 s (step 0), mu ";
  const auto at = text.find(marker);
  ASSERT_NE(at, std::string::npos) << text;
  const std::string mu = text.substr(at + marker.size(), text.find_first_of(" \n", at + marker.size()) - at - marker.size());
  EXPECT_NE(text.find(marker + mu + " (\u03bc auto: "), std::string::npos) << "the estimate's line follows the mu\n" << text;
  std::printf("[ measured ] mu auto resolved to %s\n", mu.c_str());
  const fs::path logged = freshPath("logged_auto_mu.csv");
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --solver prox-ltl --duration 0.003 --quiet --record " +
                       logged.string() + " --mu " + mu)
                .exit_code,
            0)
      << mu;
  {
    SCOPED_TRACE("the clicked run against run --mu " + mu);
    expectSameRecordedSteps(runs.clicked, loopsim::readCsv(logged));
  }
  removeRecords({logged});
  // The scene's mu (1e8) is another: the steps differ from those under auto.
  const loopsim::CsvTable &c = runs.clicked, &u = runs.plain;
  bool differs = false;
  for (std::size_t k = 0; k + 1 < c.rows.size(); ++k) {
    for (std::size_t col = 0; col < c.columns.size(); ++col) {
      if (c.columns[col].rfind("timing:", 0) != 0 && c.rows[k][col] != u.rows[k][col]) differs = true;
    }
  }
  EXPECT_TRUE(differs) << "the steps are those of the scene's mu";
}

// The Settings section's tolerance, typed in as mu is, then "Apply on next step" before the first
// step: lcaba (iterative) stops at that tolerance, bit for bit as `loopsim run` of the scene with
// `tolerance: 1e-4`, and in fewer iterations than at the scene's 1e-10 (measured: 2 per step
// against 4, 3, 3, 3).
TEST(Gui, TypingToleranceInTheSettingsPanelAppliesItOnTheNextStep) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  SettingsRuns runs;
  ASSERT_NO_FATAL_FAILURE(clickSettingsOnTheFourBar("lcaba", "typein tolerance 1e-4", "tolerance: 1e-4", "", 4, runs));
  const std::vector<double> clicked = columnOf(runs.clicked, "iterations"), plain = columnOf(runs.plain, "iterations");
  std::printf("[ measured ] lcaba iterations per step: %g %g %g %g at tolerance 1e-4 (clicked), %g %g %g %g at 1e-10\n", clicked[0],
              clicked[1], clicked[2], clicked[3], plain[0], plain[1], plain[2], plain[3]);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_LT(clicked[k], plain[k]) << "step " << k << " iterated to the scene's tolerance";
}

// The Settings section's max iterations, typed in (1) mid-run: two steps of the scene's kkt, lcaba
// clicked in the Solver section, 1 typed, "Apply on next step", two more steps. The steps after the
// change run exactly 1 iteration each (the record's solver statistics), and the record equals bit
// for bit the scripted switch to lcaba at that step (`--switch-solver`) on the four-bar with
// `max_iterations: 1`, from which a switch takes its settings; the same switch on the unchanged
// four-bar takes 4 and 3 iterations at those steps.
TEST(Gui, TypingMaxIterationsInTheSettingsPanelCapsTheIterationsFromTheNextStep) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  const fs::path clicked = freshPath("clicked_max_iterations.csv"), scripted = freshPath("scripted_max_iterations.csv"),
                 plain = freshPath("plain_max_iterations.csv"), scene = fourBarSceneWith("kkt", "max_iterations: 1");
  ASSERT_FALSE(scene.empty()) << "four_bar.yaml has no line 'solver: kkt'";
  const Output out = guiClicking(scenePath("four_bar.yaml") + " --paused --record " + clicked.string(),
                                 "step 1; step 2\n"
                                 "click lcaba; waitfor 'event: solver lcaba'\n"
                                 "click Settings; typein 'max iterations' 1\n"
                                 "click 'Apply on next step'; waitfor 'event: settings applied'\n"
                                 "step 3; step 4");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("event: settings applied: solver lcaba from t = 0.002 s (step 2)"), std::string::npos) << out.text;
  const std::string switching = " --switch-solver 0.002:lcaba --frames 1 --size 160x120 --msaa 0 --hide-ui --record ";
  const Output script = runGui(scene.string() + switching + scripted.string());
  ASSERT_EQ(script.exit_code, 0) << script.text;
  const Output unchanged_script = runGui(scenePath("four_bar.yaml") + switching + plain.string());
  ASSERT_EQ(unchanged_script.exit_code, 0) << unchanged_script.text;
  const loopsim::CsvTable c = loopsim::readCsv(clicked), s = loopsim::readCsv(scripted), u = loopsim::readCsv(plain);
  removeRecords({clicked, scripted, plain});
  fs::remove(scene);
  ASSERT_EQ(c.rows.size(), 5u) << "t = 0 to 4 ms";
  {
    SCOPED_TRACE("the clicked run against --switch-solver 0.002:lcaba with " + solverLine("kkt", "max_iterations: 1"));
    expectSameRecordedSteps(c, s);
  }
  const std::vector<double> iterations = columnOf(c, "iterations"), unchanged = columnOf(u, "iterations");
  std::printf("[ measured ] lcaba's iterations at steps 2 and 3: %g %g at max iterations 1 (clicked), %g %g at 100\n", iterations[2],
              iterations[3], unchanged[2], unchanged[3]);
  for (std::size_t k = 2; k < 4; ++k) {
    EXPECT_EQ(iterations[k], 1.0) << "step " << k << ", after the change";
    EXPECT_GT(unchanged[k], 1.0) << "step " << k << ": lcaba takes one iteration unchanged too";
  }
}

// The Settings section's soft weight, typed in (1e3), then "Apply on next step" before the first
// step: soft-ltl's steps are those of `loopsim run` of the scene with `soft_weight: 1e3` bit for
// bit, not those of the scene's 1e6 (a softer loop: measured, the position violation after the
// first step is 2.6e-8 against 7.1e-10).
TEST(Gui, TypingSoftWeightInTheSettingsPanelAppliesItOnTheNextStep) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  SettingsRuns runs;
  ASSERT_NO_FATAL_FAILURE(clickSettingsOnTheFourBar("soft-ltl", "typein 'soft weight' 1e3", "soft_weight: 1e3", "", 3, runs));
  const std::vector<double> clicked = columnOf(runs.clicked, "position_violation"),
                            plain = columnOf(runs.plain, "position_violation");
  std::printf("[ measured ] soft-ltl position violation after step 0: %.2g at soft weight 1e3 (clicked), %.2g at 1e6\n",
              clicked[1], plain[1]);
  for (std::size_t k = 1; k < clicked.size(); ++k) EXPECT_GT(clicked[k], plain[k]) << "row " << k << ": as stiff as the scene's weight";
}

// The Settings section's "warm start" checkbox, unticked, then "Apply on next step" before the
// first step: lcaba starts each step's iterations from zero instead of the previous step's
// multipliers, bit for bit as `loopsim run` of the scene with `warm_start: false`, and needs more
// of them after the first step (measured: 4 per step against 4, 3, 3, 3).
TEST(Gui, UntickingWarmStartInTheSettingsPanelAppliesItOnTheNextStep) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  SettingsRuns runs;
  ASSERT_NO_FATAL_FAILURE(clickSettingsOnTheFourBar("lcaba", "click 'warm start'", "warm_start: false", "", 4, runs));
  const std::vector<double> clicked = columnOf(runs.clicked, "iterations"), plain = columnOf(runs.plain, "iterations");
  std::printf("[ measured ] lcaba iterations per step: %g %g %g %g cold (clicked), %g %g %g %g warm\n", clicked[0], clicked[1],
              clicked[2], clicked[3], plain[0], plain[1], plain[2], plain[3]);
  for (std::size_t k = 1; k < 4; ++k) EXPECT_GT(clicked[k], plain[k]) << "step " << k << " started from the previous multipliers";
}
