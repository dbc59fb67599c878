#pragma once
// An orbit camera as in MuJoCo's simulate: it looks at a point from a
// distance, azimuth and elevation (z up); the mouse rotates, pans and zooms it.
#include <Eigen/Core>

namespace loopsim::render {

struct Ray {
  Eigen::Vector3f origin, direction;  // direction unit
};

/// The part of the window the view is framed for, as fractions of its width and
/// height from the top left: the area the docked panels leave free. The 3D view
/// still fills the window; its centre and field of view belong to this area.
struct ViewArea {
  float x0 = 0.0f, y0 = 0.0f, x1 = 1.0f, y1 = 1.0f;
  float width() const { return x1 - x0; }
  float height() const { return y1 - y0; }
  bool operator==(const ViewArea&) const = default;
};

class OrbitCamera {
 public:
  Eigen::Vector3f lookat = Eigen::Vector3f(0, 0, 0.8f);
  float distance = 3.0f;
  float azimuth_deg = 135.0f;   // around z, from +x
  float elevation_deg = -20.0f;  // negative: looking down
  float fovy_deg = 45.0f;  // across the view area's height
  ViewArea area;

  Eigen::Vector3f eye() const;
  Eigen::Matrix4f view() const;
  /// The window's projection (aspect: the window's width / height), shifted and scaled so
  /// that the frustum of fovy_deg covers `area`.
  Eigen::Matrix4f projection(float aspect) const;
  /// Frames an axis-aligned box: looks at its centre from a distance that shows it whole
  /// within `area` (aspect: the window's).
  void frame(const Eigen::Vector3f& min_corner, const Eigen::Vector3f& max_corner, float aspect);

  // Mouse actions, in pixels of a window of the given height.
  void rotate(float dx, float dy);
  void pan(float dx, float dy, float viewport_height);
  void zoom(float steps);  // scroll steps, > 0 moves closer

  /// The ray through pixel (x, y) (origin top-left) of a width x height viewport.
  Ray pixelRay(float x, float y, float width, float height) const;
  /// Pixel (origin top-left) of a world point; false when behind the camera.
  bool project(const Eigen::Vector3f& p, float width, float height, Eigen::Vector2f& pixel) const;
};

}  // namespace loopsim::render
