#pragma once
// A round primitive (sphere, hemisphere, cylinder, cone) at several levels of detail.
// A software rasteriser (Mesa llvmpipe under Xvfb) pays for every triangle, and a
// capsule 15 pixels across looks the same with 100 triangles as with 400: each
// draw takes the coarsest level whose silhouette stays within a quarter pixel.
#include <array>
#include <functional>
#include <memory>

#include "render/gl/mesh.hpp"

namespace loopsim::render {

class RoundMesh {
 public:
  /// Segments around the circle of each level, coarse to fine.
  static constexpr std::array<int, 7> kSegments{6, 8, 12, 16, 24, 32, 48};

  /// `make(segments)` builds one level; `length_along_z`: z scales a length (cylinder), not a radius.
  RoundMesh(const std::function<MeshData(int segments)>& make, bool length_along_z);

  /// Segments needed for a circle of `pixel_radius` pixels: a chord of n segments strays
  /// r (1 - cos(pi / n)) ~ r pi^2 / (2 n^2) from the circle, at most 1/4 pixel for n >= pi sqrt(2 r).
  static int segmentsFor(float pixel_radius);
  /// The level drawn at that size: the coarsest with at least segmentsFor(r) segments, else the finest.
  static std::size_t levelFor(float pixel_radius);
  const GpuMesh& forPixelRadius(float pixel_radius) const { return *levels_[levelFor(pixel_radius)]; }
  const GpuMesh& finest() const { return *levels_.back(); }
  /// The radius (world units) of the round cross-section of this mesh placed by `model`.
  float radiusUnder(const Eigen::Matrix4f& model) const;

 private:
  std::array<std::unique_ptr<GpuMesh>, kSegments.size()> levels_;
  bool length_along_z_;
};

}  // namespace loopsim::render
