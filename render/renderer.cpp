#include "render/renderer.hpp"

#include <GL/gl.h>
#include <GL/glext.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

namespace loopsim::render {

namespace {

// INSTANCED: model, normal matrix and colour per instance (GpuMesh::drawInstanced's layout), one
// draw for many placements of one mesh; else uniforms, one draw per placement.
constexpr const char* kSolidVertex = R"(
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
#ifdef INSTANCED
layout(location = 2) in mat4 model;
layout(location = 6) in mat3 normal_matrix;
layout(location = 9) in vec4 instance_color;
out vec4 solid_color;
#else
uniform mat4 model;
uniform mat3 normal_matrix;  // inverse transpose of model's 3x3 part, computed once per draw on the CPU
#endif
uniform mat4 view_projection;
out vec3 world_position;
out vec3 world_normal;
void main() {
  vec4 p = model * vec4(position, 1.0);
  world_position = p.xyz;
  world_normal = normal_matrix * normal;
  gl_Position = view_projection * p;
#ifdef INSTANCED
  solid_color = instance_color;
#endif
})";

// Directional key light plus a weaker fill from the opposite side and ambient.
constexpr const char* kSolidFragment = R"(
in vec3 world_position;
in vec3 world_normal;
#ifdef INSTANCED
in vec4 solid_color;
#define color solid_color
#else
uniform vec4 color;
#endif
uniform vec3 eye;
uniform float unlit;
out vec4 frag_color;
void main() {
  vec3 n = normalize(world_normal);
  vec3 v = normalize(eye - world_position);
  if (dot(n, v) < 0.0) n = -n;
  vec3 key = normalize(vec3(0.35, 0.25, 0.9));
  vec3 fill = normalize(vec3(-0.5, -0.6, 0.3));
  float diffuse = 0.75 * max(dot(n, key), 0.0) + 0.25 * max(dot(n, fill), 0.0);
  // pow(c, 40) by squaring: a software rasteriser's pow is an exp2 of a log2, both polynomials.
  float c = max(dot(n, normalize(key + v)), 0.0);
  float c2 = c * c, c4 = c2 * c2, c8 = c4 * c4, c32 = c8 * c8 * c8 * c8;
  float specular = 0.18 * c32 * c8;
  vec3 lit = color.rgb * (0.32 + diffuse) + vec3(specular);
  frag_color = vec4(mix(lit, color.rgb, unlit), color.a);
})";

// The ground's pieces by gl_VertexID (see GroundPiece): the square out to `extent`; the square out to
// kInner·extent; the ring from there out to 1.2·extent, four trapezoids of two triangles. Inner square
// and ring share their edges' corners exactly (±kInner, sign flips only), so no pixel falls between.
constexpr const char* kGroundVertex = R"(#version 330 core
uniform mat4 view_projection;
uniform float extent;
out vec3 world_position;
const float kInner = 0.75;
const float kOuter = 1.2;
vec2 squareCorner(int i) {
  return vec2((i == 1 || i == 2 || i == 4) ? 1.0 : -1.0, (i == 2 || i == 4 || i == 5) ? 1.0 : -1.0);
}
void main() {
  vec2 p;
  if (gl_VertexID < 6) {
    p = squareCorner(gl_VertexID);
  } else if (gl_VertexID < 12) {
    p = kInner * squareCorner(gl_VertexID - 6);
  } else {
    // The trapezoid along y < 0 (inner left, inner right, outer right; inner left, outer right, outer
    // left), turned by a quarter turn per side.
    int side = (gl_VertexID - 12) / 6;
    int corner = (gl_VertexID - 12) - 6 * side;
    float s = (corner == 1 || corner == 2 || corner == 4) ? 1.0 : -1.0;
    float r = (corner == 0 || corner == 1 || corner == 3) ? kInner : kOuter;
    p = vec2(s * r, -r);
    for (int k = 0; k < side; ++k) p = vec2(-p.y, p.x);
  }
  world_position = vec3(extent * p, 0.0);
  gl_Position = view_projection * vec4(world_position, 1.0);
})";

// Checker of 1 m tiles with anti-aliased 0.1 m and 1 m grid lines, fading into the horizon colour.
// The ground covers most of the screen, so every fragment counts under a software rasteriser:
// one fwidth (the 0.1 m grid's is ten times the 1 m one's), and the fade squared without a sqrt.
// With EDGE_AA (multisampling asked for) its far edge at `extent` is anti-aliased here, blended over
// a pixel into the sky's colour at that pixel (the sky shader's gradient), since the ground is drawn
// without multisampling. Only the outer ring is drawn with it: on the whole ground it costs a
// software rasteriser too much per frame (docs/performance.md). Without multisampling the edge stays hard as every other.
// The text follows a "#version" line and, for the ring, "#define EDGE_AA".
constexpr const char* kGroundFragment = R"(
in vec3 world_position;
uniform vec3 eye;
uniform vec3 horizon;
uniform float extent;
uniform float inverse_height;  // 1 / viewport height in pixels
out vec4 frag_color;
// 1 on a line of the grid of unit spacing in q (width in pixels = 1 / pixels_per_line), 0 off it.
float gridLine(vec2 q, vec2 pixels_per_line) {
  vec2 g = abs(fract(q - 0.5) - 0.5) * pixels_per_line;
  return 1.0 - min(min(g.x, g.y), 1.0);
}
void main() {
  vec2 p = world_position.xy;
  vec2 per_metre = 1.0 / fwidth(p);  // pixels per metre along x and y
  float checker = mod(floor(p.x) + floor(p.y), 2.0);
  vec3 base = mix(vec3(0.20, 0.25, 0.33), vec3(0.23, 0.29, 0.38), checker);
  base = mix(base, vec3(0.36, 0.43, 0.54), 0.5 * gridLine(10.0 * p, 0.1 * per_metre));
  base = mix(base, vec3(0.50, 0.58, 0.70), gridLine(p, per_metre / 1.5));
  vec3 d = world_position - eye;
  float fade2 = min(dot(d, d) / 1600.0, 1.0);  // clamp(|d| / 40 m, 0, 1) squared
  vec3 ground = mix(base, horizon, fade2);
#ifdef EDGE_AA
  // Pixels inside the edge of the square max(|x|, |y|) = extent, at the coarser axis' pixel size.
  float r = max(abs(p.x), abs(p.y));
  float coverage = clamp(0.5 + (extent - r) * min(per_metre.x, per_metre.y), 0.0, 1.0);
  vec3 sky = mix(horizon, vec3(0.09, 0.12, 0.19), clamp(gl_FragCoord.y * inverse_height, 0.0, 1.0));
  ground = mix(sky, ground, coverage);
#endif
  frag_color = vec4(ground, 1.0);
})";

constexpr const char* kSkyVertex = R"(#version 330 core
out float height;
void main() {
  vec2 p = vec2((gl_VertexID == 1) ? 3.0 : -1.0, (gl_VertexID == 2) ? 3.0 : -1.0);
  height = 0.5 * p.y + 0.5;
  gl_Position = vec4(p, 0.99999, 1.0);  // behind the ground's far edge at every camera distance
})";

constexpr const char* kSkyFragment = R"(#version 330 core
in float height;
uniform vec3 horizon;
out vec4 frag_color;
void main() { frag_color = vec4(mix(horizon, vec3(0.09, 0.12, 0.19), clamp(height, 0.0, 1.0)), 1.0); })";

// The ground's depth alone: the offscreen multisampled pass hides what is below the ground.
constexpr const char* kGroundDepthFragment = R"(#version 330 core
void main() {})";

// The multisampled solids resolved here, their samples' mean premultiplied by coverage, over the window
// (blended ONE, ONE_MINUS_SRC_ALPHA; a full-screen triangle cut to their box by the scissor). One pass
// instead of a resolve blit and a composite: under llvmpipe that is one pass over the box fewer and
// one wait for the rasteriser less. The text follows a "#version" line and "#define SAMPLES n".
// The sampler stays on texture unit 0.
constexpr const char* kCompositeFragment = R"(
uniform sampler2DMS solids;
out vec4 frag_color;
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec4 sum = vec4(0.0);
  for (int i = 0; i < SAMPLES; ++i) sum += texelFetch(solids, p, i);
  frag_color = sum * (1.0 / float(SAMPLES));
})";

constexpr const char* kLineVertex = R"(#version 330 core
layout(location = 0) in vec3 position;
uniform mat4 view_projection;
void main() { gl_Position = view_projection * vec4(position, 1.0); })";

constexpr const char* kLineFragment = R"(#version 330 core
uniform vec4 color;
out vec4 frag_color;
void main() { frag_color = color; })";

const Eigen::Vector3f kHorizon(0.33f, 0.38f, 0.46f);

}  // namespace

Eigen::Matrix4f transformMatrix(const Eigen::Matrix3f& rotation, const Eigen::Vector3f& translation,
                                const Eigen::Vector3f& scale) {
  Eigen::Matrix4f m = Eigen::Matrix4f::Identity();
  m.topLeftCorner<3, 3>() = rotation * scale.asDiagonal();
  m.topRightCorner<3, 1>() = translation;
  return m;
}

Renderer::Renderer(int msaa_samples) : samples_(std::max(1, msaa_samples)) {
  // Colour and depth are multisample textures (the colour is read by the composite pass).
  GLint max_colour = 1, max_depth = 1;
  glGetIntegerv(GL_MAX_COLOR_TEXTURE_SAMPLES, &max_colour);
  glGetIntegerv(GL_MAX_DEPTH_TEXTURE_SAMPLES, &max_depth);
  samples_ = std::min({samples_, std::max(1, static_cast<int>(max_colour)), std::max(1, static_cast<int>(max_depth))});
  const std::string solid_vertex = std::string("#version 330 core\n") + kSolidVertex;
  const std::string solid_fragment = std::string("#version 330 core\n") + kSolidFragment;
  solid_shader_ = std::make_unique<ShaderProgram>("solid", solid_vertex.c_str(), solid_fragment.c_str());
  const std::string instanced_vertex = std::string("#version 330 core\n#define INSTANCED\n") + kSolidVertex;
  const std::string instanced_fragment = std::string("#version 330 core\n#define INSTANCED\n") + kSolidFragment;
  solid_instanced_shader_ =
      std::make_unique<ShaderProgram>("solid instanced", instanced_vertex.c_str(), instanced_fragment.c_str());
  glGenBuffers(1, &instance_vbo_);
  const std::string ground = std::string("#version 330 core\n") + kGroundFragment;
  const std::string ground_edge = std::string("#version 330 core\n#define EDGE_AA\n") + kGroundFragment;
  ground_shader_ = std::make_unique<ShaderProgram>("ground", kGroundVertex, ground.c_str());
  ground_edge_shader_ = std::make_unique<ShaderProgram>("ground edge", kGroundVertex, ground_edge.c_str());
  ground_depth_shader_ = std::make_unique<ShaderProgram>("ground depth", kGroundVertex, kGroundDepthFragment);
  sky_shader_ = std::make_unique<ShaderProgram>("sky", kSkyVertex, kSkyFragment);
  buildComposite(samples_);
  line_shader_ = std::make_unique<ShaderProgram>("line", kLineVertex, kLineFragment);
  box_ = std::make_unique<GpuMesh>(unitBox());
  sphere_ = std::make_unique<RoundMesh>([](int n) { return unitSphere(n, n / 2); }, false);
  hemisphere_ = std::make_unique<RoundMesh>([](int n) { return unitHemisphere(n, std::max(2, n / 4)); }, false);
  cylinder_ = std::make_unique<RoundMesh>([](int n) { return unitCylinder(n); }, true);
  cone_ = std::make_unique<RoundMesh>([](int n) { return unitCone(n); }, true);
  glGenVertexArrays(1, &empty_vao_);
  glGenVertexArrays(1, &line_vao_);
  glGenBuffers(1, &line_vbo_);
  glBindVertexArray(line_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, line_vbo_);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);
  glEnableVertexAttribArray(0);
  glBindVertexArray(0);
}

void Renderer::buildComposite(int samples) {
  const std::string composite = "#version 330 core\n#define SAMPLES " + std::to_string(samples) + "\n" + kCompositeFragment;
  composite_shader_ = std::make_unique<ShaderProgram>("composite", kSkyVertex, composite.c_str());
  composite_samples_ = samples;
}

Renderer::~Renderer() {
  releaseTargets();
  glDeleteBuffers(1, &line_vbo_);
  glDeleteBuffers(1, &instance_vbo_);
  glDeleteVertexArrays(1, &line_vao_);
  glDeleteVertexArrays(1, &empty_vao_);
}

void Renderer::releaseTargets() {
  if (fbo_ != 0) glDeleteFramebuffers(1, &fbo_);
  if (color_texture_ != 0) glDeleteTextures(1, &color_texture_);
  if (depth_texture_ != 0) glDeleteTextures(1, &depth_texture_);
  fbo_ = color_texture_ = depth_texture_ = 0;
}

void Renderer::resizeTargets(int width, int height) {
  if (width == target_width_ && height == target_height_ && fbo_ != 0) return;
  releaseTargets();
  target_width_ = width;
  target_height_ = height;
  const auto refused = [&] {
    return std::runtime_error("the OpenGL driver refuses a " + std::to_string(width) + "x" + std::to_string(height) +
                              " framebuffer with " + std::to_string(samples_) + " samples");
  };
  glGenFramebuffers(1, &fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  // Both with the same request, so a driver that rounds the sample count up rounds both alike.
  const auto attach = [&](unsigned& texture, GLenum format, GLenum attachment) {
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, texture);
    glTexImage2DMultisample(GL_TEXTURE_2D_MULTISAMPLE, samples_, format, width, height, GL_TRUE);
    glFramebufferTexture2D(GL_FRAMEBUFFER, attachment, GL_TEXTURE_2D_MULTISAMPLE, texture, 0);
  };
  attach(color_texture_, GL_RGBA8, GL_COLOR_ATTACHMENT0);
  attach(depth_texture_, GL_DEPTH_COMPONENT24, GL_DEPTH_ATTACHMENT);
  // The composite averages every sample the driver allocated (at least the request).
  GLint allocated = samples_;
  glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, color_texture_);
  glGetTexLevelParameteriv(GL_TEXTURE_2D_MULTISAMPLE, 0, GL_TEXTURE_SAMPLES, &allocated);
  glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, 0);
  if (allocated > 0 && allocated != composite_samples_) buildComposite(allocated);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) throw refused();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void Renderer::drawGround(const ShaderProgram& shader, GroundPiece piece) {
  // Slightly behind its true depth so that geometry resting on z = 0 wins.
  glBindVertexArray(empty_vao_);
  glEnable(GL_POLYGON_OFFSET_FILL);
  glPolygonOffset(1.0f, 1.0f);
  shader.use();
  shader.set("view_projection", view_projection_);
  shader.set("extent", 60.0f);
  if (&shader != ground_depth_shader_.get()) {  // a uniform a program lacks is ignored (location -1)
    shader.set("eye", eye_);
    shader.set("horizon", kHorizon);
    shader.set("inverse_height", 1.0f / static_cast<float>(height_));
  }
  // The pieces' vertex ranges in kGroundVertex.
  switch (piece) {
    case GroundPiece::kWhole: glDrawArrays(GL_TRIANGLES, 0, 6); break;
    case GroundPiece::kInner: glDrawArrays(GL_TRIANGLES, 6, 6); break;
    case GroundPiece::kEdgeRing: glDrawArrays(GL_TRIANGLES, 12, 24); break;
  }
  glDisable(GL_POLYGON_OFFSET_FILL);
  glBindVertexArray(0);
}

void Renderer::beginScene(int width, int height, const OrbitCamera& camera, std::span<const PixelRect> covered) {
  width_ = std::max(1, width);
  height_ = std::max(1, height);
  commands_.clear();
  line_points_.clear();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(0, 0, width_, height_);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_TRUE);
  // Depth only: the ground and the sky behind it write every pixel's colour.
  glClear(GL_DEPTH_BUFFER_BIT);
  // Blending only where something is translucent: in a software rasteriser every blended
  // pixel reads the framebuffer back.
  glDisable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);

  const Eigen::Matrix4f projection = camera.projection(static_cast<float>(width_) / static_cast<float>(height_));
  view_projection_ = projection * camera.view();
  pixels_per_unit_at_unit_depth_ = 0.5f * static_cast<float>(height_) * projection(1, 1);
  eye_ = camera.eye();

  // The ground first, then the sky behind everything, shaded only where the ground left the
  // cleared depth; neither under the opaque panels (a region's scissor each). The panels
  // hide the depth left there too: nothing drawn later shows through them.
  uncoveredRegions(width_, height_, covered, visible_regions_);  // the whole window when nothing is covered
  glEnable(GL_SCISSOR_TEST);
  const auto scissor = [](const PixelRect& r) { glScissor(r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0); };
  for (const PixelRect& r : visible_regions_) {
    scissor(r);
    if (samples_ > 1) {
      drawGround(*ground_shader_, GroundPiece::kInner);
      drawGround(*ground_edge_shader_, GroundPiece::kEdgeRing);
    } else {
      drawGround(*ground_shader_, GroundPiece::kWhole);
    }
  }
  glBindVertexArray(empty_vao_);
  glDepthMask(GL_FALSE);
  sky_shader_->use();
  sky_shader_->set("horizon", kHorizon);
  for (const PixelRect& r : visible_regions_) {
    scissor(r);
    glDrawArrays(GL_TRIANGLES, 0, 3);
  }
  glDepthMask(GL_TRUE);
  glBindVertexArray(0);
  glDisable(GL_SCISSOR_TEST);
}

float Renderer::pixelRadius(const Eigen::Vector3f& centre, float radius) const {
  const float depth = view_projection_.row(3).dot(centre.homogeneous());  // clip w: the distance along the view
  if (!(depth > 1e-3f)) return std::numeric_limits<float>::infinity();   // at or behind the eye: the finest
  return radius * pixels_per_unit_at_unit_depth_ / depth;
}

void Renderer::drawSolid(const RoundMesh& mesh, const Eigen::Matrix4f& model, const Eigen::Vector4f& rgba,
                         const SolidStyle& style) {
  const Eigen::Vector3f centre = model.topRightCorner<3, 1>();
  // RoundMesh's levels keep a quarter pixel: a coarser tolerance is a smaller circle to it.
  const float radius = pixelRadius(centre, mesh.radiusUnder(model)) * 0.25f / std::max(0.25f, style.silhouette_tolerance);
  drawSolid(mesh.forPixelRadius(radius), model, rgba, style);
}

void Renderer::drawSolid(const GpuMesh& mesh, const Eigen::Matrix4f& model, const Eigen::Vector4f& rgba,
                         const SolidStyle& style) {
  Command& c = commands_.emplace_back();
  c.mesh = &mesh;
  c.model = model;
  c.color = rgba;
  c.color.w() *= style.alpha_scale;
  c.wireframe = style.wireframe;
}

void Renderer::drawArrow(const Eigen::Vector3f& from, const Eigen::Vector3f& to, float radius, const Eigen::Vector4f& rgba) {
  const Eigen::Vector3f d = to - from;
  const float length = d.norm();
  if (length < 1e-6f) return;
  const Eigen::Matrix3f R = Eigen::Quaternionf::FromTwoVectors(Eigen::Vector3f::UnitZ(), d / length).toRotationMatrix();
  const float head = std::min(0.35f * length, 6.0f * radius);
  const float shaft = length - head;
  drawSolid(*cylinder_, transformMatrix(R, from + 0.5f * shaft * d / length, {radius, radius, shaft}), rgba, kMarkerStyle);
  drawSolid(*cone_, transformMatrix(R, from + shaft * d / length, {2.2f * radius, 2.2f * radius, head}), rgba, kMarkerStyle);
}

void Renderer::drawFrame(const Eigen::Matrix4f& pose, float length) {
  const Eigen::Vector3f origin = pose.topRightCorner<3, 1>();
  const Eigen::Matrix3f R = pose.topLeftCorner<3, 3>();
  const float radius = 0.04f * length;
  drawArrow(origin, origin + length * R.col(0), radius, {0.9f, 0.2f, 0.2f, 1.0f});
  drawArrow(origin, origin + length * R.col(1), radius, {0.2f, 0.85f, 0.25f, 1.0f});
  drawArrow(origin, origin + length * R.col(2), radius, {0.25f, 0.45f, 1.0f, 1.0f});
}

void Renderer::drawLines(const std::vector<Eigen::Vector3f>& points, const Eigen::Vector4f& rgba, bool on_top) {
  if (points.size() < 2) return;
  Command& c = commands_.emplace_back();
  c.model.setIdentity();
  c.color = rgba;
  c.on_top = on_top;
  c.first = line_points_.size();
  c.count = points.size() & ~std::size_t{1};
  line_points_.insert(line_points_.end(), points.begin(), points.begin() + static_cast<std::ptrdiff_t>(c.count));
}

bool Renderer::commandsBox(std::array<int, 4>& box) const {
  float x0 = std::numeric_limits<float>::infinity(), y0 = x0, x1 = -x0, y1 = -x0;
  bool in_front = true;  // every corner in front of the eye (else the box is the whole view)
  const auto add = [&](const Eigen::Vector3f& p) {
    const Eigen::Vector4f clip = view_projection_ * p.homogeneous();
    if (!(clip.w() > 1e-6f)) {
      in_front = false;
      return;
    }
    const float x = (0.5f + 0.5f * clip.x() / clip.w()) * static_cast<float>(width_);
    const float y = (0.5f + 0.5f * clip.y() / clip.w()) * static_cast<float>(height_);
    x0 = std::min(x0, x);
    x1 = std::max(x1, x);
    y0 = std::min(y0, y);
    y1 = std::max(y1, y);
  };
  for (const Command& c : commands_) {
    if (c.mesh == nullptr) {
      for (std::size_t k = c.first; k < c.first + c.count; ++k) add(line_points_[k]);
      continue;
    }
    const Eigen::Vector3f& lo = c.mesh->minCorner();
    const Eigen::Vector3f& hi = c.mesh->maxCorner();
    for (int corner = 0; corner < 8; ++corner) {
      const Eigen::Vector3f local((corner & 1) ? hi.x() : lo.x(), (corner & 2) ? hi.y() : lo.y(), (corner & 4) ? hi.z() : lo.z());
      add((c.model * local.homogeneous()).head<3>());
    }
  }
  if (!in_front) {
    box = {0, 0, width_, height_};
    return true;
  }
  // Two pixels of margin: lines and coverage at the very edge of the projected bounds.
  const auto clamp = [](float v, int hi) { return static_cast<int>(std::clamp(v, 0.0f, static_cast<float>(hi))); };
  box = {clamp(std::floor(x0) - 2.0f, width_), clamp(std::floor(y0) - 2.0f, height_), clamp(std::ceil(x1) + 2.0f, width_),
         clamp(std::ceil(y1) + 2.0f, height_)};
  return box[2] > box[0] && box[3] > box[1];
}

void Renderer::drawOpaqueSolidsInstanced() {
  // Opaque solids in any order (the depth test sorts them): one instanced draw per mesh, style
  // and winding instead of one draw per placement. A frame's overlays are hundreds of arrows and
  // spheres of a few meshes; a software rasteriser pays a fixed cost per draw.
  const auto mirrored = [](const Command& c) { return c.model.topLeftCorner<3, 3>().determinant() < 0.0f; };
  batch_order_.clear();
  for (std::size_t i = 0; i < commands_.size(); ++i) {
    if (commands_[i].mesh != nullptr && commands_[i].color.w() >= 0.999f) batch_order_.push_back(i);
  }
  const auto key = [&](std::size_t i) {
    const Command& c = commands_[i];
    return std::tuple(c.mesh, c.wireframe, mirrored(c));
  };
  std::stable_sort(batch_order_.begin(), batch_order_.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  solid_instanced_shader_->use();
  solid_instanced_shader_->set("view_projection", view_projection_);
  solid_instanced_shader_->set("eye", eye_);
  for (std::size_t begin = 0; begin < batch_order_.size();) {
    std::size_t end = begin + 1;
    while (end < batch_order_.size() && key(batch_order_[end]) == key(batch_order_[begin])) ++end;
    const Command& first = commands_[batch_order_[begin]];
    instance_data_.clear();
    for (std::size_t k = begin; k < end; ++k) {
      const Command& c = commands_[batch_order_[k]];
      const Eigen::Matrix3f normal_matrix = c.model.topLeftCorner<3, 3>().inverse().transpose();
      instance_data_.insert(instance_data_.end(), c.model.data(), c.model.data() + 16);
      instance_data_.insert(instance_data_.end(), normal_matrix.data(), normal_matrix.data() + 9);
      instance_data_.insert(instance_data_.end(), c.color.data(), c.color.data() + 4);
    }
    glBindBuffer(GL_ARRAY_BUFFER, instance_vbo_);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(instance_data_.size() * sizeof(float)), instance_data_.data(),
                 GL_STREAM_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    solid_instanced_shader_->set("unlit", first.wireframe ? 1.0f : 0.0f);
    if (first.wireframe) glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
    // An opaque closed solid's back faces are hidden behind its front: not drawn at all
    // (about half the triangles; a mirroring placement turns the winding around).
    const bool cull = first.mesh->closed() && !first.wireframe;
    if (cull) {
      glEnable(GL_CULL_FACE);
      glFrontFace(mirrored(first) ? GL_CW : GL_CCW);
    }
    first.mesh->drawInstanced(instance_vbo_, static_cast<int>(end - begin));
    if (cull) {
      glDisable(GL_CULL_FACE);
      glFrontFace(GL_CCW);
    }
    if (first.wireframe) glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    begin = end;
  }
}

void Renderer::replayCommands() {
  if (!line_points_.empty()) {
    glBindBuffer(GL_ARRAY_BUFFER, line_vbo_);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(line_points_.size() * sizeof(Eigen::Vector3f)),
                 line_points_.data(), GL_STREAM_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
  }
  drawOpaqueSolidsInstanced();
  // Then lines and translucent solids, in the order they were drawn; the view's uniforms once
  // per program switch, not per draw.
  const ShaderProgram* current = nullptr;
  for (const Command& c : commands_) {
    const bool translucent = c.color.w() < 0.999f;
    if (c.mesh != nullptr && !translucent) continue;  // drawn above
    if (c.mesh == nullptr) {
      if (current != line_shader_.get()) {
        current = line_shader_.get();
        current->use();
        current->set("view_projection", view_projection_);
      }
      current->set("color", c.color);
      glBindVertexArray(line_vao_);
      if (c.on_top) glDisable(GL_DEPTH_TEST);
      if (translucent) glEnable(GL_BLEND);
      glDrawArrays(GL_LINES, static_cast<GLint>(c.first), static_cast<GLsizei>(c.count));
      glDisable(GL_BLEND);
      if (c.on_top) glEnable(GL_DEPTH_TEST);
      glBindVertexArray(0);
      continue;
    }
    if (current != solid_shader_.get()) {
      current = solid_shader_.get();
      current->use();
      current->set("view_projection", view_projection_);
      current->set("eye", eye_);
    }
    current->set("model", c.model);
    const Eigen::Matrix3f linear = c.model.topLeftCorner<3, 3>();
    current->set("normal_matrix", Eigen::Matrix3f(linear.inverse().transpose()));
    current->set("unlit", c.wireframe ? 1.0f : 0.0f);
    current->set("color", c.color);
    if (translucent) {
      glDepthMask(GL_FALSE);
      glEnable(GL_BLEND);
    }
    if (c.wireframe) glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
    // An opaque closed solid's back faces are hidden behind its front: not drawn at all
    // (about half the triangles; a mirroring placement turns the winding around).
    const bool cull = c.mesh->closed() && !translucent && !c.wireframe;
    if (cull) {
      glEnable(GL_CULL_FACE);
      glFrontFace(linear.determinant() < 0.0f ? GL_CW : GL_CCW);
    }
    c.mesh->draw();
    if (cull) {
      glDisable(GL_CULL_FACE);
      glFrontFace(GL_CCW);
    }
    if (c.wireframe) glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    if (translucent) {
      glDepthMask(GL_TRUE);
      glDisable(GL_BLEND);
    }
  }
}

void Renderer::endScene() {
  std::array<int, 4> box{};
  if (samples_ <= 1) {
    replayCommands();  // straight into the window, over the ground
  } else if (commandsBox(box)) {
    // The solids multisampled in their box only: cleared to transparent, the ground's depth hides
    // what is below it, then resolved and laid over the window's ground in one pass.
    resizeTargets(width_, height_);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glEnable(GL_SCISSOR_TEST);
    glScissor(box[0], box[1], box[2] - box[0], box[3] - box[1]);
    glClearColor(0.0f, 0.0f, 0.0f, 0.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    drawGround(*ground_depth_shader_, GroundPiece::kWhole);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    // Over transparent black the colour accumulates premultiplied by alpha (and, resolved, by coverage).
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    replayCommands();
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, color_texture_);
    composite_shader_->use();
    glBindVertexArray(empty_vao_);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, 0);
    glDisable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDisable(GL_SCISSOR_TEST);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDisable(GL_DEPTH_TEST);
}

}  // namespace loopsim::render
