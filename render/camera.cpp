#include "render/camera.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>

namespace loopsim::render {

namespace {

float radians(float degrees) { return degrees * std::numbers::pi_v<float> / 180.0f; }

// Unit vector from the look-at point to the eye.
Eigen::Vector3f backward(float azimuth_deg, float elevation_deg) {
  const float az = radians(azimuth_deg), el = radians(elevation_deg);
  return {-std::cos(el) * std::cos(az), -std::cos(el) * std::sin(az), -std::sin(el)};
}

// Width / height of the view area in a window of the given aspect.
float areaAspect(const ViewArea& area, float window_aspect) {
  return window_aspect * std::max(1e-3f, area.width()) / std::max(1e-3f, area.height());
}

}  // namespace

Eigen::Vector3f OrbitCamera::eye() const { return lookat + distance * backward(azimuth_deg, elevation_deg); }

Eigen::Matrix4f OrbitCamera::view() const {
  const Eigen::Vector3f e = eye();
  const Eigen::Vector3f f = (lookat - e).normalized();
  const Eigen::Vector3f s = f.cross(Eigen::Vector3f::UnitZ()).normalized();
  const Eigen::Vector3f u = s.cross(f);
  Eigen::Matrix4f m = Eigen::Matrix4f::Identity();
  m.block<1, 3>(0, 0) = s.transpose();
  m.block<1, 3>(1, 0) = u.transpose();
  m.block<1, 3>(2, 0) = -f.transpose();
  m(0, 3) = -s.dot(e);
  m(1, 3) = -u.dot(e);
  m(2, 3) = f.dot(e);
  return m;
}

Eigen::Matrix4f OrbitCamera::projection(float aspect) const {
  // Near and far follow the distance so that close-ups and wide views both keep depth precision.
  const float near_plane = std::max(0.005f, 0.01f * distance);
  const float far_plane = 100.0f + 20.0f * distance;
  const float f = 1.0f / std::tan(0.5f * radians(fovy_deg));
  Eigen::Matrix4f p = Eigen::Matrix4f::Zero();
  p(0, 0) = f / areaAspect(area, aspect);
  p(1, 1) = f;
  p(2, 2) = (far_plane + near_plane) / (near_plane - far_plane);
  p(2, 3) = 2.0f * far_plane * near_plane / (near_plane - far_plane);
  p(3, 2) = -1.0f;
  // The area's normalised device coordinates into the window's: x_w = c + h x_a (per axis,
  // y up), applied in clip space where w = -z_eye.
  const float hx = area.width(), hy = area.height();
  const float cx = area.x0 + area.x1 - 1.0f, cy = 1.0f - (area.y0 + area.y1);
  Eigen::Matrix4f shift = Eigen::Matrix4f::Identity();
  shift(0, 0) = hx;
  shift(1, 1) = hy;
  shift(0, 3) = cx;
  shift(1, 3) = cy;
  return shift * p;
}

void OrbitCamera::frame(const Eigen::Vector3f& min_corner, const Eigen::Vector3f& max_corner, float aspect) {
  lookat = 0.5f * (min_corner + max_corner);
  const float radius = std::max(0.05f, 0.5f * (max_corner - min_corner).norm());
  const float half_fov = 0.5f * radians(fovy_deg) * std::min(1.0f, areaAspect(area, aspect));
  distance = 1.15f * radius / std::sin(half_fov);
}

void OrbitCamera::rotate(float dx, float dy) {
  azimuth_deg -= 0.3f * dx;
  elevation_deg = std::clamp(elevation_deg - 0.3f * dy, -89.0f, 89.0f);
}

void OrbitCamera::pan(float dx, float dy, float viewport_height) {
  const Eigen::Vector3f f = -backward(azimuth_deg, elevation_deg);
  const Eigen::Vector3f s = f.cross(Eigen::Vector3f::UnitZ()).normalized();
  const Eigen::Vector3f u = s.cross(f);
  // One view-area height of mouse motion moves the look-at point by the visible height at its distance.
  const float scale =
      2.0f * distance * std::tan(0.5f * radians(fovy_deg)) / std::max(1.0f, viewport_height * std::max(1e-3f, area.height()));
  lookat += scale * (-dx * s + dy * u);
}

void OrbitCamera::zoom(float steps) { distance = std::clamp(distance * std::pow(0.9f, steps), 0.02f, 500.0f); }

Ray OrbitCamera::pixelRay(float x, float y, float width, float height) const {
  const Eigen::Vector3f e = eye();
  const Eigen::Vector3f f = (lookat - e).normalized();
  const Eigen::Vector3f s = f.cross(Eigen::Vector3f::UnitZ()).normalized();
  const Eigen::Vector3f u = s.cross(f);
  const float t = std::tan(0.5f * radians(fovy_deg));
  // The pixel in the area's normalised device coordinates.
  const float ax = (x / width - area.x0) / std::max(1e-3f, area.width()), ay = (y / height - area.y0) / std::max(1e-3f, area.height());
  const float ndc_x = 2.0f * ax - 1.0f, ndc_y = 1.0f - 2.0f * ay;
  const Eigen::Vector3f d = f + ndc_x * t * areaAspect(area, width / height) * s + ndc_y * t * u;
  return {e, d.normalized()};
}

bool OrbitCamera::project(const Eigen::Vector3f& p, float width, float height, Eigen::Vector2f& pixel) const {
  const Eigen::Vector4f clip = projection(width / height) * view() * p.homogeneous();
  if (clip.w() <= 1e-6f) return false;
  pixel = {(clip.x() / clip.w() * 0.5f + 0.5f) * width, (0.5f - clip.y() / clip.w() * 0.5f) * height};
  return true;
}

}  // namespace loopsim::render
