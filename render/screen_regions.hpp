#pragma once
// The parts of the window that opaque panels leave visible, as disjoint
// rectangles: the 3D view is drawn only there (a software rasteriser pays for
// every pixel it shades, and the panels cover about a third of a 1280x720 window).
#include <span>
#include <vector>

namespace loopsim::render {

/// [x0, x1) x [y0, y1) in window pixels, origin at the bottom left (OpenGL's).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x1 <= x0 || y1 <= y0; }
};

/// Writes into `out` disjoint rectangles whose union is the width x height window
/// minus the union of `covers` (which may overlap, or reach outside the window).
/// Vertical slabs between the covers' x edges, each split where covers span it.
void uncoveredRegions(int width, int height, std::span<const PixelRect> covers, std::vector<PixelRect>& out);

}  // namespace loopsim::render
