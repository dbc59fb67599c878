// What a --frames run draws, read back from its screenshot: each robot scene's
// model where the run says it is on screen, the panels' background, and a
// missing mesh's stand-in box, and the contact forces of a robot on the ground.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gui_test_support.hpp"
#include <loopsim/scene/scene_loader.hpp>

namespace fs = std::filesystem;
using namespace loopsim::test::gui;

namespace {

// "gui: model on screen: x0 y0 x1 y1 (...)" from the run's output.
bool screenBox(const std::string& text, std::array<int, 4>& box) {
  const auto at = text.find("gui: model on screen: ");
  if (at == std::string::npos) return false;
  std::istringstream in(text.substr(at + 22));
  return static_cast<bool>(in >> box[0] >> box[1] >> box[2] >> box[3]);
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

// --show contacts on Go1 standing: its four foot contacts carry green normal-force
// arrows (none without the toggle), and the info panel counts them.
TEST(Gui, ContactForcesOnGo1AreGreenArrowsUpFromItsFeet) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const auto greenPixels = [](const Image& image) {
    long green = 0;
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < image.width; ++x) {
        const auto p = image.at(x, y);
        green += (p[1] > 90 && p[1] > 2 * p[0] && p[1] > 2 * p[2]) ? 1 : 0;
      }
    }
    return green;
  };
  long counts[2] = {0, 0};
  for (const bool show : {false, true}) {
    const fs::path png = freshPath(show ? "go1_contacts.png" : "go1_plain.png");
    const Output out = runGui(scenePath("go1_ground.yaml") + " --frames 30 --size 480x360 --msaa 4 --hide-ui" +
                              (show ? " --show contacts" : "") + " --screenshot " + png.string());
    ASSERT_EQ(out.exit_code, 0) << out.text;
    counts[show] = greenPixels(readPng(png));
    fs::remove(png);
  }
  EXPECT_LT(counts[0], 20) << "green without the toggle";
  EXPECT_GT(counts[1], 100) << "no contact force arrows";  // measured: about 190 at 480 x 360
}

// --show cones draws each foot contact's friction cone (translucent orange),
// --show collision-only the collision geometry alone (translucent blue: Go1's
// trunk and thigh boxes and foot spheres) instead of the visuals.
TEST(Gui, FrictionConesAndCollisionGeometryOnGo1) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const auto count = [](const Image& image, auto&& is) {
    long n = 0;
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < image.width; ++x) n += is(image.at(x, y)) ? 1 : 0;
    }
    return n;
  };
  const auto orange = [](const std::array<int, 3>& p) {
    const auto [hue, saturation] = hueSaturation(p);
    return saturation > 0.25 && hueDistance(hue, 33.0) < 15.0;
  };
  const auto blue = [](const std::array<int, 3>& p) {
    const auto [hue, saturation] = hueSaturation(p);
    return saturation > 0.35 && hueDistance(hue, 193.0) < 15.0;
  };
  std::map<std::string, Image> images;
  for (const std::string show : {"", "cones", "collision-only"}) {
    const fs::path png = freshPath("go1_show_" + (show.empty() ? std::string("plain") : show) + ".png");
    const Output out = runGui(scenePath("go1_ground.yaml") + " --frames 30 --size 480x360 --msaa 4 --hide-ui" +
                              (show.empty() ? "" : " --show " + show) + " --screenshot " + png.string());
    ASSERT_EQ(out.exit_code, 0) << out.text;
    images[show] = readPng(png);
    fs::remove(png);
  }
  const long orange_plain = count(images[""], orange), orange_cones = count(images["cones"], orange);
  const long blue_plain = count(images[""], blue), blue_collision = count(images["collision-only"], blue);
  std::printf("[ measured ] orange pixels: %ld plain, %ld with cones; blue: %ld plain, %ld collision only\n",
              orange_plain, orange_cones, blue_plain, blue_collision);
  EXPECT_GT(orange_cones, orange_plain + 300) << "no friction cones";
  EXPECT_GT(blue_collision, blue_plain + 2000) << "no collision geometry";
  // Instead of the visuals: Go1's dark body colour is gone.
  const auto colours = visualColours(scenePath("go1_ground.yaml"));
  const long model_plain = count(images[""], [&](const auto& p) { return hasModelColour(p, colours); });
  const long model_collision = count(images["collision-only"], [&](const auto& p) { return hasModelColour(p, colours); });
  EXPECT_LT(model_collision, model_plain / 2) << "the visuals are still drawn";
}

// Live switching covers the contact solver (--switch-solver T:pgs scripts the
// panel's radio button), and a comparison runs kkt with admm against kkt with
// pgs on Go1 dropping: both land, their divergence small.
TEST(Gui, ContactSolversSwitchLiveAndCompareSideBySide) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const Output switched = runGui(scenePath("go1_drop.yaml") + " --switch-solver 0.1:pgs --frames 12 --size 320x240 --msaa 0 --hide-ui");
  ASSERT_EQ(switched.exit_code, 0) << switched.text;
  EXPECT_NE(switched.text.find("contact solver pgs from t = 0.1"), std::string::npos) << switched.text;
  const Output compared = runGui(scenePath("go1_drop.yaml") +
                                 " --compare kkt+admm,kkt+pgs --frames 40 --size 320x240 --msaa 0 --hide-ui");
  ASSERT_EQ(compared.exit_code, 0) << compared.text;
  EXPECT_NE(compared.text.find("compare: 2 solvers"), std::string::npos) << compared.text;
  EXPECT_NE(compared.text.find("reference kkt+admm"), std::string::npos) << compared.text;
  const std::vector<Ghost> ghosts = ghostsOf(compared.text);
  ASSERT_EQ(ghosts.size(), 2u) << compared.text;
  EXPECT_EQ(ghosts[1].name, "kkt+pgs");
  EXPECT_LT(ghosts[1].divergence, 1e-3) << compared.text;  // the two contact solvers agree to their tolerances
  const Output refused = runGui(scenePath("four_bar.yaml") + " --compare kkt+admm,kkt+pgs --frames 2 --size 160x120 --msaa 0 --hide-ui");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.text.find("neither contacts nor joint limits"), std::string::npos) << refused.text;
}
