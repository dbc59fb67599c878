#include "paper_plots.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "render/plot_image.hpp"

namespace loopsim::app {

namespace {

// The bitmap font has Latin-1 only: the plots spell μ as "mu".
std::string ascii(std::string s) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"μ", "mu"}, {"²", "^2"}, {"⁻¹", "^-1"},
                                 {"ᵀ", "^T"}, {"–", "-"}, {"·", "*"}, {"‖", "|"}, {"≤", "<="}, {"v̇", "vdot"}}) {
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  }
  return s;
}

render::RgbImage tablePlot(const PaperExperiment& e) {
  render::BarChart chart;
  chart.title = ascii(e.title);
  chart.y_label = ascii(e.unit);
  chart.mark_label = "paper";
  // The reference column is 1 by definition: left out of the bars.
  for (const auto& column : orderedColumns(e, e.cells)) {
    if (column != e.reference_column) chart.series.push_back(column);
  }
  for (const auto& name : orderedCases(e.cells)) {
    render::BarGroup group;
    group.label = name;
    for (const auto& column : chart.series) {
      const auto it = std::find_if(e.cells.begin(), e.cells.end(),
                                   [&](const PaperCell& c) { return c.case_name == name && c.column == column; });
      group.values.push_back(it != e.cells.end() ? it->ratio : 0.0);
      group.marks.push_back(it != e.cells.end() ? it->paper : 0.0);
    }
    chart.groups.push_back(std::move(group));
  }
  const int width = std::clamp(160 * static_cast<int>(chart.groups.size()), 720, 1600);
  return render::drawBarChart(width, 480, chart);
}

// One panel of a family's curves: `value` of each column against x.
render::PlotPanel familyPanel(const PaperExperiment& e, const std::string& family, const std::string& title,
                              double (*value)(const PaperCell&), bool with_fits) {
  render::PlotPanel panel;
  panel.title = title;
  panel.log_y = true;
  int colour = 0;
  for (const auto& column : orderedColumns(e, e.cells)) {
    render::PlotSeries series;
    series.rgb = render::seriesColour(colour++);
    std::vector<std::pair<double, double>> points;
    for (const PaperCell& c : e.cells) {
      if (c.case_name == family && c.column == column) points.emplace_back(c.x, value(c));
    }
    if (points.empty()) continue;
    std::sort(points.begin(), points.end());
    for (const auto& [x, y] : points) series.x.push_back(x), series.y.push_back(y);
    series.label = column;
    for (const PaperFit& f : e.fits) {
      if (!with_fits || f.family != family || f.column != column) continue;
      series.label += fmt::format(" p {:.2f}", f.exponent);
      if (f.paper > 0.0) series.label += fmt::format(" (paper {:.1f})", f.paper);
    }
    panel.series.push_back(std::move(series));
  }
  return panel;
}

render::RgbImage curvesPlot(const PaperExperiment& e) {
  std::vector<render::PlotPanel> panels;
  for (const auto& family : orderedCases(e.cells)) {
    if (e.kind == PaperExperiment::Kind::MuSweep) {
      // Fig. 10's measure (iterations) and Fig. 11's (the error of v̇), one above the other.
      panels.push_back(familyPanel(e, family, family + ": median iterations to 1e-10",
                                   [](const PaperCell& c) { return c.iterations; }, false));
      panels.push_back(familyPanel(e, family, family + ": median relative error of vdot against the reference",
                                   [](const PaperCell& c) { return c.error; }, false));
    } else {
      panels.push_back(familyPanel(e, family, family + ": time (us), fitted exponent p",
                                   [](const PaperCell& c) { return c.median_us; }, true));
    }
  }
  const int height = std::clamp(260 * static_cast<int>(panels.size()) + 80, 360, 2400);
  render::PlotLayout layout;
  layout.log_x = true;
  layout.panel_legends = true;
  layout.tight_log = true;
  return render::drawPlot(900, height, ascii(e.title), ascii(e.x_label), panels, layout);
}

}  // namespace

render::RgbImage plotPaperExperiment(const PaperExperiment& experiment) {
  return experiment.kind == PaperExperiment::Kind::Table ? tablePlot(experiment) : curvesPlot(experiment);
}

}  // namespace loopsim::app
