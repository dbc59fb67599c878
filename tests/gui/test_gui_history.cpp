// The session's history: Left and Right browse the last seconds of states,
// Enter resumes from a past one (dropping the future, ending a record there).
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

TEST(Gui, LeftStepsBackInTheHistoryAndEnterResumesDroppingTheFuture) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (shell("command -v xdotool").exit_code != 0) GTEST_SKIP() << "xdotool not found (Debian package xdotool): key test skipped";
  // Paused at t = 0 (reset), three steps, two back: the view shows t = 1 ms, the simulation stays at 3 ms.
  Output out = guiWithKeys("four_bar.yaml", "space BackSpace Right Right Right Left Left");
  EXPECT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("gui: t = 0.003000 s, solver kkt"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: history: 4 states, t = 0.000000 to 0.003000 s (last 10 s), viewing t = 0.001000 s"),
            std::string::npos)
      << out.text;
  // Right moves forward in the history; Enter resumes from the shown state and drops the later ones; Right steps again.
  out = guiWithKeys("four_bar.yaml", "space BackSpace Right Right Right Left Left Right Return Right", "--history 5");
  EXPECT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("resumed from t = 0.002 s (step 2)"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: t = 0.003000 s, solver kkt"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: history: 4 states, t = 0.000000 to 0.003000 s (last 5 s)\n"), std::string::npos) << out.text;
}

TEST(Gui, ResumingFromThePastEndsTheRecordWhichReplaysBitForBit) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (shell("command -v xdotool").exit_code != 0) GTEST_SKIP() << "xdotool not found (Debian package xdotool): key test skipped";
  const fs::path csv = freshPath("history_record.csv");
  // Running, then Left pauses and shows the previous state; Enter resumes there: the record ends at the pause.
  const Output out = guiWithKeys("four_bar.yaml", "Left Left Return", "--record " + csv.string());
  EXPECT_EQ(out.exit_code, 0) << out.text;
  const double paused = numberAfter(out.text, "record " + csv.string() + " ended at t = ");
  const double resumed = numberAfter(out.text, "resumed from t = ");
  const double now = numberAfter(out.text, "gui: t = ");
  ASSERT_FALSE(std::isnan(paused) || std::isnan(resumed) || std::isnan(now)) << out.text;
  EXPECT_NEAR(resumed, paused - 0.002, 1e-9) << out.text;
  EXPECT_NEAR(now, resumed, 1e-9) << "paused after resuming" << out.text;
  const loopsim::CsvTable table = loopsim::readCsv(csv);
  ASSERT_FALSE(table.rows.empty());
  EXPECT_NEAR(table.rows.back()[static_cast<std::size_t>(table.requireColumn("t"))], paused, 1e-9);
  const Output replay = runLoopsim("replay " + csv.string() + " --verify");
  EXPECT_EQ(replay.exit_code, 0) << replay.text;
  EXPECT_NE(replay.text.find("verify: OK"), std::string::npos) << replay.text;
  fs::remove(csv);
  fs::remove(fs::path(csv).replace_extension(".json"));
}
