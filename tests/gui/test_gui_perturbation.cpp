// Pushing the bodies: --perturb's scripted pull and the mouse's Ctrl+drag and
// Ctrl+right-drag are recorded and replay bit for bit, and drive every
// compared solver alike.
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

TEST(Gui, APerturbationRecordedInTheGuiReplaysBitForBitAndDrivesEveryComparedSolver) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path csv = freshPath("perturbed.csv");
  // --perturb is the scripted pull: the coupler's origin pulled toward (0.3, 0, 1.8) from 0.1 s to 0.4 s.
  const Output gui = runGui(scenePath("four_bar.yaml") + " --perturb coupler:0.1:0.4:0.3,0,1.8 --frames 30 --size 160x120 "
                                                         "--msaa 0 --hide-ui --record " + csv.string());
  ASSERT_EQ(gui.exit_code, 0) << gui.text;
  const Output replay = runLoopsim("replay " + csv.string() + " --verify");
  EXPECT_EQ(replay.exit_code, 0) << replay.text;
  EXPECT_NE(replay.text.find("verify: OK, 501 rows identical bit for bit"), std::string::npos) << replay.text;
  const loopsim::CsvTable table = loopsim::readCsv(csv);
  const auto t = static_cast<std::size_t>(table.requireColumn("t"));
  const auto body = static_cast<std::size_t>(table.requireColumn("perturbation:body"));
  const auto fx = static_cast<std::size_t>(table.requireColumn("perturbation:fx"));
  long perturbed_rows = 0;
  for (std::size_t r = 0; r + 1 < table.rows.size(); ++r) {
    const bool inside = table.rows[r][t] >= 0.1 - 1e-9 && table.rows[r][t] < 0.4 - 1e-9;
    EXPECT_EQ(table.rows[r][body], inside ? 2.0 : 0.0) << "row " << r;
    if (inside) {
      EXPECT_NE(table.rows[r][fx], 0.0);
      ++perturbed_rows;
    }
  }
  EXPECT_EQ(perturbed_rows, 300);
  // It moved the mechanism: the final q is not the unperturbed run's.
  const fs::path free_csv = freshPath("unperturbed.csv");
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.5 --quiet --record " + free_csv.string()).exit_code, 0);
  const loopsim::CsvTable free_table = loopsim::readCsv(free_csv);
  const auto q_crank = static_cast<std::size_t>(table.requireColumn("q:crank_joint"));
  EXPECT_GT(std::abs(table.rows.back()[q_crank + 1] - free_table.rows.back()[q_crank + 1]), 1e-3);

  // The same perturbation drives every compared solver: they stay together (and away from the unperturbed state).
  const Output compare = runGui(scenePath("four_bar.yaml") + " --compare kkt,ltl,prox-ltl --perturb coupler:0.1:0.4:0.3,0,1.8 "
                                                             "--frames 30 --size 160x120 --msaa 0 --hide-ui");
  ASSERT_EQ(compare.exit_code, 0) << compare.text;
  const std::vector<Ghost> ghosts = ghostsOf(compare.text);
  ASSERT_EQ(ghosts.size(), 3u) << compare.text;
  for (const Ghost& g : ghosts) EXPECT_LT(g.divergence, 1e-9) << g.name << compare.text;
  for (const fs::path& p : {csv, free_csv}) {
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
}

TEST(Gui, MousePerturbationsWithMujocoButtonsAreRecordedAndReplayBitForBit) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (shell("command -v xdotool").exit_code != 0) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  // Paused at the start, the four-bar's coupler is under pixel (350, 165) of a 640x400 window at (0, 0):
  // double-click selects it; running, with MuJoCo's buttons (the default) Ctrl+right-drag pulls it,
  // then Ctrl+drag turns it.
  const fs::path csv = freshPath("mouse.csv"), script = freshPath("mouse.sh");
  // Each stage waits for the GUI's own message before the next one (under load
  // a frame can take longer than any fixed sleep, and a whole drag could then
  // fall into one frame's event poll).
  const fs::path log = freshPath("mouse.log");
  std::ofstream(script) << "waitfor() { i=0; while [ \"$(grep -c \"$1\" " + log.string() + ")\" -lt \"$2\" ]; do "
                               "sleep 0.05; i=$((i+1)); if [ $i -gt 1200 ]; then echo \"timed out waiting for: $1\"; break; fi; done; }\n" +
                               std::string(LOOPSIM_BINARY) + " gui " + scenePath("four_bar.yaml") +
                               " --paused --size 640x400 --msaa 0 --hide-ui --record " + csv.string() + " > " + log.string() + " 2>&1 &\n"
                               "gui=$!\n"
                               "xdotool search --sync --name loopsim > /dev/null\n"
                               "sleep 0.5\n"
                               // ImGui 1.86 samples the buttons once per frame: under load both
                               // clicks can fall into one frame and make no double-click, so retry.
                               "n=0; until grep -q \"selected body 'coupler'\" " + log.string() + "; do\n"
                               "  xdotool mousemove 350 165 click --repeat 2 --delay 120 1; sleep 0.5; n=$((n+1))\n"
                               "  if [ $n -ge 40 ]; then echo 'timed out waiting for: the selection'; break; fi\n"
                               "done\n"
                               "xdotool key space\n"
                               "sleep 0.3\n"
                               "xdotool keydown ctrl mousedown 3\n"
                               "sleep 0.2\n"
                               "xdotool mousemove 380 320\n"
                               "waitfor 'perturbation: pulling' 1\n"
                               "sleep 0.6\n"
                               "xdotool mouseup 3\n"
                               "waitfor 'perturbation: released' 1\n"
                               "xdotool mousedown 1\n"
                               "sleep 0.2\n"
                               "xdotool mousemove 450 320\n"
                               "waitfor 'perturbation: turning' 1\n"
                               "sleep 0.6\n"
                               "xdotool mouseup 1 keyup ctrl\n"
                               "waitfor 'perturbation: released' 2\n"
                               "xdotool key ctrl+q\n"
                               "wait $gui\n"
                               "status=$?\n"
                               "cat " + log.string() + "\n"
                               "exit $status\n";
  const Output out = inXvfb("timeout 120 sh " + script.string());
  fs::remove(script);
  fs::remove(log);
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_EQ(out.text.find("timed out waiting for"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("perturbation: pulling body 'coupler' toward the cursor (Ctrl+right-drag)"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("perturbation: turning body 'coupler' (Ctrl+drag)"), std::string::npos) << out.text;
  const loopsim::CsvTable table = loopsim::readCsv(csv);
  const auto body = static_cast<std::size_t>(table.requireColumn("perturbation:body"));
  const auto nx = static_cast<std::size_t>(table.requireColumn("perturbation:nx"));
  const auto fx = static_cast<std::size_t>(table.requireColumn("perturbation:fx"));
  long forces = 0, torques = 0;
  for (const auto& row : table.rows) {
    if (row[body] == 2.0 && row[fx] != 0.0) ++forces;
    if (row[body] == 2.0 && row[nx] != 0.0) ++torques;
  }
  // A loaded machine renders fewer frames (fewer steps) during each 0.6 s drag:
  // the check is that both drags reached the solver, not how many steps they spanned.
  EXPECT_GT(forces, 5) << "steps pulled by the Ctrl+right-drag";
  EXPECT_GT(torques, 5) << "steps turned by the Ctrl+drag";
  std::printf("[ measured ] %zu rows, %ld with the drag's force, %ld with the right-drag's torque\n", table.rows.size(), forces, torques);
  const Output replay = runLoopsim("replay " + csv.string() + " --verify");
  EXPECT_EQ(replay.exit_code, 0) << replay.text;
  EXPECT_NE(replay.text.find("verify: OK"), std::string::npos) << replay.text;
  fs::remove(csv);
  fs::remove(fs::path(csv).replace_extension(".json"));
}
