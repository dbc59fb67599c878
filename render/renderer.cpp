#include "render/renderer.hpp"

#include <GL/gl.h>
#include <GL/glext.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace loopsim::render {

namespace {

constexpr const char* kSolidVertex = R"(#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
uniform mat4 model;
uniform mat3 normal_matrix;  // inverse transpose of model's 3x3 part, computed once per draw on the CPU
uniform mat4 view_projection;
out vec3 world_position;
out vec3 world_normal;
void main() {
  vec4 p = model * vec4(position, 1.0);
  world_position = p.xyz;
  world_normal = normal_matrix * normal;
  gl_Position = view_projection * p;
})";

// Directional key light plus a weaker fill from the opposite side and ambient.
constexpr const char* kSolidFragment = R"(#version 330 core
in vec3 world_position;
in vec3 world_normal;
uniform vec4 color;
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
  float specular = 0.18 * pow(max(dot(n, normalize(key + v)), 0.0), 40.0);
  vec3 lit = color.rgb * (0.32 + diffuse) + vec3(specular);
  frag_color = vec4(mix(lit, color.rgb, unlit), color.a);
})";

constexpr const char* kGroundVertex = R"(#version 330 core
uniform mat4 view_projection;
uniform float extent;
out vec3 world_position;
void main() {
  vec2 corner = vec2((gl_VertexID == 1 || gl_VertexID == 2 || gl_VertexID == 4) ? 1.0 : -1.0,
                     (gl_VertexID == 2 || gl_VertexID == 4 || gl_VertexID == 5) ? 1.0 : -1.0);
  world_position = vec3(extent * corner, 0.0);
  gl_Position = view_projection * vec4(world_position, 1.0);
})";

// Checker of 1 m tiles with anti-aliased 0.1 m and 1 m grid lines, fading into the horizon colour.
// The ground covers most of the screen, so every fragment counts under a software rasteriser:
// one fwidth (the 0.1 m grid's is ten times the 1 m one's), and the fade squared without a sqrt.
constexpr const char* kGroundFragment = R"(#version 330 core
in vec3 world_position;
uniform vec3 eye;
uniform vec3 horizon;
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
  frag_color = vec4(mix(base, horizon, fade2), 1.0);
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
  GLint max_samples = 1;
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  samples_ = std::min(samples_, std::max(1, static_cast<int>(max_samples)));
  solid_shader_ = std::make_unique<ShaderProgram>("solid", kSolidVertex, kSolidFragment);
  ground_shader_ = std::make_unique<ShaderProgram>("ground", kGroundVertex, kGroundFragment);
  sky_shader_ = std::make_unique<ShaderProgram>("sky", kSkyVertex, kSkyFragment);
  line_shader_ = std::make_unique<ShaderProgram>("line", kLineVertex, kLineFragment);
  box_ = std::make_unique<GpuMesh>(unitBox());
  sphere_ = std::make_unique<RoundMesh>([](int n) { return unitSphere(n, n / 2); }, false);
  hemisphere_ = std::make_unique<RoundMesh>([](int n) { return unitHemisphere(n, std::max(2, n / 4)); }, false);
  cylinder_ = std::make_unique<RoundMesh>([](int n) { return unitCylinder(n); }, true);
  cone_ = std::make_unique<GpuMesh>(unitCone());
  glGenVertexArrays(1, &empty_vao_);
  glGenVertexArrays(1, &line_vao_);
  glGenBuffers(1, &line_vbo_);
  glBindVertexArray(line_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, line_vbo_);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);
  glEnableVertexAttribArray(0);
  glBindVertexArray(0);
}

Renderer::~Renderer() {
  releaseTargets();
  glDeleteBuffers(1, &line_vbo_);
  glDeleteVertexArrays(1, &line_vao_);
  glDeleteVertexArrays(1, &empty_vao_);
}

void Renderer::releaseTargets() {
  if (fbo_ != 0) glDeleteFramebuffers(1, &fbo_);
  if (color_rb_ != 0) glDeleteRenderbuffers(1, &color_rb_);
  if (depth_rb_ != 0) glDeleteRenderbuffers(1, &depth_rb_);
  fbo_ = color_rb_ = depth_rb_ = 0;
}

void Renderer::resizeTargets(int width, int height) {
  if (width == width_ && height == height_ && fbo_ != 0) return;
  releaseTargets();
  width_ = width;
  height_ = height;
  glGenFramebuffers(1, &fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glGenRenderbuffers(1, &color_rb_);
  glBindRenderbuffer(GL_RENDERBUFFER, color_rb_);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples_ > 1 ? samples_ : 0, GL_RGBA8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_rb_);
  glGenRenderbuffers(1, &depth_rb_);
  glBindRenderbuffer(GL_RENDERBUFFER, depth_rb_);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples_ > 1 ? samples_ : 0, GL_DEPTH_COMPONENT24, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_rb_);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    throw std::runtime_error("the OpenGL driver refuses a " + std::to_string(width) + "x" + std::to_string(height) +
                             " framebuffer with " + std::to_string(samples_) + " samples");
  }
}

void Renderer::beginScene(int width, int height, const OrbitCamera& camera) {
  if (samples_ > 1) {
    resizeTargets(std::max(1, width), std::max(1, height));
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  } else {
    // Without multisampling the window's own buffers serve: no offscreen copy to blit
    // (a full-screen pass of its own in a software rasteriser).
    width_ = std::max(1, width);
    height_ = std::max(1, height);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
  }
  glViewport(0, 0, width_, height_);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_TRUE);
  // Depth only: the ground and the sky behind it write every pixel's colour.
  glClear(GL_DEPTH_BUFFER_BIT);
  if (samples_ > 1) glEnable(GL_MULTISAMPLE);
  // Blending only where something is translucent: in a software rasteriser every blended
  // pixel reads the framebuffer back.
  glDisable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);

  const Eigen::Matrix4f projection = camera.projection(static_cast<float>(width_) / static_cast<float>(height_));
  view_projection_ = projection * camera.view();
  pixels_per_unit_at_unit_depth_ = 0.5f * static_cast<float>(height_) * projection(1, 1);
  eye_ = camera.eye();

  // The ground first, slightly behind its true depth so that geometry resting on z = 0 wins;
  // then the sky behind everything, shaded only where the ground left the cleared depth.
  glBindVertexArray(empty_vao_);
  glEnable(GL_POLYGON_OFFSET_FILL);
  glPolygonOffset(1.0f, 1.0f);
  ground_shader_->use();
  ground_shader_->set("view_projection", view_projection_);
  ground_shader_->set("extent", 60.0f);
  ground_shader_->set("eye", eye_);
  ground_shader_->set("horizon", kHorizon);
  glDrawArrays(GL_TRIANGLES, 0, 6);
  glDisable(GL_POLYGON_OFFSET_FILL);

  glDepthMask(GL_FALSE);
  sky_shader_->use();
  sky_shader_->set("horizon", kHorizon);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glDepthMask(GL_TRUE);
  glBindVertexArray(0);
}

float Renderer::pixelRadius(const Eigen::Vector3f& centre, float radius) const {
  const float depth = view_projection_.row(3).dot(centre.homogeneous());  // clip w: the distance along the view
  if (!(depth > 1e-3f)) return std::numeric_limits<float>::infinity();   // at or behind the eye: the finest
  return radius * pixels_per_unit_at_unit_depth_ / depth;
}

void Renderer::drawSolid(const RoundMesh& mesh, const Eigen::Matrix4f& model, const Eigen::Vector4f& rgba,
                         const SolidStyle& style) {
  const Eigen::Vector3f centre = model.topRightCorner<3, 1>();
  drawSolid(mesh.forPixelRadius(pixelRadius(centre, mesh.radiusUnder(model))), model, rgba, style);
}

void Renderer::drawSolid(const GpuMesh& mesh, const Eigen::Matrix4f& model, const Eigen::Vector4f& rgba,
                         const SolidStyle& style) {
  solid_shader_->use();
  solid_shader_->set("model", model);
  const Eigen::Matrix3f linear = model.topLeftCorner<3, 3>();
  solid_shader_->set("normal_matrix", Eigen::Matrix3f(linear.inverse().transpose()));
  solid_shader_->set("view_projection", view_projection_);
  solid_shader_->set("eye", eye_);
  solid_shader_->set("unlit", style.wireframe ? 1.0f : 0.0f);
  Eigen::Vector4f color = rgba;
  color.w() *= style.alpha_scale;
  solid_shader_->set("color", color);
  const bool translucent = color.w() < 0.999f;
  if (translucent) {
    glDepthMask(GL_FALSE);
    glEnable(GL_BLEND);
  }
  if (style.wireframe) glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
  mesh.draw();
  if (style.wireframe) glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
  if (translucent) {
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
  }
}

void Renderer::drawArrow(const Eigen::Vector3f& from, const Eigen::Vector3f& to, float radius, const Eigen::Vector4f& rgba) {
  const Eigen::Vector3f d = to - from;
  const float length = d.norm();
  if (length < 1e-6f) return;
  const Eigen::Matrix3f R = Eigen::Quaternionf::FromTwoVectors(Eigen::Vector3f::UnitZ(), d / length).toRotationMatrix();
  const float head = std::min(0.35f * length, 6.0f * radius);
  const float shaft = length - head;
  drawSolid(*cylinder_, transformMatrix(R, from + 0.5f * shaft * d / length, {radius, radius, shaft}), rgba, {});
  drawSolid(*cone_, transformMatrix(R, from + shaft * d / length, {2.2f * radius, 2.2f * radius, head}), rgba, {});
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
  line_shader_->use();
  line_shader_->set("view_projection", view_projection_);
  line_shader_->set("color", rgba);
  glBindVertexArray(line_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, line_vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(points.size() * sizeof(Eigen::Vector3f)), points.data(),
               GL_STREAM_DRAW);
  if (on_top) glDisable(GL_DEPTH_TEST);
  if (rgba.w() < 0.999f) glEnable(GL_BLEND);
  glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(points.size() & ~std::size_t{1}));
  glDisable(GL_BLEND);
  if (on_top) glEnable(GL_DEPTH_TEST);
  glBindVertexArray(0);
}

void Renderer::endScene() {
  if (samples_ > 1) {  // resolve
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glBlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDisable(GL_DEPTH_TEST);
}

}  // namespace loopsim::render
