// The Rendering section's checkboxes clicked: screenshots just before and
// after the click (or of a run without it) show what each one draws.
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
