#pragma once
// Triangle meshes: CPU-side data (positions and normals, indexed), the unit
// primitives the model's visuals scale, and their GPU buffers.
#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace loopsim::render {

struct MeshData {
  std::vector<float> vertices;  // interleaved px py pz nx ny nz
  std::vector<std::uint32_t> indices;
  // Wound counter-clockwise seen from outside, its inside never seen: the renderer
  // culls its back faces (the unit primitives; not meshes from files, whose winding
  // is the author's). A software rasteriser otherwise pays for every hidden face.
  bool closed = false;
  Eigen::Vector3f min_corner = Eigen::Vector3f::Zero(), max_corner = Eigen::Vector3f::Zero();  // bounds

  void addVertex(const Eigen::Vector3f& p, const Eigen::Vector3f& n);
  std::uint32_t vertexCount() const { return static_cast<std::uint32_t>(vertices.size() / 6); }
  void computeBounds();
};

// Unit primitives, centred at the origin: box of side 1; sphere of radius 1;
// hemisphere of radius 1 on the z >= 0 side (a capsule's cap);
// cylinder of radius 1 and length 1 along z; cone of radius 1 from z = 0 to 1.
MeshData unitBox();
MeshData unitSphere(int slices = 20, int stacks = 10);
MeshData unitHemisphere(int slices, int stacks);
MeshData unitCylinder(int slices = 32);
MeshData unitCone(int slices = 24);

class GpuMesh {
 public:
  explicit GpuMesh(const MeshData& data);
  ~GpuMesh();
  GpuMesh(const GpuMesh&) = delete;
  GpuMesh& operator=(const GpuMesh&) = delete;

  void draw() const;
  /// `count` placements in one draw: `instance_buffer` holds per instance the model matrix
  /// (16 floats, column-major), its normal matrix (9) and the colour (4): attribute locations
  /// 2-5, 6-8 and 9 of the instanced solid shader.
  void drawInstanced(unsigned instance_buffer, int count) const;
  static constexpr int kInstanceFloats = 29;
  const Eigen::Vector3f& minCorner() const { return min_corner_; }
  const Eigen::Vector3f& maxCorner() const { return max_corner_; }
  int triangleCount() const { return index_count_ / 3; }
  bool closed() const { return closed_; }

 private:
  unsigned vao_ = 0, vbo_ = 0, ebo_ = 0;
  int index_count_ = 0;
  bool closed_ = false;
  Eigen::Vector3f min_corner_, max_corner_;
};

}  // namespace loopsim::render
