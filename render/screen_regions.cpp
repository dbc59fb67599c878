#include "render/screen_regions.hpp"

#include <algorithm>

namespace loopsim::render {

void uncoveredRegions(int width, int height, std::span<const PixelRect> covers, std::vector<PixelRect>& out) {
  out.clear();
  if (width <= 0 || height <= 0) return;
  // Slab edges: the window's and every cover's x edges inside it.
  std::vector<int> xs{0, width};
  for (const PixelRect& c : covers) {
    for (int x : {c.x0, c.x1}) {
      if (x > 0 && x < width) xs.push_back(x);
    }
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::vector<std::pair<int, int>> spans;  // covered y intervals of one slab
  for (std::size_t s = 0; s + 1 < xs.size(); ++s) {
    const int xa = xs[s], xb = xs[s + 1];
    spans.clear();
    for (const PixelRect& c : covers) {
      // A cover spans the whole slab or none of it (its x edges are slab edges).
      if (c.empty() || c.x0 > xa || c.x1 < xb) continue;
      const int ya = std::max(c.y0, 0), yb = std::min(c.y1, height);
      if (ya < yb) spans.emplace_back(ya, yb);
    }
    std::sort(spans.begin(), spans.end());
    int y = 0;  // everything below y is covered or emitted
    for (const auto& [ya, yb] : spans) {
      if (ya > y) out.push_back({xa, y, xb, ya});
      y = std::max(y, yb);
    }
    if (y < height) out.push_back({xa, y, xb, height});
  }
  // Neighbouring slabs with the same rows visible become one rectangle (fewer draws).
  std::vector<PixelRect> merged;
  for (const PixelRect& r : out) {
    auto same_rows = std::find_if(merged.begin(), merged.end(), [&](const PixelRect& m) {
      return m.x1 == r.x0 && m.y0 == r.y0 && m.y1 == r.y1;
    });
    if (same_rows != merged.end()) {
      same_rows->x1 = r.x1;
    } else {
      merged.push_back(r);
    }
  }
  out.swap(merged);
}

}  // namespace loopsim::render
