// What goes wrong, said where it went wrong: a broken scene (at start and on
// reload) keeps the window, a missing display exits 2 (or runs headless), bad
// options name themselves, a screenshot never overwrites a file.
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

TEST(Gui, ReloadingASceneBrokenOnDiskShowsTheErrorAndKeepsTheOldScene) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (shell("command -v xdotool").exit_code != 0) GTEST_SKIP() << "xdotool not found (Debian package xdotool): key test skipped";
  const fs::path scene = freshPath("edited.yaml"), script = freshPath("reload.sh");
  fs::copy_file(scenePath("four_bar.yaml"), scene);
  // Open, pause, break the file on disk, Ctrl+L, step twice (the old scene still runs), quit.
  std::ofstream(script) << std::string(LOOPSIM_BINARY) + " gui " + scene.string() +
                               " --frames 100000000 --size 320x240 --msaa 0 --hide-ui &\n"
                               "gui=$!\n"
                               "xdotool search --sync --name loopsim > /dev/null\n"
                               "sleep 0.3\n"
                               "xdotool key --delay 200 space BackSpace\n"
                               "echo 'solvr: kkt' >> " + scene.string() + "\n"
                               "xdotool key --delay 200 ctrl+l Right Right ctrl+q\n"
                               "wait $gui\n";  // the GUI's exit code
  const Output out = inXvfb("timeout 120 sh " + script.string());
  EXPECT_EQ(out.exit_code, 1) << "a --frames run that ends with a failed load exits 1\n" << out.text;
  EXPECT_NE(out.text.find("gui: error shown: Cannot open " + scene.string()), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("solvr"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("gui: t = 0.002000 s, solver kkt"), std::string::npos) << "the old scene kept running\n" << out.text;
  fs::remove(scene);
  fs::remove(script);
}

TEST(Gui, BrokenSceneShowsTheErrorAndKeepsTheWindow) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path scene = freshPath("broken.yaml"), png = freshPath("broken.png");
  std::ofstream(scene) << "name: broken\nmodels:\n  - generator: four_bar\ndt: 0.001\nsolvr: kkt\n";
  const Output out = runGui(scene.string() + " --frames 5 --size 480x360 --msaa 0 --screenshot " + png.string());
  EXPECT_EQ(out.exit_code, 1) << out.text;
  EXPECT_NE(out.text.find("gui: 5 frames"), std::string::npos) << "all frames rendered: the window stayed\n" << out.text;
  EXPECT_NE(out.text.find("gui: error shown: Cannot open " + scene.string()), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("solvr"), std::string::npos) << "the message names the bad key\n" << out.text;
  // The error banner (dark red) is in the picture.
  const Image image = readPng(png);
  ASSERT_EQ(image.width, 480) << out.text;
  long banner = 0;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const auto p = image.at(x, y);
      banner += (p[0] > 60 && p[0] < 120 && p[1] < 35 && p[2] < 35) ? 1 : 0;
    }
  }
  EXPECT_GT(banner, 2000) << "no error banner in " << png;
  fs::remove(scene);
  fs::remove(png);
}

TEST(Gui, WithoutADisplayExitsWithCode2) {
  const Output out = shell("env -u DISPLAY -u WAYLAND_DISPLAY " + std::string(LOOPSIM_BINARY) + " gui " +
                           scenePath("four_bar.yaml") + " --frames 1");
  EXPECT_EQ(out.exit_code, 2) << out.text;
  EXPECT_NE(out.text.find("no display"), std::string::npos) << out.text;
}

TEST(Gui, BadOptionsNameTheOptionAndTheValue) {
  const std::string scene = scenePath("four_bar.yaml");
  for (const auto& [arguments, message] : std::vector<std::pair<std::string, std::string>>{
           {"--frames 0", "--frames: 0: must be >= 1"},
           {"--size 10x10", "--size: '10x10': width and height must be whole numbers from 64 to 8192"},
           {"--size 640by480", "--size: '640by480' is not WxH"},
           {"--msaa 64", "--msaa: 64 samples: use 0 (off) to 16"},
           {"--camera 1,2", "--camera: '1,2' is not AZIMUTH,ELEVATION,DISTANCE"},
           {"--camera 1,2,-3", "--camera: '1,2,-3': the distance must be > 0"},
           {"--show frames,bogus", "--show: unknown item 'bogus'"},
           {"--switch-solver ltl", "--switch-solver: 'ltl' is not T:NAME"},
           {"--switch-solver x:ltl", "--switch-solver: 'x:ltl' is not valid: 'x' is not a number"},
           {"--wall-clock", "--wall-clock: applies to --frames, which is not given"},
           {"--tick-compare kkt", "--tick-compare: compare 2 to 6 solvers (got 1)"},
           {"--tick-compare kkt,ltll", "--tick-compare: unknown solver 'ltll' (did you mean 'ltl'?)"},
           {"--compare kkt,ltl --tick-compare kkt,ltl", "--tick-compare: ticks solvers without starting them"}}) {
    const Output out = runLoopsim("gui " + scene + " " + arguments);
    EXPECT_EQ(out.exit_code, 1) << arguments << "\n" << out.text;
    EXPECT_NE(out.text.find(message), std::string::npos) << arguments << "\n" << out.text;
  }
}

TEST(Gui, ScreenshotNeverOverwritesAFile) {
  const fs::path png = freshPath("taken.png");
  std::ofstream(png) << "mine";
  const Output out = runLoopsim("gui " + scenePath("four_bar.yaml") + " --screenshot " + png.string());
  EXPECT_EQ(out.exit_code, 1) << out.text;
  EXPECT_NE(out.text.find("exists; not overwritten"), std::string::npos) << out.text;
  std::ifstream in(png);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "mine");
  fs::remove(png);
}

TEST(Gui, PlainLoopsimWithoutADisplayRunsTheDefaultSceneHeadless) {
  // The whole default run takes tens of seconds: stop it after 2 s, once it has said what it does and started.
  const Output out = shell("env -u DISPLAY -u WAYLAND_DISPLAY timeout 2 " + std::string(LOOPSIM_BINARY));
  EXPECT_TRUE(out.exit_code == 124 || out.exit_code == 0) << out.text;
  EXPECT_NE(out.text.find("no display, so no window: running the default scene headless (loopsim run " +
                          scenePath("digit_standing.yaml") + ")"),
            std::string::npos)
      << out.text;
  EXPECT_NE(out.text.find("consistent start"), std::string::npos) << "the run started\n" << out.text;
}

// Scheduled times no run reaches (--switch-solver, --set-stabilization,
// --compare-from) are refused at the scene's dt, in the window and by the exit
// code, instead of overflowing into step 0 or stepping for ever.
TEST(Gui, ScheduledTimesBeyondAnyRunAreRefused) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const std::string base = scenePath("four_bar.yaml") + " --frames 3 --hide-ui --size 160x120 --msaa 0 ";
  Output out = runGui(base + "--switch-solver 1e300:ltl");
  EXPECT_NE(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("gui: error shown: --switch-solver: t = 1e+300 s at dt 0.001 s is step 1e+303; at most "
                          "1e+09 steps are allowed"),
            std::string::npos)
      << out.text;
  EXPECT_EQ(out.text.find("solver ltl from t = 0"), std::string::npos) << "switched at t = 0\n" << out.text;
  out = runGui(base + "--compare kkt,ltl --compare-from 1e20");
  EXPECT_NE(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("gui: error shown: --compare-from: t = 1e+20 s"), std::string::npos) << out.text;
}
