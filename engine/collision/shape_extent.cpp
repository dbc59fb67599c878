#include <loopsim/collision/shape_extent.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace loopsim {

double lowestAlong(const Geometry& g, const SE3& world, const Vector3& n) {
  const double centre = n.dot(world.t);
  const Vector3 local_n = world.R.transpose() * n;  // n in the geometry frame
  switch (g.shape) {
    case GeometryShape::sphere: return centre - g.size.x();
    case GeometryShape::capsule:
      return centre - 0.5 * g.size.y() * std::abs(local_n.z()) - g.size.x();
    case GeometryShape::cylinder:
      // The end disc nearer along -n, and on its rim the point straight towards -n.
      return centre - 0.5 * g.size.y() * std::abs(local_n.z()) - g.size.x() * local_n.head<2>().norm();
    case GeometryShape::box: return centre - 0.5 * g.size.cwiseProduct(local_n.cwiseAbs()).sum();
    case GeometryShape::convex: {
      double lowest = std::numeric_limits<double>::infinity();
      for (const Vector3& v : g.vertices) lowest = std::min(lowest, local_n.dot(v));
      return centre + lowest;
    }
    case GeometryShape::halfspace:
      // {x : m·x <= offset} reaches -infinity along every n except n = -m.
      return (n + g.normal).norm() < 1e-12 ? -g.offset : -std::numeric_limits<double>::infinity();
  }
  return centre;
}

double lowestBodyGeometryHeight(const GeometryModel& geometry, const std::vector<SE3>& oMi) {
  double lowest = std::numeric_limits<double>::infinity();
  for (const Geometry& g : geometry.geometries()) {
    if (g.body == 0 || g.shape == GeometryShape::halfspace) continue;
    const SE3 world = oMi[static_cast<std::size_t>(g.body)] * g.placement;
    lowest = std::min(lowest, lowestAlong(g, world, Vector3::UnitZ()));
  }
  return lowest;
}

}  // namespace loopsim
