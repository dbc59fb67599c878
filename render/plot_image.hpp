#pragma once
// Line plots drawn in software into an RGB image (no OpenGL, no display), for
// headless reports such as `loopsim compare`: stacked panels sharing the x
// axis, each with its own linear or log-10 y axis, tick labels, one coloured
// polyline per series and a legend. Text uses Dear ImGui's built-in bitmap
// font (ProggyClean, 13 px), rasterised on the CPU by ImGui's font atlas.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "render/screenshot.hpp"

namespace loopsim::render {

struct PlotSeries {
  std::string label;
  std::array<std::uint8_t, 3> rgb{0, 0, 0};
  std::vector<double> x, y;  // non-finite y (and, on a log axis, y <= 0) break the line
};

struct PlotPanel {
  std::string title;  // drawn above the panel (says the quantity and unit)
  bool log_y = false;
  std::vector<PlotSeries> series;
  std::optional<double> reference_line;  // a dashed horizontal line (e.g. a threshold)
};

/// Minimum plot size (smaller images cannot hold the axes and labels).
constexpr int kMinPlotWidth = 200, kMinPlotHeight = 150;

/// Draws the panels stacked top to bottom over one x axis, with the legend of
/// the first panel's series at the top. Throws std::invalid_argument on a size
/// below the minimum or above 8192.
RgbImage drawPlot(int width, int height, const std::string& title, const std::string& x_label,
                  const std::vector<PlotPanel>& panels);

/// Categorical colours for up to 8 series (readable on white), as used by the GUI's ghosts too.
std::array<std::uint8_t, 3> seriesColour(int index);

}  // namespace loopsim::render
