#include "render/gl/round_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace loopsim::render {

RoundMesh::RoundMesh(const std::function<MeshData(int segments)>& make, bool length_along_z)
    : length_along_z_(length_along_z) {
  for (std::size_t k = 0; k < kSegments.size(); ++k) levels_[k] = std::make_unique<GpuMesh>(make(kSegments[k]));
}

int RoundMesh::segmentsFor(float pixel_radius) {
  if (!(pixel_radius < 1e6f)) return kSegments.back();  // also NaN: the finest
  return static_cast<int>(std::ceil(std::numbers::pi_v<float> * std::sqrt(2.0f * std::max(pixel_radius, 0.0f))));
}

std::size_t RoundMesh::levelFor(float pixel_radius) {
  const int needed = segmentsFor(pixel_radius);
  for (std::size_t k = 0; k < kSegments.size(); ++k) {
    if (kSegments[k] >= needed) return k;
  }
  return kSegments.size() - 1;
}

float RoundMesh::radiusUnder(const Eigen::Matrix4f& model) const {
  const float across = std::max(model.col(0).head<3>().norm(), model.col(1).head<3>().norm());
  return length_along_z_ ? across : std::max(across, model.col(2).head<3>().norm());
}

}  // namespace loopsim::render
