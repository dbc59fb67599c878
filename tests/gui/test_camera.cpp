// The orbit camera's geometry (no window needed): projection and picking rays
// agree, framing shows the whole box, and the mouse actions move it as named.
#include <gtest/gtest.h>

#include "render/camera.hpp"

namespace {

using loopsim::render::OrbitCamera;

TEST(OrbitCamera, PixelRaysPassThroughTheProjectedPoints) {
  OrbitCamera camera;
  camera.lookat = {0.3f, -0.2f, 0.9f};
  camera.azimuth_deg = 40.0f;
  camera.elevation_deg = -25.0f;
  camera.distance = 4.0f;
  for (const Eigen::Vector3f& p : {Eigen::Vector3f(0.3f, -0.2f, 0.9f), Eigen::Vector3f(1.0f, 0.5f, 0.0f), Eigen::Vector3f(-0.4f, 0.2f, 1.5f)}) {
    Eigen::Vector2f pixel;
    ASSERT_TRUE(camera.project(p, 640.0f, 480.0f, pixel));
    const loopsim::render::Ray ray = camera.pixelRay(pixel.x(), pixel.y(), 640.0f, 480.0f);
    const Eigen::Vector3f to_point = p - ray.origin;
    const float off_ray = (to_point - to_point.dot(ray.direction) * ray.direction).norm();
    EXPECT_LT(off_ray, 1e-4f * to_point.norm()) << p.transpose();
  }
  // The look-at point is the centre of the view; a point behind the camera does not project.
  Eigen::Vector2f centre;
  ASSERT_TRUE(camera.project(camera.lookat, 640.0f, 480.0f, centre));
  EXPECT_NEAR(centre.x(), 320.0f, 1e-3f);
  EXPECT_NEAR(centre.y(), 240.0f, 1e-3f);
  Eigen::Vector2f behind;
  EXPECT_FALSE(camera.project(camera.eye() + (camera.eye() - camera.lookat), 640.0f, 480.0f, behind));
}

TEST(OrbitCamera, FramingShowsTheWholeBox) {
  OrbitCamera camera;
  const Eigen::Vector3f lo(-0.5f, -0.3f, 0.0f), hi(0.4f, 0.3f, 1.8f);
  camera.frame(lo, hi, 16.0f / 9.0f);
  EXPECT_TRUE(camera.lookat.isApprox(0.5f * (lo + hi)));
  for (int corner = 0; corner < 8; ++corner) {
    const Eigen::Vector3f p((corner & 1) ? hi.x() : lo.x(), (corner & 2) ? hi.y() : lo.y(), (corner & 4) ? hi.z() : lo.z());
    Eigen::Vector2f pixel;
    ASSERT_TRUE(camera.project(p, 1280.0f, 720.0f, pixel));
    EXPECT_GE(pixel.x(), 0.0f);
    EXPECT_LE(pixel.x(), 1280.0f);
    EXPECT_GE(pixel.y(), 0.0f);
    EXPECT_LE(pixel.y(), 720.0f);
  }
}

TEST(OrbitCamera, AViewAreaCentresAndFramesTheViewWithinIt) {
  // The free area between docked panels: left 340 px, right 340 px, bottom 300 px of 1280x720.
  OrbitCamera camera;
  camera.area = {340.0f / 1280.0f, 0.0f, 940.0f / 1280.0f, 420.0f / 720.0f};
  const Eigen::Vector3f lo(-0.5f, -0.3f, 0.0f), hi(0.4f, 0.3f, 1.8f);
  camera.frame(lo, hi, 1280.0f / 720.0f);
  Eigen::Vector2f centre;
  ASSERT_TRUE(camera.project(camera.lookat, 1280.0f, 720.0f, centre));
  EXPECT_NEAR(centre.x(), 640.0f, 1e-2f);
  EXPECT_NEAR(centre.y(), 210.0f, 1e-2f);
  for (int corner = 0; corner < 8; ++corner) {
    const Eigen::Vector3f p((corner & 1) ? hi.x() : lo.x(), (corner & 2) ? hi.y() : lo.y(), (corner & 4) ? hi.z() : lo.z());
    Eigen::Vector2f pixel;
    ASSERT_TRUE(camera.project(p, 1280.0f, 720.0f, pixel));
    EXPECT_GE(pixel.x(), 340.0f) << corner;
    EXPECT_LE(pixel.x(), 940.0f) << corner;
    EXPECT_GE(pixel.y(), 0.0f) << corner;
    EXPECT_LE(pixel.y(), 420.0f) << corner;
    // Picking still finds the point under its pixel.
    const loopsim::render::Ray ray = camera.pixelRay(pixel.x(), pixel.y(), 1280.0f, 720.0f);
    const Eigen::Vector3f to_point = p - ray.origin;
    EXPECT_LT((to_point - to_point.dot(ray.direction) * ray.direction).norm(), 1e-4f * to_point.norm()) << corner;
  }
}

TEST(OrbitCamera, MouseActionsRotatePanAndZoom) {
  OrbitCamera camera;
  const OrbitCamera start = camera;
  camera.zoom(2.0f);
  EXPECT_LT(camera.distance, start.distance);
  EXPECT_TRUE(camera.lookat.isApprox(start.lookat));
  camera.rotate(100.0f, 0.0f);
  EXPECT_NE(camera.azimuth_deg, start.azimuth_deg);
  EXPECT_EQ(camera.elevation_deg, start.elevation_deg);
  camera.rotate(0.0f, 1e4f);
  EXPECT_GE(camera.elevation_deg, -89.0f);  // never flips over the pole
  EXPECT_LE(camera.elevation_deg, 89.0f);
  // Panning moves the look-at point across the view, keeping its distance to the eye.
  const Eigen::Vector3f before = camera.lookat;
  const float eye_distance = (camera.eye() - camera.lookat).norm();
  camera.pan(50.0f, 0.0f, 480.0f);
  EXPECT_GT((camera.lookat - before).norm(), 1e-3f);
  EXPECT_NEAR((camera.eye() - camera.lookat).norm(), eye_distance, 1e-4f);
}

}  // namespace
