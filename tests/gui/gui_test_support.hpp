#pragma once
// What the GUI tests share: running `loopsim gui` in a virtual X server
// (xvfb-run, Mesa llvmpipe), under xdotool's keys or clicks, reading its
// screenshots and its "gui: ..." report lines. Small windows and few frames
// keep each test at a few seconds. Each test file keeps the helpers of its own
// feature to itself.
#include <array>
#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "command_output.hpp"
#include <loopsim/record/csv_reader.hpp>

namespace loopsim::test::gui {

using Output = loopsim::test::CommandOutput;

Output shell(const std::string& command);
bool haveXvfb();
bool haveXdotool();

// A shell command in its own virtual X server. The exit code is the command's,
// reported from inside: xvfb-run's own can also say that cleaning up its
// temporary directory failed, which is not the GUI's doing.
Output inXvfb(const std::string& command);
Output runGui(const std::string& arguments);
Output runLoopsim(const std::string& arguments);

std::string scenePath(const std::string& name);
/// A path in the temporary directory, unique to this process, with nothing at it (nor at a record's sidecar).
std::filesystem::path freshPath(const std::string& name);

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  std::array<int, 3> at(int x, int y) const {
    const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
    return {rgb[i], rgb[i + 1], rgb[i + 2]};
  }
};

/// Empty (width 0) when the file cannot be read as a PNG.
Image readPng(const std::filesystem::path& path);

// A pixel shows one of the model's colours when it is that colour under some
// light level (a multiple k of it, k in [0.3, 1.6]) within 6 % of its brightness.
bool hasModelColour(const std::array<int, 3>& p, const std::vector<std::array<double, 3>>& colours);

// The RGB colours of the visuals of a scene in scenes/.
std::vector<std::array<double, 3>> visualColours(const std::string& scene_file);

// Hue (degrees) and saturation of an RGB pixel (HSV).
std::pair<double, double> hueSaturation(const std::array<int, 3>& p);
double hueDistance(double a, double b);

struct Ghost {
  std::string name, role;
  std::array<int, 3> rgb{};
  std::array<int, 4> box{};
  double divergence = 0.0;
};

// "gui: ghost I NAME ROLE rgb R G B alpha A box X0 Y0 X1 Y1 divergence D STATUS" lines of a --frames run.
std::vector<Ghost> ghostsOf(const std::string& text);

// A rectangle in window pixels from the top left: a docked panel (with its contents' natural
// width and the width it has) or a model's box on screen.
struct ScreenRect {
  std::string name;
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  double content = 0, inner = 0;
  bool overlaps(const ScreenRect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// "gui: panel 'NAME' at X0 Y0 X1 Y1, content W of V px wide" lines of a --frames run.
std::vector<ScreenRect> panelsOf(const std::string& text);
// The four numbers after `marker` (e.g. "gui: model on screen: "), named `name`.
ScreenRect rectAfter(const std::string& text, const std::string& marker, const std::string& name);
// No panel clips its contents or overlaps another panel or any of `models`.
void expectPanelsClear(const std::vector<ScreenRect>& panels, const std::vector<ScreenRect>& models, const std::string& text);

/// The number just after `marker` in `text` (NaN when `marker` is not there).
double numberAfter(const std::string& text, const std::string& marker);

/// The q columns of a record's row.
std::vector<double> recordedQ(const loopsim::CsvTable& table, std::size_t row);

// Runs the GUI on `scene` under xdotool pressing `keys` (each held 0.2 s), then Ctrl+Q.
Output guiWithKeys(const std::string& scene, const std::string& keys, const std::string& extra = "");

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
Output guiClicking(const std::string& arguments, const std::string& actions);

}  // namespace loopsim::test::gui
