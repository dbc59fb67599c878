// The window minus the opaque panels, as disjoint rectangles (no window needed):
// every pixel is either under a panel or in exactly one rectangle.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "render/screen_regions.hpp"

namespace {

using loopsim::render::PixelRect;

// Each pixel: how many output rectangles hold it, and whether a cover does.
void expectExactComplement(int width, int height, const std::vector<PixelRect>& covers) {
  std::vector<PixelRect> regions;
  loopsim::render::uncoveredRegions(width, height, covers, regions);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      int in_regions = 0;
      for (const PixelRect& r : regions) in_regions += x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1;
      bool covered = false;
      for (const PixelRect& c : covers) covered |= x >= c.x0 && x < c.x1 && y >= c.y0 && y < c.y1;
      ASSERT_EQ(in_regions, covered ? 0 : 1) << "pixel " << x << "," << y << " of " << width << "x" << height;
    }
  }
  for (const PixelRect& r : regions) EXPECT_FALSE(r.empty());
}

TEST(ScreenRegions, NoCoverLeavesTheWholeWindowAsOneRectangle) {
  std::vector<PixelRect> regions;
  loopsim::render::uncoveredRegions(64, 48, {}, regions);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].x1, 64);
  EXPECT_EQ(regions[0].y1, 48);
}

TEST(ScreenRegions, TheGuisTwoSidePanelsLeaveTheMiddleAndTheCornerBelowTheRightOne) {
  // A full-height panel on the left, a shorter one at the top right (OpenGL rows: y up).
  const std::vector<PixelRect> covers = {{8, 8, 40, 92}, {70, 50, 96, 92}};
  expectExactComplement(100, 100, covers);
  std::vector<PixelRect> regions;
  loopsim::render::uncoveredRegions(100, 100, covers, regions);
  EXPECT_LE(regions.size(), 8u);  // few draws
}

TEST(ScreenRegions, OverlappingAndOutsideCoversAreHandled) {
  expectExactComplement(50, 40, {{-5, -5, 20, 30}, {10, 10, 30, 50}, {45, 0, 80, 40}, {12, 12, 12, 20}});
  expectExactComplement(50, 40, {{0, 0, 50, 40}});  // all covered: nothing to draw
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> coordinate(-10, 70);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<PixelRect> covers;
    for (int k = 0; k < 4; ++k) {
      int x0 = coordinate(rng), x1 = coordinate(rng), y0 = coordinate(rng), y1 = coordinate(rng);
      if (x0 > x1) std::swap(x0, x1);
      if (y0 > y1) std::swap(y0, y1);
      covers.push_back({x0, y0, x1, y1});
    }
    expectExactComplement(60, 45, covers);
  }
}

}  // namespace
