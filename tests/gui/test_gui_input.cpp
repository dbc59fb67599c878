// The keyboard and the mouse on the window (xdotool in the virtual X
// server): the transport keys, double-click picking and a dropped file.
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

TEST(Gui, KeysPauseStepResetAndQuit) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (shell("command -v xdotool").exit_code != 0) GTEST_SKIP() << "xdotool not found (Debian package xdotool): key test skipped";
  // Space pauses, Right steps, Backspace resets (staying paused), two more Right steps, Ctrl+Q quits:
  // the run ends at exactly two steps of the four-bar's dt = 1 ms, whatever the timing of the keys.
  // Each key is held 0.2 s so that a frame sees it however slow the machine is.
  const fs::path script = freshPath("keys.sh");
  std::ofstream(script) << std::string(LOOPSIM_BINARY) + " gui " + scenePath("four_bar.yaml") +
                               " --frames 100000000 --size 160x120 --msaa 0 --hide-ui &\n"
                               "gui=$!\n"
                               "xdotool search --sync --name loopsim > /dev/null\n"
                               "sleep 0.3\n"
                               "xdotool key --delay 200 space Right Right Right BackSpace Right Right ctrl+q\n"
                               "wait $gui\n";  // the GUI's exit code
  const Output out = inXvfb("timeout 120 sh " + script.string());
  EXPECT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("gui: t = 0.002000 s, solver kkt"), std::string::npos) << out.text;
  fs::remove(script);
}

TEST(Gui, DoubleClickSelectsTheBodyUnderTheCursorAndOnNothingDeselects) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (shell("command -v xdotool").exit_code != 0) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  // Paused at the start, the four-bar's coupler is under pixel (350, 165) of a 640x400 window at (0, 0); (60, 60) is sky.
  const fs::path script = freshPath("pick.sh");
  std::ofstream(script) << std::string(LOOPSIM_BINARY) + " gui " + scenePath("four_bar.yaml") +
                               " --paused --size 640x400 --msaa 0 --hide-ui &\n"
                               "gui=$!\n"
                               "xdotool search --sync --name loopsim > /dev/null\n"
                               "sleep 0.5\n"
                               "xdotool mousemove 350 165 click --repeat 2 --delay 80 1\n"
                               "sleep 0.4\n"
                               "xdotool mousemove 60 60 click --repeat 2 --delay 80 1\n"
                               "sleep 0.4\n"
                               "xdotool keydown ctrl keydown q sleep 0.3 keyup q keyup ctrl\n"  // held: a busy frame still sees it
                               "wait $gui\n";
  const Output out = inXvfb("timeout 120 sh " + script.string());
  fs::remove(script);
  ASSERT_EQ(out.exit_code, 0) << out.text;
  const auto selected = out.text.find("double-click at 350 165: selected body 'coupler'");
  const auto nothing = out.text.find("double-click at 60 60: nothing there, no body selected");
  EXPECT_NE(selected, std::string::npos) << out.text;
  EXPECT_NE(nothing, std::string::npos) << out.text;
  EXPECT_LT(selected, nothing) << out.text;
}

TEST(Gui, AFileDroppedOnTheWindowIsOpened) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (shell("command -v xdotool").exit_code != 0) GTEST_SKIP() << "xdotool not found (Debian package xdotool): drop test skipped";
  // The XDND protocol of a file manager (tests/gui/harness/xdnd_drop.cpp) drops the Go1 scene on the four-bar's window.
  const fs::path script = freshPath("drop.sh");
  std::ofstream(script) << std::string(LOOPSIM_BINARY) + " gui " + scenePath("four_bar.yaml") +
                               " --paused --size 320x200 --msaa 0 --hide-ui --frames 100000000 &\n"
                               "gui=$!\n"
                               "window=$(xdotool search --sync --name loopsim | head -n 1)\n"
                               "sleep 0.5\n" +
                               std::string(LOOPSIM_XDND_DROP) + " $window 100 100 " + scenePath("go1_standing.yaml") + "\n"
                               "sleep 0.5\n"
                               "xdotool keydown ctrl keydown q sleep 0.3 keyup q keyup ctrl\n"
                               "wait $gui\n";
  const Output out = inXvfb("timeout 120 sh " + script.string());
  fs::remove(script);
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("xdnd_drop: dropped file://" + scenePath("go1_standing.yaml")), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("dropped on the window: " + scenePath("go1_standing.yaml")), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("opened " + scenePath("go1_standing.yaml") + " (go1_standing"), std::string::npos) << out.text;
}
