// Solver comparisons (issue 13): the ghosts' colours and layouts, refused lists
// and stopped solvers, the comparison's history, a start from the session's
// state (--compare-from, the C key, the panel's buttons) and live changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gui_test_support.hpp"

namespace fs = std::filesystem;
using namespace loopsim::test::gui;

TEST(Gui, ComparisonOfThreeSolversOnTheFourBarDrawsThreeGhostsOfDistinctColours) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path png = freshPath("compare_side_by_side.png");
  // Side by side: each solver's mechanism where it can be seen on its own.
  const Output out = runGui(scenePath("four_bar.yaml") +
                            " --compare kkt,ltl,prox-ltl --compare-layout side-by-side --frames 10 --size 480x270 --msaa 4 "
                            "--hide-ui --screenshot " + png.string());
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("gui: compare: 3 solvers, t = 0.167000 s, reference kkt, layout side-by-side"), std::string::npos)
      << out.text;
  const std::vector<Ghost> ghosts = ghostsOf(out.text);
  ASSERT_EQ(ghosts.size(), 3u) << out.text;
  EXPECT_EQ(ghosts[0].role, "reference");
  EXPECT_EQ(ghosts[1].role, "ghost");
  const Image image = readPng(png);
  ASSERT_EQ(image.width, 480);
  for (std::size_t i = 0; i < ghosts.size(); ++i) {
    EXPECT_LT(ghosts[i].divergence, 1e-9) << ghosts[i].name;
    for (std::size_t j = 0; j < i; ++j) {
      EXPECT_GT(hueDistance(hueSaturation(ghosts[i].rgb).first, hueSaturation(ghosts[j].rgb).first), 60.0)
          << "distinct colours: " << ghosts[i].name << " and " << ghosts[j].name;
      EXPECT_TRUE(ghosts[i].box[0] >= ghosts[j].box[2] || ghosts[j].box[0] >= ghosts[i].box[2])
          << "side by side: the boxes of " << ghosts[i].name << " and " << ghosts[j].name << " do not overlap";
    }
  }
  // In each ghost's box, the pixels of a clear hue (saturation >= 0.4) are mostly of its own colour's hue.
  for (std::size_t i = 0; i < ghosts.size(); ++i) {
    std::vector<long> counts(ghosts.size(), 0);
    const auto& box = ghosts[i].box;
    for (int y = box[1]; y < box[3]; ++y) {
      for (int x = box[0]; x < box[2]; ++x) {
        const auto [hue, saturation] = hueSaturation(image.at(x, y));
        if (saturation < 0.4) continue;
        for (std::size_t k = 0; k < ghosts.size(); ++k) {
          if (hueDistance(hue, hueSaturation(ghosts[k].rgb).first) < 25.0) ++counts[k];
        }
      }
    }
    std::printf("[ measured ] %s box: own-colour pixels %ld; others", ghosts[i].name.c_str(), counts[i]);
    for (std::size_t k = 0; k < ghosts.size(); ++k) {
      if (k != i) std::printf(" %s %ld", ghosts[k].name.c_str(), counts[k]);
    }
    std::printf("\n");
    EXPECT_GT(counts[i], 40) << ghosts[i].name << " is drawn in its colour in " << png;
    for (std::size_t k = 0; k < ghosts.size(); ++k) {
      if (k == i) continue;
      EXPECT_GT(counts[i], 4 * counts[k]) << ghosts[i].name << "'s box shows " << ghosts[k].name << "'s colour";
    }
  }
  fs::remove(png);

  // Overlaid (the default layout): the same three, at the same place, all running.
  const Output overlay = runGui(scenePath("four_bar.yaml") + " --compare kkt,ltl,prox-ltl --frames 3 --size 160x120 --msaa 0 --hide-ui");
  ASSERT_EQ(overlay.exit_code, 0) << overlay.text;
  const std::vector<Ghost> overlaid = ghostsOf(overlay.text);
  ASSERT_EQ(overlaid.size(), 3u) << overlay.text;
  EXPECT_EQ(overlaid[1].box, overlaid[0].box);
  EXPECT_EQ(overlaid[2].box, overlaid[0].box);
}

TEST(Gui, ComparisonRefusesBadListsAndAStoppedSolverGivesExitCode3) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  Output out = runLoopsim("gui " + scenePath("four_bar.yaml") + " --compare kkt,ltll");
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.text.find("--compare: unknown solver 'ltll' (did you mean 'ltl'?)"), std::string::npos) << out.text;
  out = runLoopsim("gui " + scenePath("four_bar.yaml") + " --compare kkt");
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.text.find("compare 2 to 6 solvers (got 1)"), std::string::npos) << out.text;
  // A solver the scene refuses: shown as an error, the --frames run exits 1.
  out = runGui(scenePath("redundant_four_bar.yaml") + " --compare prox-ltl,ltl --frames 2 --size 160x120 --msaa 0 --hide-ui");
  EXPECT_EQ(out.exit_code, 1) << out.text;
  EXPECT_NE(out.text.find("gui: error shown: Cannot compare these solvers:"), std::string::npos) << out.text;
  // soft-ltl with a negligible weight opens the loop and stops alone; kkt and ltl go on.
  std::string yaml;
  {
    std::ifstream in(scenePath("four_bar.yaml"));
    std::ostringstream text;
    text << in.rdbuf();
    yaml = text.str();
  }
  yaml.replace(yaml.find("solver: kkt"), 11, "solver: {name: kkt, soft_weight: 1e-9}");
  const fs::path scene = freshPath("loose_four_bar.yaml");  // a generator: nothing relative to resolve
  std::ofstream(scene) << yaml;
  out = runGui(scene.string() + " --compare kkt,soft-ltl,ltl --frames 20 --size 160x120 --msaa 0 --hide-ui");
  fs::remove(scene);
  EXPECT_EQ(out.exit_code, 3) << out.text;
  EXPECT_NE(out.text.find("gui: compare: 3 solvers, t = 0.333000 s"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("soft-ltl ghost rgb"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("stopped: diverged at t = "), std::string::npos) << out.text;
  const std::vector<Ghost> ghosts = ghostsOf(out.text);
  ASSERT_EQ(ghosts.size(), 3u) << out.text;
  EXPECT_NE(out.text.find("gui: ghost 2 ltl ghost"), std::string::npos);
  EXPECT_NE(out.text.substr(out.text.find("gui: ghost 2 ltl")).find("running"), std::string::npos) << out.text;
}

TEST(Gui, AComparisonKeepsAHistoryAndResumesAllSolversFromAPastState) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (shell("command -v xdotool").exit_code != 0) GTEST_SKIP() << "xdotool not found (Debian package xdotool): key test skipped";
  // Paused and restarted at t = 0, three steps, two back: every solver shows t = 1 ms, the comparison stays at 3 ms.
  Output out = guiWithKeys("four_bar.yaml", "space BackSpace Right Right Right Left Left", "--compare kkt,ltl,prox-ltl");
  EXPECT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("gui: compare: 3 solvers, t = 0.003000 s"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: compare history: 4 states, t = 0.000000 to 0.003000 s, viewing t = 0.001000 s"), std::string::npos)
      << out.text;
  // Enter resumes all three from there and drops the later states; Right steps them on together.
  out = guiWithKeys("four_bar.yaml", "space BackSpace Right Right Right Left Left Return Right", "--compare kkt,ltl,prox-ltl");
  EXPECT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("compare: resumed all 3 solvers from t = 0.001 s (step 1)"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: compare: 3 solvers, t = 0.002000 s"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: compare history: 3 states, t = 0.000000 to 0.002000 s\n"), std::string::npos) << out.text;
  const std::vector<Ghost> ghosts = ghostsOf(out.text);
  ASSERT_EQ(ghosts.size(), 3u) << out.text;
  for (const Ghost& g : ghosts) EXPECT_LT(g.divergence, 1e-12) << g.name;
  EXPECT_EQ(out.text.find("stopped"), std::string::npos) << out.text;
}

TEST(Gui, AComparisonStartsFromTheSimulationsStateAtAGivenTime) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const Output out = runGui(scenePath("four_bar.yaml") + " --compare kkt,ltl,prox-ltl --compare-from 0.25 --frames 10 "
                                                         "--size 160x120 --msaa 0 --hide-ui");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("compare: kkt, ltl, prox-ltl from t = 0.25 s (step 250), reference kkt"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: compare: 3 solvers, t = 0.417000 s"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: compare history: 168 states, t = 0.250000 to 0.417000 s"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: t = 0.250000 s, solver kkt"), std::string::npos) << "the simulation waits at 0.25 s" << out.text;
  const std::vector<Ghost> ghosts = ghostsOf(out.text);
  ASSERT_EQ(ghosts.size(), 3u) << out.text;
  for (const Ghost& g : ghosts) EXPECT_LT(g.divergence, 1e-9) << g.name;

  const Output bad = runGui(scenePath("four_bar.yaml") + " --compare-from 0.25 --frames 1 --size 160x120 --hide-ui");
  EXPECT_EQ(bad.exit_code, 1) << bad.text;
  EXPECT_NE(bad.text.find("--compare-from: applies to --compare, which is not given"), std::string::npos) << bad.text;
}

// The panel's live Baumgarte T and projection reach a running comparison too: every compared
// solver from the same step (scripted here by --set-stabilization, which is that change).
TEST(Gui, LiveStabilizationChangesReachARunningComparison) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  // Atlas 2F+2H: ltl and prox-ltl differ from kkt by rounding, which the projection changes.
  const std::string common = scenePath("atlas_2f2h.yaml") + " --compare kkt,ltl,prox-ltl --frames 12 --size 160x120 --msaa 0 --hide-ui";
  const Output changed = runGui(common + " --set-stabilization 0.1:0.02:on");
  ASSERT_EQ(changed.exit_code, 0) << changed.text;
  EXPECT_NE(changed.text.find("compare: stabilization: T = 0.02 s, projection on from t = 0.1 s (step 100) for 3 solvers"),
            std::string::npos)
      << changed.text;
  const Output unchanged = runGui(common);
  ASSERT_EQ(unchanged.exit_code, 0) << unchanged.text;
  // The solvers' divergences from the reference at 0.2 s are those of other trajectories.
  const auto divergences = [](const std::string& text) {
    std::string found;
    for (std::size_t at = text.find("gui: ghost "); at != std::string::npos; at = text.find("gui: ghost ", at + 1)) {
      const std::size_t d = text.find(" divergence ", at);
      found += text.substr(d, text.find(' ', d + 12) - d);
    }
    return found;
  };
  EXPECT_FALSE(divergences(changed.text).empty()) << changed.text;
  EXPECT_NE(divergences(changed.text), divergences(unchanged.text)) << changed.text << unchanged.text;
}

// C ("compare from here"), key only: the ticked solvers start from the state the paused
// session shows, which then waits; the comparison's reference steps on from that very state.
TEST(Gui, TheCKeyComparesTheTickedSolversFromTheShownState) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): key test skipped";
  // Three steps of 1 ms, C, one step (of the comparison): quit.
  const Output out = guiWithKeys("four_bar.yaml", "Right Right Right c Right", "--paused --tick-compare kkt,ltl,prox-ltl --log-events");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("event: step to t = 0.003 s (step 3)"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("event: compare kkt, ltl, prox-ltl from the shown state, t = 0.003 s (step 3), reference kkt"),
            std::string::npos)
      << out.text;
  EXPECT_NE(out.text.find("event: comparison step to t = 0.004 s (step 4)"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: compare: 3 solvers, t = 0.004000 s, reference kkt"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: compare history: 2 states, t = 0.003000 to 0.004000 s"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: t = 0.003000 s, solver kkt"), std::string::npos) << "the session waits where C was pressed\n" << out.text;
  const std::vector<Ghost> ghosts = ghostsOf(out.text);
  ASSERT_EQ(ghosts.size(), 3u) << out.text;
  for (const Ghost& g : ghosts) EXPECT_LT(g.divergence, 1e-12) << g.name;

  // The reference (kkt, as the session) took its step from the session's state: it is where
  // `loopsim run` is after 4 steps, bit for bit.
  const fs::path csv = freshPath("c_key_run.csv");
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.004 --quiet --record " + csv.string()).exit_code, 0);
  const loopsim::CsvTable table = loopsim::readCsv(csv);
  ASSERT_EQ(table.rows.size(), 5u);
  const std::vector<double> run_q = recordedQ(table, 4);
  const auto at = out.text.find("gui: compare reference q =");
  ASSERT_NE(at, std::string::npos) << out.text;
  std::istringstream in(out.text.substr(at + 26, out.text.find('\n', at) - at - 26));
  std::vector<double> reference_q;
  for (double x; in >> x;) reference_q.push_back(x);
  EXPECT_EQ(reference_q, run_q);
  fs::remove(csv);
  fs::remove(fs::path(csv).replace_extension(".json"));

  // Nothing ticked: C says so in the window, and the simulation goes on.
  const Output none = guiWithKeys("four_bar.yaml", "c Right", "--paused --log-events");
  EXPECT_NE(none.text.find("gui: error shown: Cannot compare these solvers:"), std::string::npos) << none.text;
  EXPECT_NE(none.text.find("event: step to t = 0.001 s (step 1)"), std::string::npos) << none.text;
}

// The Compare solvers section's buttons, clicked: "Compare from here" starts the ticked solvers
// from the shown state, "Stop comparison" hands back to the simulation where it waited, "Start
// comparison" starts them from the scene's start.
TEST(Gui, ClickingTheComparisonButtonsStartsAndStopsAComparison) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  const Output out = guiClicking(scenePath("four_bar.yaml") + " --paused --tick-compare kkt,ltl,prox-ltl",
                                 "xdotool key Right; waitfor 'event: step to t = 0.001 s'\n"
                                 "xdotool key Right; waitfor 'event: step to t = 0.002 s'\n"
                                 "click 'Compare solvers'\n"
                                 "click 'Compare from here (C)'; waitfor 'event: compare '\n"
                                 "xdotool key Right; waitfor 'event: comparison step'\n"
                                 "click 'Stop comparison'; waitfor 'event: comparison stopped'\n"
                                 "xdotool key Right; waitfor 'event: step to t = 0.003 s'\n"
                                 "click 'Start comparison (from t = 0)'; waitfor 'event: compare ' 2");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  const std::vector<std::string> expected = {
      "event: compare kkt, ltl, prox-ltl from the shown state, t = 0.002 s (step 2), reference kkt",
      "event: comparison step to t = 0.003 s (step 3)",
      "event: comparison stopped; the simulation waits at t = 0.002 s (step 2)",
      "event: step to t = 0.003 s (step 3)",
      "event: compare kkt, ltl, prox-ltl from the scene's start, t = 0 s (step 0), reference kkt"};
  std::size_t at = 0;
  for (const std::string& line : expected) {
    at = out.text.find(line, at);
    ASSERT_NE(at, std::string::npos) << "missing, or out of order: " << line << "\n" << out.text;
  }
}
