#include <loopsim/scene/generators/loop_geometry.hpp>

#include <cmath>
#include <numbers>
#include <utility>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/model/number_text.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/rigid_shapes.hpp>

namespace loopsim::generators {

namespace {
constexpr double kGoldenAngle = 2.399963229728653;
}

Vector3 genericLocalAxis(int k) {
  const double phi = kGoldenAngle * k + 0.7;
  return Vector3(0.45, std::cos(phi), std::sin(phi)).normalized();
}

int addRodBody(ModelBuilder& builder, int parent, const std::string& name, const JointSpec& joint,
               const SE3& joint_placement, double length, const RodStyle& style) {
  const double mass = style.mass_per_length * length;
  JointSpec passive = joint;
  passive.damping = style.damping;
  if (joint.type == JointType::Revolute) passive.stiffness = style.stiffness;
  const int body = builder.addBody(parent, name + "_joint", passive, joint_placement,
                                   rodInertia(mass, length, style.width, Vector3::UnitX()), name);
  VisualGeometry visual;
  visual.name = name;
  visual.body = body;
  visual.shape = VisualGeometry::Shape::Box;
  visual.placement = SE3(Matrix3::Identity(), Vector3(0.5 * length, 0, 0));
  visual.size = Vector3(length, style.width, style.width);
  visual.rgba = style.rgba;
  builder.addVisual(visual);
  return body;
}

ChainLink addSegment(ModelBuilder& builder, int parent, const SE3& parent_world, const Vector3& a, const Vector3& b,
                     const std::string& name, int axis_index, const RodStyle& style, const Vector3& fixed_axis) {
  const Vector3 d = b - a;
  const double length = d.norm();
  if (!(length > 1e-9)) throw ModelError("", "generator link '" + name + "'", "its two end points coincide");
  const Matrix3 R = Eigen::Quaterniond::FromTwoVectors(Vector3::UnitX(), d / length).toRotationMatrix();
  const SE3 world(R, a);
  JointSpec joint;
  joint.axis = fixed_axis.isZero() ? genericLocalAxis(axis_index) : Vector3(R.transpose() * fixed_axis);
  const int body = addRodBody(builder, parent, name, joint, parent_world.inverse() * world, length, style);
  return {body, world, length};
}

std::vector<ChainLink> addPolylineChain(ModelBuilder& builder, int parent, const SE3& parent_world,
                                        const std::vector<Vector3>& points, const std::string& prefix,
                                        int first_index, int axis_index, const RodStyle& style,
                                        const Vector3& fixed_axis) {
  std::vector<ChainLink> links;
  for (std::size_t k = 0; k + 1 < points.size(); ++k) {
    // Shade along the chain so that neighbouring links are told apart.
    RodStyle shaded = style;
    const double shade = points.size() > 2 ? 1.0 - 0.35 * static_cast<double>(k) / (points.size() - 2) : 1.0;
    shaded.rgba.head<3>() *= shade;
    const int index = static_cast<int>(k);
    links.push_back(addSegment(builder, links.empty() ? parent : links.back().body,
                               links.empty() ? parent_world : links.back().world, points[k], points[k + 1],
                               prefix + std::to_string(first_index + index), axis_index + index, shaded, fixed_axis));
  }
  return links;
}

std::vector<Vector3> arcPoints(const Vector3& a, const Vector3& b, int n, const Vector3& bulge,
                               const Vector3& wiggle) {
  std::vector<Vector3> points;
  for (int k = 0; k <= n; ++k) {
    const double s = static_cast<double>(k) / n;
    points.push_back(a + s * (b - a) + std::sin(std::numbers::pi * s) * bulge +
                     std::sin(2.0 * std::numbers::pi * s) * wiggle);
  }
  points.back() = b;  // exactly
  return points;
}

std::vector<Vector3> ringPoints(const Vector3& top, const Vector3& down, const Vector3& side, int n,
                                double side_length, double wiggle) {
  const double radius = side_length / (2.0 * std::sin(std::numbers::pi / n));
  const Vector3 centre = top + radius * down;
  const Vector3 normal = down.cross(side).normalized();
  std::vector<Vector3> points;
  for (int k = 0; k <= n; ++k) {
    const double angle = 2.0 * std::numbers::pi * k / n;
    Vector3 p = centre - radius * std::cos(angle) * down + radius * std::sin(angle) * side;
    if (k > 0 && k < n) p += (k % 2 == 0 ? wiggle : -wiggle) * normal;
    points.push_back(p);
  }
  points.front() = top;
  points.back() = top;
  return points;
}

Constraint closeAt(const Model& model, const VectorX& q0, const std::string& name, ConstraintKind kind,
                   int body1, const SE3& placement1, int body2) {
  Constraint c;
  c.name = name;
  c.kind = kind;
  c.body1 = body1;
  c.placement1 = placement1;
  c.body2 = body2;
  const SE3 frame_a = bodyPlacement(model, q0, body1) * placement1;
  c.placement2 = body2 == 0 ? frame_a : bodyPlacement(model, q0, body2).inverse() * frame_a;
  return c;
}

void requireCount(const std::string& generator, const std::string& parameter, int value, int lo, int hi) {
  if (value < lo || value > hi) {
    throw ModelError("", "generator '" + generator + "' parameter '" + parameter + "'",
                     "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                         std::to_string(value));
  }
}

void requireLinkCount(const std::string& generator, const std::string& count, long long links) {
  if (links > kMaxMechanismLinks) {
    throw ModelError("", "generator '" + generator + "'",
                     count + " = " + std::to_string(links) + " links; at most " + std::to_string(kMaxMechanismLinks) +
                         " are allowed (larger mechanisms do not fit in memory: every solver holds a dense nv x nv "
                         "mass matrix)");
  }
}

void requireRod(const std::string& generator, const RodParams& rod) {
  const std::pair<const char*, double> values[] = {
      {"length", rod.length}, {"width", rod.width}, {"mass_per_length", rod.mass_per_length}};
  for (const auto& [name, x] : values) {
    if (!(std::isfinite(x) && x > 0.0)) {
      throw ModelError("", "generator '" + generator + "' parameter '" + name + "'",
                       "must be a finite number > 0, got " + numberText(x));
    }
  }
  const std::pair<const char*, double> passive[] = {{"stiffness", rod.stiffness}, {"damping", rod.damping}};
  for (const auto& [name, x] : passive) {
    if (!(std::isfinite(x) && x >= 0.0)) {
      throw ModelError("", "generator '" + generator + "' parameter '" + name + "'",
                       "must be a finite number >= 0, got " + std::to_string(x));
    }
  }
}

RodStyle rodStyle(const RodParams& rod, const Vector4& rgba) {
  return {rod.width, rod.mass_per_length, rgba, rod.stiffness, rod.damping};
}

Vector4 rampColour(int i, int n) {
  const double t = n > 1 ? static_cast<double>(i) / (n - 1) : 0.0;
  return {0.25 + 0.65 * t, 0.5 + 0.25 * std::sin(std::numbers::pi * t), 0.9 - 0.65 * t, 1.0};
}

unsigned long long SplitMix64::next() {
  unsigned long long z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace loopsim::generators
