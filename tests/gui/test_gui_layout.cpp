// The docked layout at 1280x720: the panels never overlap each other nor the
// model's box on screen, nor clip their text (the camera frames the area they leave free); an
// agreeing comparison shows its solid reference through the ghosts' outlines;
// a divergence is said in a message docked at the top.
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

struct Rect {
  std::string name;
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  double content = 0, inner = 0;  // a panel's contents' natural width and the width it has
  bool overlaps(const Rect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// "gui: panel 'NAME' at X0 Y0 X1 Y1, content W of V px wide" lines.
std::vector<Rect> panelsOf(const std::string& text) {
  std::vector<Rect> panels;
  const std::string marker = "gui: panel '";
  for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    const std::size_t name_end = text.find("' at ", at);
    Rect r;
    r.name = text.substr(at + marker.size(), name_end - at - marker.size());
    std::string rest = text.substr(name_end + 5, text.find('\n', name_end) - name_end - 5);
    std::replace(rest.begin(), rest.end(), ',', ' ');
    std::string word;
    std::istringstream(rest) >> r.x0 >> r.y0 >> r.x1 >> r.y1 >> word >> r.content >> word >> r.inner;
    panels.push_back(r);
  }
  return panels;
}

Rect rectAfter(const std::string& text, const std::string& marker, const std::string& name) {
  Rect r{name};
  const std::size_t at = text.find(marker);
  if (at != std::string::npos) std::istringstream(text.substr(at + marker.size())) >> r.x0 >> r.y0 >> r.x1 >> r.y1;
  return r;
}

void expectDisjoint(const std::vector<Rect>& panels, const std::vector<Rect>& models, const std::string& text) {
  for (std::size_t i = 0; i < panels.size(); ++i) {
    // Nothing in a panel runs off its edge (wrapped, shortened, or on a line of its own).
    EXPECT_GT(panels[i].inner, 0.0) << panels[i].name << "\n" << text;
    EXPECT_LE(panels[i].content, panels[i].inner + 1.0) << panels[i].name << " is clipped\n" << text;
    for (std::size_t j = 0; j < i; ++j) EXPECT_FALSE(panels[i].overlaps(panels[j])) << panels[i].name << " / " << panels[j].name << "\n" << text;
    for (const Rect& m : models) {
      EXPECT_GT(m.x1, m.x0) << m.name << "\n" << text;
      EXPECT_FALSE(panels[i].overlaps(m)) << panels[i].name << " covers " << m.name << "\n" << text;
    }
  }
}

}  // namespace

TEST(Gui, DockedPanelsNeverCoverTheModelAt720p) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  // Digit with its start warning, a three-solver comparison and the status line: every panel there is.
  const Output compared = runGui(scenePath("digit_standing.yaml") + " --compare kkt,ltl,lcaba --frames 20 --size 1280x720 --msaa 0");
  ASSERT_EQ(compared.exit_code, 0) << compared.text;
  const std::vector<Rect> panels = panelsOf(compared.text);
  std::vector<std::string> names;
  for (const Rect& p : panels) names.push_back(p.name);
  for (const char* expected : {"loopsim", "Info", "status line", "Warning", "Comparison"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected << "\n" << compared.text;
  }
  std::vector<Rect> models{rectAfter(compared.text, "gui: model on screen: ", "the model")};
  for (const Ghost& g : ghostsOf(compared.text)) models.push_back({g.name, double(g.box[0]), double(g.box[1]), double(g.box[2]), double(g.box[3])});
  ASSERT_EQ(models.size(), 4u) << compared.text;
  expectDisjoint(panels, models, compared.text);

  // The four-bar alone, with its panels; and a window resized smaller: framed again in what is free.
  for (const char* size : {"1280x720", "1024x600"}) {
    const Output live = runGui(scenePath("four_bar.yaml") + " --frames 10 --msaa 0 --size " + size);
    ASSERT_EQ(live.exit_code, 0) << live.text;
    expectDisjoint(panelsOf(live.text), {rectAfter(live.text, "gui: model on screen: ", "the model")}, live.text);
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

TEST(Gui, ADivergenceIsSaidInADockedMessageClearOfTheModel) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  // The four-bar with a PD far too stiff for its dt: the loop opens at the second step.
  const fs::path scene = freshPath("unstable_layout.yaml");
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
  const Output out = runGui(scene.string() + " --frames 6 --size 1280x720 --msaa 0");
  EXPECT_EQ(out.exit_code, 3) << out.text;
  // The message is docked at the top, as wide as the free area: its reason wraps there.
  const std::vector<Rect> panels = panelsOf(out.text);
  bool message = false;
  for (const Rect& p : panels) message = message || p.name == "Diverged";
  EXPECT_TRUE(message) << out.text;
  expectDisjoint(panels, {rectAfter(out.text, "gui: model on screen: ", "the model")}, out.text);
  fs::remove(scene);
}
