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

/// How drawPlot lays out its axes and legends.
struct PlotLayout {
  bool log_x = false;          // a log-10 x axis (x <= 0 is left out)
  bool panel_legends = false;  // each panel's legend under its title, instead of the first panel's at the top
  bool tight_log = false;      // log axes over the data's range with 1-2-5 ticks, instead of whole decades
};

/// Grouped bars: one group per category (a robot), one bar per series (a
/// solver), with optional marks over the bars (the paper's values).
struct BarGroup {
  std::string label;
  std::vector<double> values;  // per series; <= 0 or non-finite: no bar
  std::vector<double> marks;   // per series; <= 0 or non-finite: no mark
};
struct BarChart {
  std::string title, y_label;
  std::vector<std::string> series;  // bar labels, coloured by seriesColour
  std::string mark_label;           // the legend's name of the marks ("paper")
  std::vector<BarGroup> groups;
};

/// Minimum plot size (smaller images cannot hold the axes and labels).
constexpr int kMinPlotWidth = 200, kMinPlotHeight = 150;

/// Draws the panels stacked top to bottom over one x axis, with the legend of
/// the first panel's series at the top. Throws std::invalid_argument on a size
/// below the minimum or above 8192.
RgbImage drawPlot(int width, int height, const std::string& title, const std::string& x_label,
                  const std::vector<PlotPanel>& panels, const PlotLayout& layout = {});

/// Draws grouped bars on a linear axis from 0, the legend at the top and the
/// group labels under their groups. Same size limits as drawPlot.
RgbImage drawBarChart(int width, int height, const BarChart& chart);

/// Categorical colours for up to 10 series (readable on white), as used by the GUI's ghosts too.
std::array<std::uint8_t, 3> seriesColour(int index);

}  // namespace loopsim::render
