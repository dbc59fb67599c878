// `loopsim gui` in a virtual X server (xvfb-run, Mesa llvmpipe): screenshots
// of the robot scenes, solver switching against `loopsim run`, a broken scene
// and the missing display. Small windows and few frames keep each test at a
// few seconds.
#include "command_output.hpp"
#include <gtest/gtest.h>
#include <png.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include <loopsim/record/csv_reader.hpp>
#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/scene/scene_loader.hpp>

namespace {

namespace fs = std::filesystem;

using Output = loopsim::test::CommandOutput;

Output shell(const std::string& command) { return loopsim::test::runCommand(command); }

bool haveXvfb() { return shell("command -v xvfb-run").exit_code == 0; }

// Sanitizer build: the GL driver (Mesa's llvmpipe, dlopened through libGL and
// unloaded by glfwTerminate) leaves leaks whose frames lie in unloaded modules,
// which no LeakSanitizer suppression can name. Leak checking is off for the
// processes in the virtual X server only; ASan and UBSan stay on there, and
// every other loopsim process of the suites keeps it.
#if defined(__SANITIZE_ADDRESS__)
constexpr const char* kInXvfbEnvironment = "ASAN_OPTIONS=\"${ASAN_OPTIONS}:detect_leaks=0\" ";
#else
constexpr const char* kInXvfbEnvironment = "";
#endif

// A shell command in its own virtual X server. The exit code is the command's,
// reported from inside: xvfb-run's own can also say that cleaning up its
// temporary directory failed, which is not the GUI's doing.
Output inXvfb(const std::string& command) {
  Output out = shell(std::string(kInXvfbEnvironment) + "xvfb-run -a -s '-screen 0 1024x768x24' sh -c '" + command +
                     "; echo \"exit code: $?\"'");
  const auto at = out.text.rfind("exit code: ");
  out.exit_code = at == std::string::npos ? -1 : std::atoi(out.text.c_str() + at + 11);
  return out;
}

Output runGui(const std::string& arguments) { return inXvfb(std::string(LOOPSIM_BINARY) + " gui " + arguments); }

Output runLoopsim(const std::string& arguments) { return shell(std::string(LOOPSIM_BINARY) + " " + arguments); }

std::string scenePath(const std::string& name) {
  return (fs::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / name).string();
}

fs::path freshPath(const std::string& name) {
  const fs::path path = fs::temp_directory_path() / ("loopsim_gui_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove(path);
  // A record's sidecar too: one left by an earlier run whose process had the
  // same id would make the record refuse to overwrite it.
  if (path.extension() == ".csv") fs::remove(fs::path(path).replace_extension(".json"));
  return path;
}

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  std::array<int, 3> at(int x, int y) const {
    const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
    return {rgb[i], rgb[i + 1], rgb[i + 2]};
  }
};

Image readPng(const fs::path& path) {
  Image image;
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&png, path.c_str()) == 0) return image;
  png.format = PNG_FORMAT_RGB;
  image.rgb.resize(PNG_IMAGE_SIZE(png));
  if (png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr) == 0) return {};
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  return image;
}

// "gui: model on screen: x0 y0 x1 y1 (...)" from the run's output.
bool screenBox(const std::string& text, std::array<int, 4>& box) {
  const auto at = text.find("gui: model on screen: ");
  if (at == std::string::npos) return false;
  std::istringstream in(text.substr(at + 22));
  return static_cast<bool>(in >> box[0] >> box[1] >> box[2] >> box[3]);
}

// A pixel shows one of the model's colours when it is that colour under some
// light level (a multiple k of it, k in [0.3, 1.6]) within 6 % of its brightness.
bool hasModelColour(const std::array<int, 3>& p, const std::vector<std::array<double, 3>>& colours) {
  const double px = p[0], py = p[1], pz = p[2];
  const double brightness = std::max(20.0, std::sqrt(px * px + py * py + pz * pz));
  for (const auto& c : colours) {
    const double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    if (cc < 1e-6) continue;
    const double k = (px * c[0] + py * c[1] + pz * c[2]) / cc;
    if (k < 0.3 * 255 || k > 1.6 * 255) continue;
    const double rx = px - k * c[0], ry = py - k * c[1], rz = pz - k * c[2];
    if (std::sqrt(rx * rx + ry * ry + rz * rz) < 0.06 * brightness) return true;
  }
  return false;
}

struct ColourCounts {
  double inside = 0.0, outside = 0.0;  // fractions of pixels in / out of the box with a model colour
};

ColourCounts modelColourFractions(const Image& image, const std::array<int, 4>& box,
                                  const std::vector<std::array<double, 3>>& colours) {
  long in_hits = 0, in_total = 0, out_hits = 0, out_total = 0;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const bool inside = x >= box[0] && x < box[2] && y >= box[1] && y < box[3];
      const bool hit = hasModelColour(image.at(x, y), colours);
      (inside ? in_total : out_total) += 1;
      (inside ? in_hits : out_hits) += hit ? 1 : 0;
    }
  }
  return {in_total > 0 ? static_cast<double>(in_hits) / in_total : 0.0,
          out_total > 0 ? static_cast<double>(out_hits) / out_total : 0.0};
}

// The RGB colours of the visuals of a scene in scenes/.
std::vector<std::array<double, 3>> visualColours(const std::string& scene_file) {
  const loopsim::Scene scene = loopsim::loadScene(scenePath(scene_file));
  std::vector<std::array<double, 3>> colours;
  for (const loopsim::VisualGeometry& v : scene.model->visuals) colours.push_back({v.rgba[0], v.rgba[1], v.rgba[2]});
  return colours;
}

void expectScreenshotShowsRobot(const std::string& scene_file) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path png = freshPath(fs::path(scene_file).stem().string() + ".png");
  const Output out = runGui(scenePath(scene_file) + " --frames 3 --size 320x240 --msaa 4 --hide-ui --screenshot " + png.string());
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("gui: 3 frames"), std::string::npos) << out.text;
  const Image image = readPng(png);
  ASSERT_EQ(image.width, 320) << out.text;
  ASSERT_EQ(image.height, 240);

  // Not blank: the pixel values spread.
  double sum = 0.0, sum2 = 0.0;
  for (unsigned char v : image.rgb) {
    sum += v;
    sum2 += static_cast<double>(v) * v;
  }
  const double n = static_cast<double>(image.rgb.size());
  EXPECT_GT(std::sqrt(sum2 / n - (sum / n) * (sum / n)), 10.0) << "blank screenshot " << png;

  // The robot: its colours fill a good part of its projected box, and hardly appear elsewhere.
  std::array<int, 4> box{};
  ASSERT_TRUE(screenBox(out.text, box)) << out.text;
  EXPECT_GT((box[2] - box[0]) * (box[3] - box[1]), 320 * 240 / 20) << "the model should fill part of the view";
  const std::vector<std::array<double, 3>> colours = visualColours(scene_file);
  ASSERT_FALSE(colours.empty());
  const ColourCounts fractions = modelColourFractions(image, box, colours);
  // Measured: 0.11 to 0.24 of the box with the robot drawn, at most 0.016 when it is not drawn.
  EXPECT_GT(fractions.inside, 0.06) << "too few robot-coloured pixels in the robot's box " << box[0] << " " << box[1]
                                    << " " << box[2] << " " << box[3] << " of " << png;
  EXPECT_GT(fractions.inside, 4.0 * fractions.outside) << "robot colours are not where the robot is: " << png;
  fs::remove(png);
}

}  // namespace

TEST(Gui, AtlasScreenshotShowsTheRobot) { expectScreenshotShowsRobot("atlas_standing.yaml"); }
TEST(Gui, Go1ScreenshotShowsTheRobot) { expectScreenshotShowsRobot("go1_standing.yaml"); }
TEST(Gui, DigitScreenshotShowsTheRobot) { expectScreenshotShowsRobot("digit_standing.yaml"); }
TEST(Gui, FourBarScreenshotShowsTheMechanism) { expectScreenshotShowsRobot("four_bar.yaml"); }

// The side panels draw no background of their own (Window::fillBehindUi fills it behind the UI):
// their empty area must have ImGui's window background colour, not the scene or stale pixels.
TEST(Gui, ThePanelsAreFilledWithTheWindowBackground) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path png = freshPath("panels.png");
  const Output out = runGui(scenePath("digit_standing.yaml") + " --frames 3 --size 1280x720 --msaa 4 --screenshot " + png.string());
  ASSERT_EQ(out.exit_code, 0) << out.text;
  const Image image = readPng(png);
  ASSERT_EQ(image.width, 1280) << out.text;
  // Dear ImGui's dark style: WindowBg (0.06, 0.06, 0.06), drawn opaque.
  const auto fraction = [&](int x0, int y0, int x1, int y1) {
    long background = 0;
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) background += image.at(x, y) == std::array<int, 3>{15, 15, 15};
    }
    return static_cast<double>(background) / static_cast<double>((x1 - x0) * (y1 - y0));
  };
  // The control panel's lower half (it holds 8..328 x 8..712) and the Info panel's (under its
  // title, 952..1272): text and widgets cover a third at most.
  EXPECT_GT(fraction(12, 360, 320, 700), 0.6) << png;
  EXPECT_GT(fraction(956, 30, 1268, 180), 0.6) << png;
  fs::remove(png);
}

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

TEST(Gui, MissingMeshIsABoxFromTheInertiaWithOneWarning) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path urdf = freshPath("meshbot.urdf"), png = freshPath("meshbot.png");
  const std::string mesh = R"(<geometry><mesh filename="package://nowhere/meshes/gone.stl"/></geometry>)";
  std::ofstream(urdf) << R"(<robot name="meshbot">
  <link name="base"><visual><geometry><box size="0.2 0.2 0.2"/></geometry></visual></link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/><origin xyz="0 0 0.5"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
  <link name="arm"><inertial><origin xyz="0 0 0.2"/><mass value="2"/>
      <inertia ixx="0.03" iyy="0.03" izz="0.005" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual>)" << mesh << R"(<material name="red"><color rgba="0.9 0.1 0.1 1"/></material></visual>
    <visual>)" << mesh << R"(<material name="red"/></visual></link>
</robot>)";
  const Output out = runGui(urdf.string() + " --frames 2 --size 240x240 --msaa 0 --hide-ui --screenshot " + png.string());
  ASSERT_EQ(out.exit_code, 0) << out.text;
  const std::string warning = "visual 'arm' on body 'arm': mesh file 'package://nowhere/meshes/gone.stl' not found";
  const auto first = out.text.find(warning);
  ASSERT_NE(first, std::string::npos) << out.text;
  EXPECT_EQ(out.text.find(warning, first + 1), std::string::npos) << "warned twice\n" << out.text;
  EXPECT_NE(out.text.find("drawing a box sized from the body's inertia"), std::string::npos) << out.text;
  // The stand-in box is drawn in the visual's colour.
  const Image image = readPng(png);
  ASSERT_EQ(image.width, 240);
  long red = 0;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const auto p = image.at(x, y);
      red += (p[0] > 80 && p[0] > 4 * p[1] && p[0] > 4 * p[2]) ? 1 : 0;
    }
  }
  EXPECT_GT(red, 500) << "no placeholder box in " << png;
  fs::remove(urdf);
  fs::remove(png);
}

TEST(Gui, DivergencePausesAndSaysWhatAndWhen) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  // An explicit PD far too stiff for dt = 10 ms: the loop opens at the second step.
  const fs::path scene = freshPath("unstable.yaml"), png = freshPath("unstable.png");
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

namespace {

// Hue (degrees) and saturation of an RGB pixel (HSV).
std::pair<double, double> hueSaturation(const std::array<int, 3>& p) {
  const double r = p[0] / 255.0, g = p[1] / 255.0, b = p[2] / 255.0;
  const double hi = std::max({r, g, b}), lo = std::min({r, g, b}), span = hi - lo;
  if (hi <= 0.0 || span <= 0.0) return {0.0, 0.0};
  double hue = 0.0;
  if (hi == r) hue = 60.0 * std::fmod((g - b) / span + 6.0, 6.0);
  else if (hi == g) hue = 60.0 * ((b - r) / span + 2.0);
  else hue = 60.0 * ((r - g) / span + 4.0);
  return {hue, span / hi};
}

double hueDistance(double a, double b) {
  const double d = std::abs(a - b);
  return std::min(d, 360.0 - d);
}

struct Ghost {
  std::string name, role;
  std::array<int, 3> rgb{};
  std::array<int, 4> box{};
  double divergence = 0.0;
};

// "gui: ghost I NAME ROLE rgb R G B alpha A box X0 Y0 X1 Y1 divergence D STATUS" lines of a --frames run.
std::vector<Ghost> ghostsOf(const std::string& text) {
  std::vector<Ghost> ghosts;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("gui: ghost ", 0) != 0) continue;
    std::istringstream in(line.substr(11));
    Ghost g;
    int index = 0;
    double alpha = 0.0;
    std::string word;
    in >> index >> g.name >> g.role >> word >> g.rgb[0] >> g.rgb[1] >> g.rgb[2] >> word >> alpha >> word >> g.box[0] >>
        g.box[1] >> g.box[2] >> g.box[3] >> word >> g.divergence;
    if (in) ghosts.push_back(g);
  }
  return ghosts;
}

}  // namespace

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

namespace {

// Runs the GUI on `scene` under xdotool pressing `keys` (each held 0.2 s), then Ctrl+Q.
Output guiWithKeys(const std::string& scene, const std::string& keys, const std::string& extra = "") {
  const fs::path script = freshPath("history_keys.sh");
  std::ofstream(script) << std::string(LOOPSIM_BINARY) + " gui " + scenePath(scene) +
                               " --frames 100000000 --size 160x120 --msaa 0 --hide-ui " + extra + " &\n"
                               "gui=$!\n"
                               "xdotool search --sync --name loopsim > /dev/null\n"
                               "sleep 0.3\n"
                               "xdotool key --delay 200 " + keys + " ctrl+q\n"
                               "wait $gui\n";
  Output out = inXvfb("timeout 120 sh " + script.string());
  fs::remove(script);
  return out;
}

double numberAfter(const std::string& text, const std::string& marker) {
  const auto at = text.find(marker);
  return at == std::string::npos ? std::nan("") : std::atof(text.c_str() + at + marker.size());
}

}  // namespace

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

namespace {

struct ShownRecord {
  double t = 0.0;
  std::size_t row = 0;
  std::vector<double> q;
};

// "gui: record K: FILE t = T s, row R of N, q = ..." (numbers at 17 digits: they read back exactly).
bool shownRecord(const std::string& text, int k, ShownRecord& shown) {
  const std::string marker = "gui: record " + std::to_string(k) + ": ";
  const auto at = text.find(marker);
  if (at == std::string::npos) return false;
  const std::string line = text.substr(at, text.find('\n', at) - at);
  const auto t_at = line.find(" t = "), row_at = line.find(", row "), q_at = line.find(", q =");
  if (t_at == std::string::npos || row_at == std::string::npos || q_at == std::string::npos) return false;
  shown.t = std::strtod(line.c_str() + t_at + 5, nullptr);
  shown.row = std::strtoul(line.c_str() + row_at + 6, nullptr, 10);
  std::istringstream in(line.substr(q_at + 5));
  for (double x; in >> x;) shown.q.push_back(x);
  return true;
}

std::vector<double> recordedQ(const loopsim::CsvTable& table, std::size_t row) {
  std::vector<double> q;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (table.columns[c].rfind("q:", 0) == 0) q.push_back(table.rows[row][c]);
  }
  return q;
}

}  // namespace

TEST(Gui, ScrubbingARecordShowsExactlyTheRecordedQAndTwoRecordsOverlayWithTheirDivergence) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path kkt = freshPath("timeline_kkt.csv"), soft = freshPath("timeline_soft.csv");
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.5 --quiet --record " + kkt.string()).exit_code, 0);
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --solver soft-ltl --duration 0.5 --quiet --record " + soft.string()).exit_code, 0);
  const loopsim::CsvTable table = loopsim::readCsv(kkt), soft_table = loopsim::readCsv(soft);

  // Scrubbed (--seek, the slider's action) to a row's time and between two rows: the row at or before t, exactly.
  for (const auto& [seek, expected_row] : std::vector<std::pair<std::string, std::size_t>>{{"0.25", 250}, {"0.3335", 333}, {"9", 500}}) {
    const Output out = runGui("--play " + kkt.string() + " --seek " + seek + " --frames 2 --size 160x120 --msaa 0 --hide-ui");
    ASSERT_EQ(out.exit_code, 0) << out.text;
    ShownRecord shown;
    ASSERT_TRUE(shownRecord(out.text, 1, shown)) << out.text;
    EXPECT_EQ(shown.row, expected_row) << "seek " << seek;
    EXPECT_EQ(shown.t, table.rows[expected_row][static_cast<std::size_t>(table.requireColumn("t"))]);
    const std::vector<double> q = recordedQ(table, expected_row);
    ASSERT_EQ(shown.q.size(), q.size());
    for (std::size_t i = 0; i < q.size(); ++i) EXPECT_EQ(shown.q[i], q[i]) << "seek " << seek << " q " << i << " bit for bit";
  }

  // Playing: 20 frames of 1/60 s from the start; the second record is the ghost, with the divergence of the rows shown.
  const Output out = runGui("--play " + kkt.string() + " --play " + soft.string() + " --frames 20 --size 160x120 --msaa 0 --hide-ui");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  ShownRecord first, second;
  ASSERT_TRUE(shownRecord(out.text, 1, first)) << out.text;
  ASSERT_TRUE(shownRecord(out.text, 2, second)) << out.text;
  EXPECT_EQ(first.row, 333u) << "20 frames of 1/60 s: t = 0.333";
  EXPECT_EQ(second.row, 333u);
  EXPECT_EQ(second.q, recordedQ(soft_table, 333));
  const loopsim::Scene scene = loopsim::loadScene(scenePath("four_bar.yaml"));
  loopsim::VectorX q1 = Eigen::Map<const loopsim::VectorX>(first.q.data(), static_cast<Eigen::Index>(first.q.size()));
  loopsim::VectorX q2 = Eigen::Map<const loopsim::VectorX>(second.q.data(), static_cast<Eigen::Index>(second.q.size()));
  loopsim::VectorX d(scene.model->nv);
  loopsim::difference(*scene.model, q1, q2, d);
  const double shown_divergence = numberAfter(out.text, "gui: records divergence ");
  EXPECT_EQ(shown_divergence, d.norm());
  EXPECT_GT(shown_divergence, 0.0) << "soft-ltl differs from kkt";
  std::printf("[ measured ] four_bar kkt vs soft-ltl records at t = 0.333 s: divergence %.3e\n", shown_divergence);

  // Records of different models do not overlay.
  const fs::path go1 = freshPath("timeline_go1.csv");
  ASSERT_EQ(runLoopsim("run " + scenePath("go1_standing.yaml") + " --duration 0.01 --quiet --record " + go1.string()).exit_code, 0);
  const Output mixed = runGui("--play " + kkt.string() + " --play " + go1.string() + " --frames 1 --size 160x120 --msaa 0 --hide-ui");
  EXPECT_EQ(mixed.exit_code, 1) << mixed.text;
  EXPECT_NE(mixed.text.find("is of another model"), std::string::npos) << mixed.text;
  for (const fs::path& p : {kkt, soft, go1}) {
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
}

TEST(Gui, APerturbationRecordedInTheGuiReplaysBitForBitAndDrivesEveryComparedSolver) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path csv = freshPath("perturbed.csv");
  // --perturb is the scripted Ctrl+drag: the coupler's origin pulled toward (0.3, 0, 1.8) from 0.1 s to 0.4 s.
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

TEST(Gui, MousePerturbationsCtrlDragAndCtrlRightDragAreRecordedAndReplayBitForBit) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (shell("command -v xdotool").exit_code != 0) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  // Paused at the start, the four-bar's coupler is under pixel (350, 165) of a 640x400 window at (0, 0):
  // double-click selects it; running, Ctrl+drag pulls it, then Ctrl+right-drag turns it.
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
                               "xdotool keydown ctrl mousedown 1\n"
                               "sleep 0.2\n"
                               "xdotool mousemove 380 320\n"
                               "waitfor 'perturbation: pulling' 1\n"
                               "sleep 0.6\n"
                               "xdotool mouseup 1\n"
                               "waitfor 'perturbation: released' 1\n"
                               "xdotool mousedown 3\n"
                               "sleep 0.2\n"
                               "xdotool mousemove 450 320\n"
                               "waitfor 'perturbation: turning' 1\n"
                               "sleep 0.6\n"
                               "xdotool mouseup 3 keyup ctrl\n"
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
  EXPECT_NE(out.text.find("perturbation: pulling body 'coupler' toward the cursor (Ctrl+drag)"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("perturbation: turning body 'coupler' (Ctrl+right-drag)"), std::string::npos) << out.text;
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
  EXPECT_GT(forces, 5) << "steps pulled by the Ctrl+drag";
  EXPECT_GT(torques, 5) << "steps turned by the Ctrl+right-drag";
  std::printf("[ measured ] %zu rows, %ld with the drag's force, %ld with the right-drag's torque\n", table.rows.size(), forces, torques);
  const Output replay = runLoopsim("replay " + csv.string() + " --verify");
  EXPECT_EQ(replay.exit_code, 0) << replay.text;
  EXPECT_NE(replay.text.find("verify: OK"), std::string::npos) << replay.text;
  fs::remove(csv);
  fs::remove(fs::path(csv).replace_extension(".json"));
}

TEST(Gui, TwoRecordsOnTheTimelineAreTwoGhostsOfDistinctColoursWithALegend) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  // A free run and a pushed one (the coupler pulled from 0.05 s): they part visibly by 0.45 s.
  const fs::path free_csv = freshPath("ghost_free.csv"), pushed = freshPath("ghost_pushed.csv"), png = freshPath("ghosts.png");
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.5 --quiet --record " + free_csv.string()).exit_code, 0);
  ASSERT_EQ(runGui(scenePath("four_bar.yaml") + " --perturb coupler:0.05:0.5:0.6,0,2.2 --frames 30 --size 160x120 --msaa 0 "
                                                 "--hide-ui --record " + pushed.string()).exit_code,
            0);
  const Output out = runGui("--play " + free_csv.string() + " --play " + pushed.string() +
                            " --seek 0.45 --frames 2 --size 480x300 --msaa 4 --hide-ui --screenshot " + png.string());
  ASSERT_EQ(out.exit_code, 0) << out.text;
  // "gui: record ghost K rgb R G B alpha A box X0 Y0 X1 Y1"
  std::vector<Ghost> ghosts;
  std::istringstream lines(out.text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("gui: record ghost ", 0) != 0) continue;
    std::istringstream in(line.substr(18));
    Ghost g;
    double alpha = 0.0;
    std::string word;
    in >> g.name >> word >> g.rgb[0] >> g.rgb[1] >> g.rgb[2] >> word >> alpha >> word >> g.box[0] >> g.box[1] >> g.box[2] >> g.box[3];
    ASSERT_TRUE(in) << line;
    EXPECT_LT(alpha, 1.0) << "record " << g.name << " is translucent";
    ghosts.push_back(g);
  }
  ASSERT_EQ(ghosts.size(), 2u) << out.text;
  const double hue1 = hueSaturation(ghosts[0].rgb).first, hue2 = hueSaturation(ghosts[1].rgb).first;
  EXPECT_GT(hueDistance(hue1, hue2), 90.0) << "distinct colours";
  const double divergence = numberAfter(out.text, "gui: records divergence ");
  EXPECT_GT(divergence, 1e-2) << "the push moved the second record" << out.text;
  // Both colours are on screen inside the records' boxes (neither ghost hides the other); the
  // bluish ground is less saturated than the ghosts.
  const Image image = readPng(png);
  ASSERT_EQ(image.width, 480);
  std::array<long, 2> counts{0, 0}, outside{0, 0};
  const std::array<int, 4> box{std::min(ghosts[0].box[0], ghosts[1].box[0]), std::min(ghosts[0].box[1], ghosts[1].box[1]),
                               std::max(ghosts[0].box[2], ghosts[1].box[2]), std::max(ghosts[0].box[3], ghosts[1].box[3])};
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const auto [hue, saturation] = hueSaturation(image.at(x, y));
      if (saturation < 0.55) continue;
      const bool inside = x >= box[0] && x < box[2] && y >= box[1] && y < box[3];
      auto& tally = inside ? counts : outside;
      if (hueDistance(hue, hue1) < 25.0) ++tally[0];
      if (hueDistance(hue, hue2) < 25.0) ++tally[1];
    }
  }
  std::printf("[ measured ] record ghosts at t = 0.45 s: divergence %.3e, pixels of colour 1 / 2: %ld / %ld in the boxes, "
              "%ld / %ld outside\n", divergence, counts[0], counts[1], outside[0], outside[1]);
  EXPECT_GT(counts[0], 100) << png;
  EXPECT_GT(counts[1], 100) << png;
  EXPECT_GT(counts[0], 5 * outside[0]) << "colour 1 is the ghost's, not the background's: " << png;
  fs::remove(png);
  for (const fs::path& p : {free_csv, pushed}) {
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
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

namespace {

// Runs the GUI with `arguments` (panels shown, --log-events --log-widgets, a 1024x768 window) under
// the shell `actions`, then Ctrl+Q; returns its log and exit code. The actions can use:
//   waitfor TEXT [N]   wait until the log holds N (default 1) lines with TEXT;
//   click LABEL        click the centre of the panel widget LABEL where the GUI's --log-widgets lines
//                      put it: once it is shown and enabled, after scrolling its panel (the mouse
//                      wheel) or clicking the panel's title bar when another window covers it;
//   press LABEL P      press the left button on LABEL (shown as for click) P % of its width from its
//                      left edge, at mid-height, and wait until the GUI reports it active (held);
//   moveto LABEL P     move the (held) mouse to P % of LABEL's width;
//   release LABEL      release the left button and wait until LABEL is no longer active;
//   focus LABEL        click the text field LABEL and wait until it takes the keys (active);
//   step N             click "Step (Right)" and wait until the log holds N step events;
//   typein LABEL TEXT  focus LABEL (the click selects its text), type TEXT and hold Enter until
//                      the field lets go (ImGui 1.86 reads keys once per frame: a shorter press is missed).
// Every click waits for the GUI to report the widget, never for a fixed time, so a loaded
// machine only slows the test down.
Output guiClicking(const std::string& arguments, const std::string& actions) {
  const fs::path script = freshPath("clicks.sh"), log = freshPath("clicks.log");
  std::ofstream(script) << "log=" + log.string() + "\n" + R"SH(
# (Ctrl+Q does nothing while a text field takes the keys: the GUI is killed after 3 s.)
fail() { echo "timed out waiting for $1"; xdotool key ctrl+q; (sleep 3; kill $gui 2>/dev/null) & wait $gui; cat $log; exit 1; }
waitfor() { i=0; while [ "$(grep -cF -- "$1" $log)" -lt "${2:-1}" ]; do sleep 0.05; i=$((i+1)); [ $i -gt 1200 ] && fail "$1"; done; }
widget() { grep -F "widget: '$1' " $log | tail -n 1 | sed "s/.*widget: '[^']*' //"; }
lines() { grep -cF "widget: " $log; }
# panel LABEL DY BUTTON: scroll (button 4 up, 5 down) over the control panel DY pixels below its title bar,
# or click its title bar (DY < 0, button 1); then wait until some widget moved (a new widget line), or 3 s when
# nothing did.
panel() {
  dy=$2; button=$3
  set -- $(widget loopsim)
  n=$(lines)
  xdotool mousemove --window $window $(( ($2 + $4) / 2 )) $(( $5 + dy )) click $button
  i=0; while [ "$(lines)" -le $n ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i+1)); done
}
# shown LABEL: wait until LABEL is shown and enabled (scrolling or raising its panel); its line in $w.
shown() {
  i=0
  while :; do
    w=$(widget "$1")
    case "$w" in
      "at "*" disabled") sleep 0.05 ;;
      "at "*) break ;;
      "hidden (scrolled out below)") panel "$1" 60 5 ;;
      "hidden (scrolled out above)") panel "$1" 60 4 ;;
      "hidden (under a window)") panel "$1" -10 1 ;;
      *) sleep 0.05 ;;
    esac
    i=$((i+1)); [ $i -gt 1200 ] && fail "widget $1 ($w)"
  done
}
# active LABEL yes|no: wait until LABEL's last line says it is (not) active.
active() {
  i=0
  while :; do
    case "$(widget "$1")" in *" active") [ "$2" = yes ] && break ;; *) [ "$2" = no ] && break ;; esac
    sleep 0.05; i=$((i+1)); [ $i -gt 100 ] && fail "widget $1 active: $2"
  done
}
click() {
  shown "$1"
  set -- $w
  xdotool mousemove --window $window $(( ($2 + $4) / 2 )) $(( ($3 + $5) / 2 )) click 1
}
# x and y of P % of LABEL's width at mid-height (LABEL shown), in $x $y.
at_percent() { shown "$1"; p=$2; set -- $w; x=$(( $2 + ($4 - $2) * p / 100 )); y=$(( ($3 + $5) / 2 )); }
press() { at_percent "$1" $2; xdotool mousemove --window $window $x $y mousedown 1; active "$1" yes; }
moveto() { at_percent "$1" $2; xdotool mousemove --window $window $x $y; }
release() { xdotool mouseup 1; active "$1" no; }
focus() { click "$1"; active "$1" yes; }
step() { click 'Step (Right)'; waitfor 'event: step to' "$1"; }
typein() { focus "$1"; xdotool type "$2"; xdotool keydown Return; active "$1" no; xdotool keyup Return; }
)SH" + std::string(LOOPSIM_BINARY) + " gui " + arguments +
                               " --log-events --log-widgets --size 1024x768 --msaa 0 > $log 2>&1 &\n"
                               "gui=$!\n"
                               "window=$(xdotool search --sync --name loopsim | head -n 1)\n" +
                               actions +
                               "\nxdotool key ctrl+q\n"
                               "wait $gui\n"
                               "status=$?\n"
                               "cat $log\n"
                               "exit $status\n";
  Output out = inXvfb("timeout 120 sh " + script.string());
  fs::remove(script);
  fs::remove(log);
  return out;
}

bool haveXdotool() { return shell("command -v xdotool").exit_code == 0; }

}  // namespace

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

namespace {

// How many pixels of the image show one of `colours` (as hasModelColour tells), per colour.
std::vector<long> colourCounts(const Image& image, const std::vector<std::array<double, 3>>& colours) {
  std::vector<long> counts(colours.size(), 0);
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      for (std::size_t k = 0; k < colours.size(); ++k) counts[k] += hasModelColour(image.at(x, y), {colours[k]}) ? 1 : 0;
    }
  }
  return counts;
}

// A screenshot (Ctrl+P, the panels hidden with Tab) after `actions` on the paused four-bar; the
// image is read and its file removed.
Image fourBarScreenshotAfter(const std::string& actions, std::string& log) {
  const Output out = guiClicking(scenePath("four_bar.yaml") + " --paused",
                                 actions + "\nxdotool key Tab; xdotool key ctrl+p; waitfor 'event: screenshot '");
  log = out.text;
  const auto at = out.text.find("event: screenshot ");
  if (out.exit_code != 0 || at == std::string::npos) return {};
  const fs::path png = out.text.substr(at + 18, out.text.find('\n', at) - at - 18);
  const Image image = readPng(png);
  fs::remove(png);
  return image;
}

}  // namespace

// The Rendering section's "body frames" checkbox, clicked: the bodies' axes (green y and blue z
// arrows) appear in the view; the same run without the click is the control. Measured on the
// four-bar at 1024x768: about 840 and 820 such pixels ticked, none in the control.
TEST(Gui, TickingBodyFramesInTheRenderingPanelDrawsTheAxes) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  std::string ticked_log, control_log;
  const Image ticked = fourBarScreenshotAfter("click 'body frames'; waitfor 'event: rendering: body frames on'", ticked_log);
  const Image control = fourBarScreenshotAfter("", control_log);
  ASSERT_EQ(ticked.width, 1024) << ticked_log;
  ASSERT_EQ(control.width, 1024) << control_log;
  EXPECT_EQ(control_log.find("event: rendering: "), std::string::npos) << control_log;
  // Renderer::drawFrame's y and z axis colours; the x axes run along the links, inside them.
  const std::vector<std::array<double, 3>> axes = {{0.2, 0.85, 0.25}, {0.25, 0.45, 1.0}};
  const std::vector<long> with = colourCounts(ticked, axes), without = colourCounts(control, axes);
  const char* names[] = {"green y", "blue z"};
  for (std::size_t k = 0; k < axes.size(); ++k) {
    std::printf("%s axis pixels: %ld ticked, %ld control\n", names[k], with[k], without[k]);
    EXPECT_GT(with[k], without[k] + 300) << names[k] << " axes not drawn after the click\n" << ticked_log;
  }
}

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

namespace {

// Screenshots (Ctrl+P, the panels hidden with Tab) of the paused four-bar just before and just
// after ticking the Rendering checkbox `label`, in one run, after the actions `setup`; the images
// are read and their files removed. Empty images when the run or a screenshot failed (the log
// says why).
std::pair<Image, Image> fourBarScreenshotsAroundTicking(const std::string& label, std::string& log,
                                                        const std::string& setup = "") {
  const Output out = guiClicking(scenePath("four_bar.yaml") + " --paused",
                                 setup + "\nxdotool key Tab; xdotool key ctrl+p; waitfor 'event: screenshot '\n"
                                 "xdotool key Tab; click '" + label + "'; waitfor 'event: rendering: " + label + " on'\n"
                                 "xdotool key Tab; xdotool key ctrl+p; waitfor 'event: screenshot ' 2");
  log = out.text;
  std::vector<Image> shots;
  for (auto at = out.text.find("event: screenshot "); at != std::string::npos; at = out.text.find("event: screenshot ", at + 1)) {
    const fs::path png = out.text.substr(at + 18, out.text.find('\n', at) - at - 18);
    shots.push_back(readPng(png));
    fs::remove(png);
  }
  if (out.exit_code != 0 || shots.size() != 2) return {};
  return {shots[0], shots[1]};
}

}  // namespace

// The Rendering section's "centres of mass" checkbox, clicked: a yellow ball at each body's
// centre of mass appears in the view. The control is a screenshot of the same run (and view)
// just before the click.
TEST(Gui, TickingCentresOfMassInTheRenderingPanelDrawsThem) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  std::string ticked_log;
  const auto [control, ticked] = fourBarScreenshotsAroundTicking("centres of mass", ticked_log);
  ASSERT_EQ(control.width, 1024) << ticked_log;
  ASSERT_EQ(ticked.width, 1024) << ticked_log;
  // drawOverlays' centre-of-mass colour. Measured on the four-bar at 1024x768: 1638 such pixels
  // ticked, none before.
  const std::vector<long> with = colourCounts(ticked, {{1.0, 0.85, 0.1}}), without = colourCounts(control, {{1.0, 0.85, 0.1}});
  std::printf("[ measured ] yellow centre-of-mass pixels: %ld ticked, %ld control\n", with[0], without[0]);
  EXPECT_GT(with[0], without[0] + 500) << "no centres of mass drawn after the click\n" << ticked_log;
}

// The Rendering section's "wireframe" checkbox, clicked: the links are drawn as their triangles'
// edges, so far fewer pixels show the links' colours than before the click, in the same run and
// view, yet some still do (the mechanism is drawn, as lines). Measured on the four-bar at
// 1024x768: 22056 such pixels solid, 6034 in wireframe.
TEST(Gui, TickingWireframeInTheRenderingPanelDrawsTheEdgesOnly) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  std::string log;
  const auto [solid, wireframe] = fourBarScreenshotsAroundTicking("wireframe", log);
  ASSERT_EQ(solid.width, 1024) << log;
  ASSERT_EQ(wireframe.width, 1024) << log;
  const std::vector<std::array<double, 3>> colours = visualColours("four_bar.yaml");
  ASSERT_FALSE(colours.empty());
  long before = 0, after = 0;
  for (const long n : colourCounts(solid, colours)) before += n;
  for (const long n : colourCounts(wireframe, colours)) after += n;
  std::printf("[ measured ] pixels in the links' colours: %ld solid, %ld wireframe\n", before, after);
  EXPECT_LT(after, before / 2) << "still drawn solid after the click\n" << log;
  EXPECT_GT(after, 0) << "the mechanism is not drawn at all\n" << log;
}

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
  text.replace(at, line.size(), "\n" + solverLine(solver, keys) + "\n");
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

// The Rendering section's "transparent" checkbox, clicked: the links are blended over the ground,
// in the same run and view as just before the click. Nearly every pixel in a link's colour before
// changes, and lies between the link's solid colour and the ground beside it on its row (the
// nearest changed pixels' unchanged neighbours left and right, under 40 px apart): the median
// opacity along that segment is that of a translucent solid, neither 1 (unchanged) nor 0 (not
// drawn). Measured on the four-bar at 1024x768: all 22056 link-coloured pixels changed; median
// opacity 0.58, two faces of 0.35 each (1 - 0.65^2).
TEST(Gui, TickingTransparentInTheRenderingPanelBlendsTheLinksOverTheGround) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  std::string log;
  const auto [solid, clear] = fourBarScreenshotsAroundTicking("transparent", log);
  ASSERT_EQ(solid.width, 1024) << log;
  ASSERT_EQ(clear.width, 1024) << log;
  const std::vector<std::array<double, 3>> colours = visualColours("four_bar.yaml");
  const auto changed = [&](int x, int y) { return solid.at(x, y) != clear.at(x, y); };
  long links = 0, changed_links = 0;
  std::vector<double> opacities;
  for (int y = 0; y < solid.height; ++y) {
    for (int x = 0; x < solid.width; ++x) {
      if (!hasModelColour(solid.at(x, y), colours)) continue;
      ++links;
      if (!changed(x, y)) continue;
      ++changed_links;
      int left = x, right = x;
      while (left >= 0 && changed(left, y)) --left;
      while (right < solid.width && changed(right, y)) ++right;
      if (left < 0 || right >= solid.width || right - left > 40) continue;
      const auto s = solid.at(x, y), t = clear.at(x, y), l = solid.at(left, y), r = solid.at(right, y);
      double along = 0.0, length = 0.0;  // (after - ground) projected on (solid - ground)
      for (std::size_t k = 0; k < 3; ++k) {
        const double ground = 0.5 * (l[k] + r[k]);
        along += (t[k] - ground) * (s[k] - ground);
        length += (s[k] - ground) * (s[k] - ground);
      }
      if (length > 900.0) opacities.push_back(along / length);  // the link stands out from the ground there
    }
  }
  ASSERT_GT(links, 5000) << "the links are not in view\n" << log;
  ASSERT_GT(opacities.size(), 1000u) << changed_links << " of " << links << " link pixels changed\n" << log;
  std::nth_element(opacities.begin(), opacities.begin() + static_cast<std::ptrdiff_t>(opacities.size() / 2), opacities.end());
  const double median = opacities[opacities.size() / 2];
  std::printf("[ measured ] %ld of %ld link-coloured pixels changed; median opacity %.3f over %zu of them\n", changed_links, links,
              median, opacities.size());
  EXPECT_GT(changed_links, links * 9 / 10) << log;
  EXPECT_GT(median, 0.3) << "the links are hardly drawn after the click\n" << log;
  EXPECT_LT(median, 0.8) << "the links are still opaque after the click\n" << log;
}

// The Rendering section's "constraints + closure error" checkbox, clicked on the four-bar paused
// after running a little (Space, 0.3 s, Space): the loop's two frames (green y and blue z axes) and
// the magenta closure-error line (its length grows with the log of the error: 2 cm at 1e-6 m) appear,
// against a screenshot of the same run just before the click. Measured at 1024x768, paused at
// t = 0.42 s: 202 green, 147 blue and 32 magenta pixels ticked, none before.
TEST(Gui, TickingConstraintsInTheRenderingPanelDrawsTheLoopFramesAndItsClosureError) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  std::string log;
  const auto [control, ticked] = fourBarScreenshotsAroundTicking(
      "constraints + closure error", log, "xdotool key space; waitfor 'event: run from'; sleep 0.3; xdotool key space; waitfor 'event: pause at'");
  ASSERT_EQ(control.width, 1024) << log;
  ASSERT_EQ(ticked.width, 1024) << log;
  // The closure error grows from 0 at t = 0 (1e-6 m by 20 ms, 6e-5 m by 0.5 s): the line needs some.
  const double paused = numberAfter(log, "event: pause at t = ");
  ASSERT_GE(paused, 0.02) << "too short a run for a visible closure error\n" << log;
  // Renderer::drawFrame's y and z axis colours and drawOverlays' closure-error colour.
  const std::vector<std::array<double, 3>> colours = {{0.2, 0.85, 0.25}, {0.25, 0.45, 1.0}, {1.0, 0.35, 0.9}};
  const std::vector<long> with = colourCounts(ticked, colours), without = colourCounts(control, colours);
  std::printf("[ measured ] paused at t = %g s: green %ld, blue %ld, magenta %ld pixels ticked; %ld, %ld, %ld before\n", paused,
              with[0], with[1], with[2], without[0], without[1], without[2]);
  EXPECT_GT(with[0], without[0] + 50) << "no frame's y axis drawn after the click\n" << log;
  EXPECT_GT(with[1], without[1] + 50) << "no frame's z axis drawn after the click\n" << log;
  EXPECT_GT(with[2], without[2] + 5) << "no closure-error line drawn after the click\n" << log;
}

// The Rendering section's "constraint forces (lambda)" checkbox, clicked on the four-bar paused
// after one step under gravity (lambda of the loop is not zero): the pink arrow appears (the
// largest force is drawn 0.4 model lengths long, whatever its size), against a screenshot of the
// same run just before the click. Measured at 1024x768: 3545 pink pixels ticked, none before.
TEST(Gui, TickingConstraintForcesInTheRenderingPanelDrawsTheArrows) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  if (!haveXdotool()) GTEST_SKIP() << "xdotool not found (Debian package xdotool): mouse test skipped";
  std::string log;
  const auto [control, ticked] = fourBarScreenshotsAroundTicking("constraint forces (lambda)", log,
                                                                 "xdotool key Right; waitfor 'event: step to t = 0.001 s'");
  ASSERT_EQ(control.width, 1024) << log;
  ASSERT_EQ(ticked.width, 1024) << log;
  // drawOverlays' arrow colour.
  const std::vector<long> with = colourCounts(ticked, {{0.95, 0.3, 0.6}}), without = colourCounts(control, {{0.95, 0.3, 0.6}});
  std::printf("[ measured ] pink force-arrow pixels: %ld ticked, %ld before\n", with[0], without[0]);
  EXPECT_GT(with[0], without[0] + 500) << "no constraint force drawn after the click\n" << log;
}
