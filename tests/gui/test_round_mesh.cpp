// Round primitives' levels of detail (no window needed): the level drawn keeps the
// silhouette within a quarter pixel and is the coarsest that does; a capsule's cap
// is a closed-up half sphere facing outward; every unit primitive is wound
// counter-clockwise from outside, as the renderer's back-face culling needs.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "render/gl/mesh.hpp"
#include "render/gl/round_mesh.hpp"

namespace {

using loopsim::render::RoundMesh;

// How far the chords of an n-gon inscribed in a circle of r pixels stray from it.
double sagitta(double r, int n) { return r * (1.0 - std::cos(std::numbers::pi / n)); }

TEST(RoundMesh, TheLevelDrawnIsTheCoarsestWithinAQuarterPixel) {
  const auto& segments = RoundMesh::kSegments;
  EXPECT_EQ(RoundMesh::levelFor(0.0f), 0u);
  EXPECT_EQ(RoundMesh::levelFor(std::numeric_limits<float>::infinity()), segments.size() - 1);
  EXPECT_EQ(RoundMesh::levelFor(std::numeric_limits<float>::quiet_NaN()), segments.size() - 1);
  int levels_seen = 0;
  std::size_t previous = 0;
  for (double r = 0.25; r < 400.0; r *= 1.05) {
    const std::size_t level = RoundMesh::levelFor(static_cast<float>(r));
    EXPECT_GE(level, previous) << "larger on screen never draws coarser (r = " << r << " px)";
    if (level != previous) ++levels_seen;
    previous = level;
    const int n = segments[level];
    if (level + 1 < segments.size()) {
      EXPECT_LE(sagitta(r, n), 0.25) << r << " px, " << n << " segments";
    }
    // The next coarser level would stray beyond a quarter pixel (by the rule's small-angle form).
    if (level > 0) {
      const int m = segments[level - 1];
      EXPECT_GT(r * std::numbers::pi * std::numbers::pi / (2.0 * m * m), 0.25) << r << " px: " << m << " segments would do";
    }
  }
  EXPECT_EQ(levels_seen, static_cast<int>(segments.size()) - 1) << "every level is used somewhere from 0.25 to 400 px";
  // Digit's capsules at 1280x720 (a few to about 20 pixels in radius) take the coarse levels.
  EXPECT_LE(segments[RoundMesh::levelFor(20.0f)], 24);
}

TEST(RoundMesh, AHemisphereIsTheUpperHalfOfTheUnitSphereFacingOutward) {
  const loopsim::render::MeshData mesh = loopsim::render::unitHemisphere(16, 4);
  ASSERT_GT(mesh.vertexCount(), 0u);
  const auto at = [&](std::uint32_t i) {
    return Eigen::Vector3f(mesh.vertices[6 * i], mesh.vertices[6 * i + 1], mesh.vertices[6 * i + 2]);
  };
  for (std::uint32_t i = 0; i < mesh.vertexCount(); ++i) {
    const Eigen::Vector3f p = at(i);
    const Eigen::Vector3f n(mesh.vertices[6 * i + 3], mesh.vertices[6 * i + 4], mesh.vertices[6 * i + 5]);
    EXPECT_NEAR(p.norm(), 1.0f, 1e-6f);
    EXPECT_GE(p.z(), -1e-6f);
    EXPECT_LT((n - p).norm(), 1e-6f) << "the normal of a unit sphere is its position";
  }
  EXPECT_NEAR(mesh.max_corner.z(), 1.0f, 1e-6f);
  EXPECT_NEAR(mesh.min_corner.z(), 0.0f, 1e-6f);
  EXPECT_NEAR(mesh.min_corner.x(), -1.0f, 1e-6f);
  int faces = 0;
  double area = 0.0;
  for (std::size_t k = 0; k < mesh.indices.size(); k += 3) {
    const Eigen::Vector3f a = at(mesh.indices[k]), b = at(mesh.indices[k + 1]), c = at(mesh.indices[k + 2]);
    const Eigen::Vector3f normal = (b - a).cross(c - a);
    if (normal.norm() < 1e-9f) continue;  // the pole's degenerate triangles
    ++faces;
    area += 0.5 * normal.norm();
    EXPECT_GT(normal.dot(a + b + c), 0.0f) << "triangle " << k / 3 << " is wound inward";
  }
  EXPECT_EQ(faces, 2 * 16 * 4 - 16) << "two triangles per quad, one at the pole";
  // Inscribed: a little less than the half sphere's 2 pi.
  EXPECT_LT(area, 2.0 * std::numbers::pi);
  EXPECT_GT(area, 0.9 * 2.0 * std::numbers::pi);
}

// The renderer culls the back faces of meshes marked closed: a triangle wound the
// other way would vanish from the view. Each face's normal from its winding must
// point away from a point inside the solid (and agree with the vertex normals).
TEST(UnitPrimitives, AreMarkedClosedAndWoundCounterClockwiseSeenFromOutside) {
  using loopsim::render::MeshData;
  const std::vector<std::pair<std::string, std::pair<MeshData, Eigen::Vector3f>>> primitives = {
      {"box", {loopsim::render::unitBox(), Eigen::Vector3f::Zero()}},
      {"sphere", {loopsim::render::unitSphere(12, 6), Eigen::Vector3f::Zero()}},
      {"hemisphere", {loopsim::render::unitHemisphere(12, 3), Eigen::Vector3f(0, 0, 0.25f)}},
      {"cylinder", {loopsim::render::unitCylinder(12), Eigen::Vector3f::Zero()}},
      {"cone", {loopsim::render::unitCone(12), Eigen::Vector3f(0, 0, 0.25f)}},
  };
  for (const auto& [name, entry] : primitives) {
    const auto& [mesh, inside] = entry;
    EXPECT_TRUE(mesh.closed) << name;
    const auto at = [&](std::uint32_t i) {
      return Eigen::Vector3f(mesh.vertices[6 * i], mesh.vertices[6 * i + 1], mesh.vertices[6 * i + 2]);
    };
    const auto normal_at = [&](std::uint32_t i) {
      return Eigen::Vector3f(mesh.vertices[6 * i + 3], mesh.vertices[6 * i + 4], mesh.vertices[6 * i + 5]);
    };
    int faces = 0;
    for (std::size_t k = 0; k < mesh.indices.size(); k += 3) {
      const std::uint32_t i = mesh.indices[k], j = mesh.indices[k + 1], l = mesh.indices[k + 2];
      const Eigen::Vector3f face = (at(j) - at(i)).cross(at(l) - at(i));
      if (face.norm() < 1e-5f) continue;  // the poles' degenerate triangles (float round-off: not exactly zero)
      ++faces;
      const Eigen::Vector3f centroid = (at(i) + at(j) + at(l)) / 3.0f;
      EXPECT_GT(face.dot(centroid - inside), 0.0f) << name << " triangle " << k / 3 << " is wound inward";
      EXPECT_GT(face.dot(normal_at(i) + normal_at(j) + normal_at(l)), 0.0f) << name << " triangle " << k / 3;
    }
    EXPECT_GT(faces, 0) << name;
  }
}

}  // namespace
