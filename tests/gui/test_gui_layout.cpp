// The docked layout at 1280x720: the panels never overlap each other nor the
// model's box on screen, nor clip their text (the camera frames the area they leave free); an
// agreeing comparison shows its solid reference through the ghosts' outlines.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gui_test_support.hpp"

namespace fs = std::filesystem;
using namespace loopsim::test::gui;

namespace {


}  // namespace

TEST(Gui, DockedPanelsNeverCoverTheModelAt720p) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  // Digit with its start warning, a three-solver comparison and the status line: every panel there is.
  const Output compared = runGui(scenePath("digit_standing.yaml") + " --compare kkt,ltl,lcaba --frames 20 --size 1280x720 --msaa 0");
  ASSERT_EQ(compared.exit_code, 0) << compared.text;
  const std::vector<ScreenRect> panels = panelsOf(compared.text);
  std::vector<std::string> names;
  for (const ScreenRect& p : panels) names.push_back(p.name);
  for (const char* expected : {"loopsim", "Info", "status line", "Warning", "Comparison"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected << "\n" << compared.text;
  }
  std::vector<ScreenRect> models{rectAfter(compared.text, "gui: model on screen: ", "the model")};
  for (const Ghost& g : ghostsOf(compared.text)) models.push_back({g.name, double(g.box[0]), double(g.box[1]), double(g.box[2]), double(g.box[3])});
  ASSERT_EQ(models.size(), 4u) << compared.text;
  expectPanelsClear(panels, models, compared.text);

  // The four-bar alone, with its panels; and a window resized smaller: framed again in what is free.
  for (const char* size : {"1280x720", "1024x600"}) {
    const Output live = runGui(scenePath("four_bar.yaml") + " --frames 10 --msaa 0 --size " + size);
    ASSERT_EQ(live.exit_code, 0) << live.text;
    expectPanelsClear(panelsOf(live.text), {rectAfter(live.text, "gui: model on screen: ", "the model")}, live.text);
  }
}

TEST(Gui, AnAgreeingOverlayShowsTheSolidReferenceThroughTheOutlines) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  // kkt and ltl agree to 1e-12 on the four-bar: one mechanism on screen. The reference's blue
  // must show; translucent ghosts over it (the other style) tint it away.
  const double reference_hue = hueSaturation({31, 119, 180}).first;
  const auto bluePixels = [reference_hue](const std::string& ghosts, Output& out) {
    const fs::path png = freshPath("overlay_" + ghosts + ".png");
    out = runGui(scenePath("four_bar.yaml") + " --compare kkt,ltl,prox-ltl --compare-ghosts " + ghosts +
                 " --frames 10 --size 640x400 --msaa 0 --hide-ui --screenshot " + png.string());
    const Image image = readPng(png);
    long blue = 0;
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < image.width; ++x) {
        // The reference's (31, 119, 180) under any light: its hue, saturated; the sky and ground are greyer.
        const auto [hue, saturation] = hueSaturation(image.at(x, y));
        if (saturation > 0.6 && hueDistance(hue, reference_hue) < 12.0) ++blue;
      }
    }
    return blue;
  };
  Output outlined, translucent;
  const long blue_outlined = bluePixels("outlines", outlined);
  const long blue_translucent = bluePixels("translucent", translucent);
  ASSERT_EQ(outlined.exit_code, 0) << outlined.text;
  ASSERT_EQ(translucent.exit_code, 0) << translucent.text;
  for (const Ghost& g : ghostsOf(outlined.text)) EXPECT_LT(g.divergence, 1e-9) << g.name;
  std::printf("  reference-blue pixels: %ld with outlined ghosts, %ld with translucent ones\n", blue_outlined, blue_translucent);
  EXPECT_GT(blue_outlined, 200) << outlined.text;
  EXPECT_GT(blue_outlined, 2 * blue_translucent);
}
