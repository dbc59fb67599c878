#pragma once
// Draws a Model's visual geometry at body poses supplied by the caller (the
// render side never holds q). One ModelView per model; several simulations of
// the same model can share it and draw as ghosts (alpha, tint).
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <loopsim/model/model.hpp>
#include "render/camera.hpp"
#include "render/mesh_files.hpp"
#include "render/renderer.hpp"

namespace loopsim::render {

struct ModelStyle {
  bool wireframe = false;
  float alpha_scale = 1.0f;
  bool use_tint = false;               // ghosts: every part in `tint`
  Eigen::Vector4f tint = Eigen::Vector4f::Ones();
  int highlighted_body = -1;           // drawn in a warning colour (divergence, selection)
};

class ModelView {
 public:
  /// Prepares every visual (meshes loaded through `meshes`). A mesh that cannot
  /// be drawn becomes a box sized from its body's inertia, with one warning.
  ModelView(const Model& model, Renderer& renderer, MeshCache& meshes);

  /// body_poses[i]: world pose of body i (index 0 = world).
  void draw(Renderer& renderer, std::span<const Eigen::Matrix4f> body_poses, const ModelStyle& style) const;
  /// World bounding box of all parts; false when the model has none.
  bool bounds(std::span<const Eigen::Matrix4f> body_poses, Eigen::Vector3f& min_corner, Eigen::Vector3f& max_corner) const;
  /// Body hit first by the ray, or -1.
  int pick(const Ray& ray, std::span<const Eigen::Matrix4f> body_poses) const;

  const std::vector<std::string>& warnings() const { return warnings_; }
  std::size_t partCount() const { return parts_.size(); }

 private:
  struct Part {
    int body = 0;
    const GpuMesh* mesh = nullptr;     // bounds and picking (a round part's finest level)
    const RoundMesh* round = nullptr;  // drawn at the level of detail of its size on screen
    Eigen::Matrix4f local;  // body from mesh (scaled)
    Eigen::Vector4f rgba;
  };
  void addPrimitive(int body, const GpuMesh& mesh, const Eigen::Matrix4f& local, const Eigen::Vector4f& rgba);
  void addPrimitive(int body, const RoundMesh& mesh, const Eigen::Matrix4f& local, const Eigen::Vector4f& rgba);

  std::vector<Part> parts_;
  std::vector<std::string> warnings_;
};

/// A body pose (SE3) as a float 4x4 matrix.
Eigen::Matrix4f poseMatrix(const SE3& pose);

}  // namespace loopsim::render
