#pragma once
// Draws one 3D view: sky, ground grid, lit solids (primitives and meshes),
// arrows and lines. The sky and the ground go straight into the window's buffers
// (their edges are smooth without multisampling: the grid lines are anti-aliased in
// the shader, the ground fades into the horizon); the solids and lines are kept until
// endScene, which draws them there too, or with multisampling into an offscreen target
// cut to their box on screen, resolved and laid over the ground. A software rasteriser
// (Mesa llvmpipe) pays per sample, so this keeps the samples where the edges are.
// Stateless about physics: callers pass world transforms and colours.
#include <array>
#include <memory>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "render/camera.hpp"
#include "render/gl/mesh.hpp"
#include "render/gl/round_mesh.hpp"
#include "render/gl/shader.hpp"
#include "render/screen_regions.hpp"

namespace loopsim::render {

struct SolidStyle {
  bool wireframe = false;
  float alpha_scale = 1.0f;  // multiplies the colour's alpha (transparency toggle, ghosts)
  // How far (pixels) a round solid's silhouette may stray from the true circle (RoundMesh's
  // level): a quarter pixel for the model; markers (arrows, frames, centres of mass) take a
  // pixel, a quarter of the triangles.
  float silhouette_tolerance = 0.25f;
};
inline constexpr SolidStyle kMarkerStyle{false, 1.0f, 1.0f};

class Renderer {
 public:
  /// msaa_samples <= 1 disables multisampling.
  explicit Renderer(int msaa_samples);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  int msaaSamples() const { return samples_; }

  /// Clears the window's depth and draws the sky and the ground into it, except under
  /// `covered`: opaque panels drawn over the view afterwards (their pixels are left as they were).
  void beginScene(int width, int height, const OrbitCamera& camera, std::span<const PixelRect> covered = {});
  /// A solid: `mesh` placed by `model` (world from mesh, may scale), colour rgba.
  void drawSolid(const GpuMesh& mesh, const Eigen::Matrix4f& model, const Eigen::Vector4f& rgba, const SolidStyle& style);
  /// A round solid at the level of detail its size on screen needs (RoundMesh).
  void drawSolid(const RoundMesh& mesh, const Eigen::Matrix4f& model, const Eigen::Vector4f& rgba, const SolidStyle& style);
  /// Pixels spanned by a length `radius` at world point `centre`, in the view of the current scene.
  float pixelRadius(const Eigen::Vector3f& centre, float radius) const;
  /// A shaded arrow from `from` to `to` (shaft radius `radius`).
  void drawArrow(const Eigen::Vector3f& from, const Eigen::Vector3f& to, float radius, const Eigen::Vector4f& rgba);
  /// A coordinate frame (x red, y green, z blue) of the given axis length.
  void drawFrame(const Eigen::Matrix4f& pose, float length);
  /// Line segments (pairs of points), drawn over everything when `on_top`.
  void drawLines(const std::vector<Eigen::Vector3f>& points, const Eigen::Vector4f& rgba, bool on_top);
  /// Draws the solids and lines of the scene into the window's framebuffer (ImGui draws over it next).
  void endScene();

  const GpuMesh& box() const { return *box_; }
  const RoundMesh& sphere() const { return *sphere_; }
  const RoundMesh& hemisphere() const { return *hemisphere_; }
  const RoundMesh& cylinder() const { return *cylinder_; }
  const RoundMesh& cone() const { return *cone_; }

 private:
  // A solid or a run of line points, kept from its draw call until endScene.
  struct Command {
    const GpuMesh* mesh = nullptr;  // null: lines
    Eigen::Matrix4f model;
    Eigen::Vector4f color;
    bool wireframe = false;
    bool on_top = false;
    std::size_t first = 0, count = 0;  // in line_points_
  };

  void resizeTargets(int width, int height);
  void buildComposite(int samples);
  void releaseTargets();
  /// The whole square; or, with multisampling, its inner square and the ring around it whose far
  /// edge the ground shader anti-aliases (ground_edge_shader_).
  enum class GroundPiece { kWhole, kInner, kEdgeRing };
  void drawGround(const ShaderProgram& shader, GroundPiece piece);
  /// The pixels the kept commands can touch (x0 y0 x1 y1, x1 and y1 past the end); false if none.
  bool commandsBox(std::array<int, 4>& box) const;
  void replayCommands();
  /// The kept opaque solids, grouped by mesh, wireframe and winding, one instanced draw per group.
  void drawOpaqueSolidsInstanced();

  int samples_;
  int width_ = 0, height_ = 0;
  int target_width_ = 0, target_height_ = 0;
  unsigned fbo_ = 0, color_texture_ = 0, depth_texture_ = 0;  // multisampled; the colour resolved by composite_shader_
  int composite_samples_ = 0;                                  // the samples composite_shader_ averages
  unsigned line_vao_ = 0, line_vbo_ = 0, empty_vao_ = 0;
  std::unique_ptr<ShaderProgram> solid_shader_, ground_shader_, ground_edge_shader_, ground_depth_shader_, sky_shader_,
      line_shader_, composite_shader_, solid_instanced_shader_;
  std::vector<Command> commands_;
  std::vector<Eigen::Vector3f> line_points_;
  std::vector<PixelRect> visible_regions_;  // beginScene's: the window minus the covered rectangles
  unsigned instance_vbo_ = 0;                // per-instance model, normal matrix and colour
  std::vector<float> instance_data_;         // its contents for one draw (kept: no allocation once grown)
  std::vector<std::size_t> batch_order_;     // the opaque solids' commands, grouped
  std::unique_ptr<GpuMesh> box_;
  std::unique_ptr<RoundMesh> sphere_, hemisphere_, cylinder_, cone_;
  Eigen::Matrix4f view_projection_ = Eigen::Matrix4f::Identity();
  float pixels_per_unit_at_unit_depth_ = 1.0f;  // half the viewport height times the projection's y scale
  Eigen::Vector3f eye_ = Eigen::Vector3f::Zero();
};

/// Rigid transform (and optional per-axis scale) as a 4x4 matrix.
Eigen::Matrix4f transformMatrix(const Eigen::Matrix3f& rotation, const Eigen::Vector3f& translation,
                                const Eigen::Vector3f& scale = Eigen::Vector3f::Ones());

}  // namespace loopsim::render
