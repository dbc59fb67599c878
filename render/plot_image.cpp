#include "render/plot_image.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>

namespace loopsim::render {

namespace {

using Rgb = std::array<std::uint8_t, 3>;

// Dear ImGui's default font rasterised once on the CPU (no context, no GL).
class BitmapFont {
 public:
  BitmapFont() {
    font_ = atlas_.AddFontDefault();
    atlas_.GetTexDataAsAlpha8(&pixels_, &width_, &height_);
  }
  const ImFont& font() const { return *font_; }
  float alphaAt(float u, float v) const {
    const int x = std::clamp(static_cast<int>(u * static_cast<float>(width_)), 0, width_ - 1);
    const int y = std::clamp(static_cast<int>(v * static_cast<float>(height_)), 0, height_ - 1);
    return static_cast<float>(pixels_[static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x)]) / 255.0f;
  }
  int atlasWidth() const { return width_; }
  int atlasHeight() const { return height_; }

 private:
  ImFontAtlas atlas_;
  ImFont* font_ = nullptr;
  unsigned char* pixels_ = nullptr;
  int width_ = 0, height_ = 0;
};

const BitmapFont& bitmapFont() {
  static const BitmapFont font;
  return font;
}

class Canvas {
 public:
  Canvas(int width, int height) : image_{width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height * 3, 255)} {}
  RgbImage take() { return std::move(image_); }
  int width() const { return image_.width; }
  int height() const { return image_.height; }

  void blend(int x, int y, const Rgb& c, float alpha) {
    if (x < 0 || y < 0 || x >= image_.width || y >= image_.height || alpha <= 0.0f) return;
    alpha = std::min(alpha, 1.0f);
    std::uint8_t* p = image_.pixels.data() + (static_cast<std::size_t>(y) * image_.width + x) * 3;
    for (int k = 0; k < 3; ++k) {
      p[k] = static_cast<std::uint8_t>(std::lround(p[k] * (1.0f - alpha) + c[static_cast<std::size_t>(k)] * alpha));
    }
  }
  void fillRect(int x0, int y0, int x1, int y1, const Rgb& c) {
    for (int y = std::max(0, y0); y < std::min(y1, image_.height); ++y) {
      for (int x = std::max(0, x0); x < std::min(x1, image_.width); ++x) blend(x, y, c, 1.0f);
    }
  }
  void hline(int x0, int x1, int y, const Rgb& c, int dash = 0) {
    for (int x = x0; x <= x1; ++x) {
      if (dash == 0 || ((x - x0) / dash) % 2 == 0) blend(x, y, c, 1.0f);
    }
  }
  void vline(int x, int y0, int y1, const Rgb& c) {
    for (int y = y0; y <= y1; ++y) blend(x, y, c, 1.0f);
  }
  void rectOutline(int x0, int y0, int x1, int y1, const Rgb& c) {
    hline(x0, x1, y0, c);
    hline(x0, x1, y1, c);
    vline(x0, y0, y1, c);
    vline(x1, y0, y1, c);
  }
  // An anti-aliased line about 1.6 px wide: coverage from the distance of each
  // pixel centre of the segment's bounding box to the segment.
  void line(double xa, double ya, double xb, double yb, const Rgb& c, int clip_x0, int clip_y0, int clip_x1, int clip_y1) {
    const double half_width = 0.8;
    const int x0 = std::max(clip_x0, static_cast<int>(std::floor(std::min(xa, xb) - 2)));
    const int x1 = std::min(clip_x1, static_cast<int>(std::ceil(std::max(xa, xb) + 2)));
    const int y0 = std::max(clip_y0, static_cast<int>(std::floor(std::min(ya, yb) - 2)));
    const int y1 = std::min(clip_y1, static_cast<int>(std::ceil(std::max(ya, yb) + 2)));
    const double dx = xb - xa, dy = yb - ya, length2 = dx * dx + dy * dy;
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        const double px = x + 0.5 - xa, py = y + 0.5 - ya;
        const double t = length2 > 0.0 ? std::clamp((px * dx + py * dy) / length2, 0.0, 1.0) : 0.0;
        const double ex = px - t * dx, ey = py - t * dy;
        const double distance = std::sqrt(ex * ex + ey * ey);
        const double coverage = std::clamp(half_width + 0.5 - distance, 0.0, 1.0);
        if (coverage > 0.0) blendMax(x, y, c, static_cast<float>(coverage));
      }
    }
  }
  // Text with its top-left corner at (x, y); returns the width in pixels.
  int text(int x, int y, const std::string& s, const Rgb& c) {
    const BitmapFont& bf = bitmapFont();
    const ImFont& font = bf.font();
    float pen = static_cast<float>(x);
    for (unsigned char ch : s) {
      const ImFontGlyph* g = font.FindGlyph(static_cast<ImWchar>(ch));
      if (g == nullptr) continue;
      if (g->Visible) {
        const int gx0 = static_cast<int>(std::lround(pen + g->X0)), gy0 = static_cast<int>(std::lround(y + g->Y0));
        const int gw = static_cast<int>(std::lround(g->X1 - g->X0)), gh = static_cast<int>(std::lround(g->Y1 - g->Y0));
        for (int j = 0; j < gh; ++j) {
          for (int i = 0; i < gw; ++i) {
            const float u = g->U0 + (g->U1 - g->U0) * (static_cast<float>(i) + 0.5f) / static_cast<float>(gw);
            const float v = g->V0 + (g->V1 - g->V0) * (static_cast<float>(j) + 0.5f) / static_cast<float>(gh);
            blend(gx0 + i, gy0 + j, c, bf.alphaAt(u, v));
          }
        }
      }
      pen += g->AdvanceX;
    }
    return static_cast<int>(std::lround(pen)) - x;
  }
  static int textWidth(const std::string& s) {
    const ImFont& font = bitmapFont().font();
    float w = 0.0f;
    for (unsigned char ch : s) {
      if (const ImFontGlyph* g = font.FindGlyph(static_cast<ImWchar>(ch))) w += g->AdvanceX;
    }
    return static_cast<int>(std::lround(w));
  }
  static int lineHeight() { return static_cast<int>(std::lround(bitmapFont().font().FontSize)); }

 private:
  // Where two segments of one polyline overlap, keep the stronger coverage
  // instead of blending twice (joints would show as dark dots).
  void blendMax(int x, int y, const Rgb& c, float alpha) {
    if (x < 0 || y < 0 || x >= image_.width || y >= image_.height) return;
    std::uint8_t* p = image_.pixels.data() + (static_cast<std::size_t>(y) * image_.width + x) * 3;
    for (int k = 0; k < 3; ++k) {
      const float target = p[k] * (1.0f - alpha) + c[static_cast<std::size_t>(k)] * alpha;
      const float current = p[k];
      // Move towards the colour only (never back towards the background).
      const float ck = c[static_cast<std::size_t>(k)];
      const bool closer = std::abs(target - ck) < std::abs(current - ck);
      if (closer) p[k] = static_cast<std::uint8_t>(std::lround(target));
    }
  }
  RgbImage image_;
};

std::string tickLabel(double value, bool log) {
  char text[32];
  if (log) {
    std::snprintf(text, sizeof text, "1e%d", static_cast<int>(std::lround(std::log10(value))));
  } else {
    std::snprintf(text, sizeof text, "%g", std::abs(value) < 1e-12 ? 0.0 : value);
  }
  return text;
}

// "Nice" linear ticks (1, 2, 5 × 10^k) covering [lo, hi].
std::vector<double> linearTicks(double lo, double hi, int max_ticks) {
  std::vector<double> ticks;
  const double span = hi - lo;
  if (!(span > 0.0)) return {lo};
  const double raw = span / std::max(1, max_ticks);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9 * span; t += step) ticks.push_back(t);
  return ticks;
}

// Ticks of a log axis over [lo, hi]: at 1, 2 and 5 x 10^k when that gives at
// most max_ticks, else at every decade (every 2nd, 3rd ... when too many).
std::vector<double> tightLogTicks(double lo, double hi, int max_ticks) {
  std::vector<double> ticks, decades;
  for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10.0) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m * decade >= lo * (1 - 1e-12) && m * decade <= hi * (1 + 1e-12)) ticks.push_back(m * decade);
    }
    if (decade >= lo * (1 - 1e-12)) decades.push_back(decade);
  }
  if (static_cast<int>(ticks.size()) <= max_ticks) return ticks;
  const std::size_t stride = (decades.size() + static_cast<std::size_t>(std::max(1, max_ticks)) - 1) /
                             static_cast<std::size_t>(std::max(1, max_ticks));
  std::vector<double> kept;
  for (std::size_t i = 0; i < decades.size(); i += std::max<std::size_t>(1, stride)) kept.push_back(decades[i]);
  return kept;
}

std::string tightLogLabel(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

const Rgb kBlack{0, 0, 0}, kGrey{120, 120, 120}, kGrid{225, 225, 225}, kFrame{60, 60, 60};

}  // namespace

std::array<std::uint8_t, 3> seriesColour(int index) {
  // Tableau 10 (distinct hues, readable on white).
  static const std::array<Rgb, 10> colours = {{{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40},
                                               {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {23, 190, 207},
                                               {188, 189, 34}, {127, 127, 127}}};
  return colours[static_cast<std::size_t>(((index % 10) + 10) % 10)];
}

namespace {

void checkPlotSize(int width, int height) {
  if (width < kMinPlotWidth || height < kMinPlotHeight || width > 8192 || height > 8192) {
    throw std::invalid_argument("plot size " + std::to_string(width) + "x" + std::to_string(height) + ": width from " +
                                std::to_string(kMinPlotWidth) + " and height from " + std::to_string(kMinPlotHeight) +
                                " to 8192 pixels");
  }
}

// Legend entries (a swatch and a label each) from (x, y), wrapped at `right`;
// returns the y under the last line.
int drawLegend(Canvas& canvas, int x0, int y, int right, const std::vector<std::pair<std::string, Rgb>>& entries) {
  const int line_height = Canvas::lineHeight();
  int x = x0;
  for (const auto& [label, rgb] : entries) {
    const int entry = 22 + Canvas::textWidth(label) + 14;
    if (x + entry > right && x > x0) {
      x = x0;
      y += line_height + 2;
    }
    canvas.fillRect(x, y + line_height / 2 - 1, x + 18, y + line_height / 2 + 2, rgb);
    canvas.text(x + 22, y, label, kBlack);
    x += entry;
  }
  return y + line_height + 2;
}

std::vector<std::pair<std::string, Rgb>> legendOf(const PlotPanel& panel) {
  std::vector<std::pair<std::string, Rgb>> entries;
  for (const PlotSeries& s : panel.series) entries.emplace_back(s.label, s.rgb);
  return entries;
}

}  // namespace

RgbImage drawPlot(int width, int height, const std::string& title, const std::string& x_label,
                  const std::vector<PlotPanel>& panels, const PlotLayout& layout) {
  checkPlotSize(width, height);
  Canvas canvas(width, height);
  const int line_height = Canvas::lineHeight();
  const int margin = 8;

  // Title, then the legend (first panel's series) on as many lines as needed.
  int y = margin;
  canvas.text(margin, y, title, kBlack);
  y += line_height + 4;
  if (!panels.empty() && !layout.panel_legends) y = drawLegend(canvas, margin, y, width - margin, legendOf(panels.front())) + 4;

  // Shared x range.
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo;
  for (const PlotPanel& panel : panels) {
    for (const PlotSeries& s : panel.series) {
      for (double xv : s.x) {
        if (!std::isfinite(xv) || (layout.log_x && xv <= 0.0)) continue;
        x_lo = std::min(x_lo, xv);
        x_hi = std::max(x_hi, xv);
      }
    }
  }
  std::vector<double> x_ticks;
  if (layout.log_x && layout.tight_log) {
    if (!std::isfinite(x_lo)) x_lo = 1.0, x_hi = 10.0;
    x_lo /= 1.1;
    x_hi *= 1.1;
  } else if (layout.log_x) {
    if (!std::isfinite(x_lo)) x_lo = 1.0, x_hi = 10.0;
    x_lo = std::pow(10.0, std::floor(std::log10(x_lo)));
    x_hi = std::pow(10.0, std::ceil(std::log10(x_hi)));
    if (x_hi <= x_lo) x_hi = 10.0 * x_lo;
    for (double t = x_lo; t <= x_hi * 1.0001; t *= 10.0) x_ticks.push_back(t);
  } else {
    if (!std::isfinite(x_lo)) x_lo = 0.0, x_hi = 1.0;
    if (x_hi <= x_lo) x_hi = x_lo + 1.0;
    if (x_lo > 0.0 && x_lo < 0.05 * (x_hi - x_lo)) x_lo = 0.0;  // series sampled from the first step on: axis from 0
  }

  const int left = margin + Canvas::textWidth("-1e-10") + 8;
  const int right = width - margin - 4;
  const int bottom_reserved = 2 * line_height + 8;  // x tick labels and the x label
  const int n = std::max<int>(1, static_cast<int>(panels.size()));
  const int panel_space = (height - y - bottom_reserved) / n;
  auto to_px = [&](double xv) {
    const double f = layout.log_x ? std::log10(xv / x_lo) / std::log10(x_hi / x_lo) : (xv - x_lo) / (x_hi - x_lo);
    return left + f * (right - left);
  };
  if (!layout.log_x) x_ticks = linearTicks(x_lo, x_hi, std::max(2, (right - left) / 80));
  if (layout.log_x && layout.tight_log) x_ticks = tightLogTicks(x_lo, x_hi, std::max(2, (right - left) / 50));

  for (int p = 0; p < static_cast<int>(panels.size()); ++p) {
    const PlotPanel& panel = panels[static_cast<std::size_t>(p)];
    const int top_text = y + p * panel_space;
    canvas.text(left, top_text, panel.title, kBlack);
    int top = top_text + line_height + 3;
    if (layout.panel_legends) top = drawLegend(canvas, left, top, right, legendOf(panel)) + 2;
    const int bottom = y + (p + 1) * panel_space - 6;
    if (bottom - top < 20) continue;

    // y range over finite (log: positive) values.
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const PlotSeries& s : panel.series) {
      for (double v : s.y) {
        if (!std::isfinite(v) || (panel.log_y && v <= 0.0)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    if (panel.reference_line && (!panel.log_y || *panel.reference_line > 0.0)) {
      lo = std::min(lo, *panel.reference_line);
      hi = std::max(hi, *panel.reference_line);
    }
    std::vector<double> ticks;
    if (panel.log_y && layout.tight_log) {
      if (!std::isfinite(lo)) lo = 1.0, hi = 10.0;
      lo /= 1.15;
      hi *= 1.15;
      ticks = tightLogTicks(lo, hi, std::max(2, (bottom - top) / (line_height + 4)));
    } else if (panel.log_y) {
      if (!std::isfinite(lo)) lo = 1e-16, hi = 1e-15;
      lo = std::pow(10.0, std::floor(std::log10(lo)));
      hi = std::pow(10.0, std::ceil(std::log10(hi)));
      if (hi <= lo) hi = lo * 10.0;
      const int decades = static_cast<int>(std::lround(std::log10(hi / lo)));
      const int stride = std::max(1, decades / std::max(1, (bottom - top) / (line_height + 4)));
      for (int d = 0; d <= decades; d += stride) ticks.push_back(lo * std::pow(10.0, d));
    } else {
      if (!std::isfinite(lo)) lo = 0.0, hi = 1.0;
      lo = std::min(lo, 0.0);  // times and the like: from zero
      if (hi <= lo) hi = lo + 1.0;
      hi += 0.05 * (hi - lo);
      ticks = linearTicks(lo, hi, std::max(2, (bottom - top) / (2 * line_height)));
    }
    auto to_py = [&](double v) {
      const double f = panel.log_y ? std::log10(v / lo) / std::log10(hi / lo) : (v - lo) / (hi - lo);
      return bottom - f * (bottom - top);
    };

    for (double t : x_ticks) canvas.vline(static_cast<int>(std::lround(to_px(t))), top + 1, bottom - 1, kGrid);
    for (double t : ticks) {
      const int py = static_cast<int>(std::lround(to_py(t)));
      canvas.hline(left + 1, right - 1, py, kGrid);
      const std::string label =
          panel.log_y && layout.tight_log ? tightLogLabel(t) : tickLabel(t, panel.log_y);
      canvas.text(left - 4 - Canvas::textWidth(label), py - line_height / 2, label, kGrey);
    }
    if (panel.reference_line) {
      const int py = static_cast<int>(std::lround(to_py(*panel.reference_line)));
      canvas.hline(left + 1, right - 1, py, kGrey, 4);
    }
    for (const PlotSeries& s : panel.series) {
      bool have_previous = false;
      double px_prev = 0.0, py_prev = 0.0;
      for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k) {
        const double v = s.y[k];
        if (!std::isfinite(v) || !std::isfinite(s.x[k]) || (panel.log_y && v <= 0.0) || (layout.log_x && s.x[k] <= 0.0)) {
          have_previous = false;
          continue;
        }
        const double px = to_px(s.x[k]), py = to_py(std::clamp(v, lo, hi));
        if (have_previous) canvas.line(px_prev, py_prev, px, py, s.rgb, left + 1, top + 1, right - 1, bottom - 1);
        else canvas.line(px, py, px, py, s.rgb, left + 1, top + 1, right - 1, bottom - 1);
        px_prev = px;
        py_prev = py;
        have_previous = true;
      }
    }
    canvas.rectOutline(left, top, right, bottom, kFrame);
    if (p + 1 == static_cast<int>(panels.size())) {
      for (double t : x_ticks) {
        const std::string label =
            layout.log_x && layout.tight_log ? tightLogLabel(t) : tickLabel(t, layout.log_x);
        const int px = static_cast<int>(std::lround(to_px(t)));
        canvas.vline(px, bottom, bottom + 3, kFrame);
        canvas.text(px - Canvas::textWidth(label) / 2, bottom + 5, label, kGrey);
      }
      canvas.text((left + right - Canvas::textWidth(x_label)) / 2, bottom + 5 + line_height + 2, x_label, kBlack);
    }
  }
  return canvas.take();
}

RgbImage drawBarChart(int width, int height, const BarChart& chart) {
  checkPlotSize(width, height);
  Canvas canvas(width, height);
  const int line_height = Canvas::lineHeight();
  const int margin = 8;
  int y = margin;
  canvas.text(margin, y, chart.title, kBlack);
  y += line_height + 4;
  std::vector<std::pair<std::string, Rgb>> entries;
  for (std::size_t i = 0; i < chart.series.size(); ++i) entries.emplace_back(chart.series[i], seriesColour(static_cast<int>(i)));
  if (!chart.mark_label.empty()) entries.emplace_back(chart.mark_label, kBlack);
  y = drawLegend(canvas, margin, y, width - margin, entries) + 4;
  canvas.text(margin, y, chart.y_label, kGrey);
  y += line_height + 4;

  double hi = 0.0;
  for (const BarGroup& g : chart.groups) {
    for (double v : g.values) {
      if (std::isfinite(v)) hi = std::max(hi, v);
    }
    for (double v : g.marks) {
      if (std::isfinite(v)) hi = std::max(hi, v);
    }
  }
  if (!(hi > 0.0)) hi = 1.0;
  hi *= 1.05;
  const int left = margin + Canvas::textWidth("1000.0") + 8;
  const int right = width - margin - 4;
  const int top = y;
  const int bottom = height - margin - 2 * line_height - 6;  // room for two lines of group labels
  if (bottom - top < 20) return canvas.take();
  const std::vector<double> ticks = linearTicks(0.0, hi, std::max(2, (bottom - top) / (2 * line_height)));
  auto to_py = [&](double v) { return static_cast<int>(std::lround(bottom - v / hi * (bottom - top))); };
  for (double t : ticks) {
    const int py = to_py(t);
    canvas.hline(left + 1, right - 1, py, kGrid);
    const std::string label = tickLabel(t, false);
    canvas.text(left - 4 - Canvas::textWidth(label), py - line_height / 2, label, kGrey);
  }
  const int groups = std::max<int>(1, static_cast<int>(chart.groups.size()));
  const double group_width = static_cast<double>(right - left) / groups;
  const int bars = std::max<int>(1, static_cast<int>(chart.series.size()));
  const double bar_width = 0.8 * group_width / bars;
  for (int g = 0; g < static_cast<int>(chart.groups.size()); ++g) {
    const BarGroup& group = chart.groups[static_cast<std::size_t>(g)];
    const double x0 = left + g * group_width + 0.1 * group_width;
    for (int b = 0; b < bars; ++b) {
      const int bx0 = static_cast<int>(std::lround(x0 + b * bar_width));
      const int bx1 = static_cast<int>(std::lround(x0 + (b + 1) * bar_width)) - 1;
      const auto at = [&](const std::vector<double>& v) {
        return b < static_cast<int>(v.size()) ? v[static_cast<std::size_t>(b)] : 0.0;
      };
      const double value = at(group.values), mark = at(group.marks);
      if (std::isfinite(value) && value > 0.0) canvas.fillRect(bx0, to_py(value), bx1 + 1, bottom, seriesColour(b));
      if (std::isfinite(mark) && mark > 0.0) {
        const int py = to_py(std::min(mark, hi));
        canvas.fillRect(bx0 - 1, py - 1, bx1 + 2, py + 2, kBlack);
      }
    }
    // The group's label under it, on two lines when it is wider than the group.
    const int centre = static_cast<int>(std::lround(left + (g + 0.5) * group_width));
    std::string first = group.label, second;
    if (Canvas::textWidth(first) > group_width - 4) {
      const auto space = first.find(' ');
      if (space != std::string::npos) second = first.substr(space + 1), first = first.substr(0, space);
    }
    canvas.text(centre - Canvas::textWidth(first) / 2, bottom + 4, first, kBlack);
    if (!second.empty()) canvas.text(centre - Canvas::textWidth(second) / 2, bottom + 4 + line_height, second, kBlack);
  }
  canvas.rectOutline(left, top, right, bottom, kFrame);
  return canvas.take();
}

}  // namespace loopsim::render
