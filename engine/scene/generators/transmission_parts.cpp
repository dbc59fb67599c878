#include <loopsim/scene/generators/transmission_parts.hpp>

#include <cmath>
#include <numbers>
#include <utility>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/number_text.hpp>
#include <loopsim/scene/rigid_shapes.hpp>

namespace loopsim::generators {

void requireTransmission(const std::string& generator, const TransmissionSizes& s, double gear_ratio) {
  requireCount(generator, "links", s.links, 1, 10000);
  requireRod(generator, s.rod);
  const std::pair<const char*, double> values[] = {
      {"gear_ratio", gear_ratio}, {"rotor_mass", s.rotor_mass}, {"rotor_radius", s.rotor_radius}};
  for (const auto& [name, x] : values) {
    if (!(std::isfinite(x) && x > 0.0)) {
      throw ModelError("", "generator '" + generator + "' parameter '" + name + "'",
                       "must be a finite number > 0, got " + numberText(x));
    }
  }
}

Vector3 transmissionPivot(const RodParams& rod, int i) {
  return rod.length * Vector3(0.3 * std::sin(0.8 * i), 0.0, -0.95 * i);
}

int addRotor(ModelBuilder& builder, int parent, const SE3& parent_world, const Vector3& pivot, double offset,
             const std::string& name, const TransmissionSizes& sizes) {
  // Rotor frame: z along the world y axis (a cylinder's axis is its z).
  const Matrix3 R = Eigen::AngleAxisd(-0.5 * std::numbers::pi, Vector3::UnitX()).toRotationMatrix();
  const SE3 world(R, pivot + offset * Vector3::UnitY());
  RigidShape disc;
  disc.shape = VisualGeometry::Shape::Cylinder;
  disc.size = Vector3(sizes.rotor_radius, 0.4 * sizes.rotor_radius, 0.0);
  disc.mass = sizes.rotor_mass;
  disc.rgba = {0.1, 0.1, 0.12, 1.0};
  JointSpec joint;
  joint.axis = Vector3::UnitZ();
  const int body = builder.addBody(parent, name + "_joint", joint, parent_world.inverse() * world,
                                   shapeInertia(disc, "rotor '" + name + "'"), name);
  builder.addVisual(shapeVisual(disc, name, body, SE3::Identity()));
  // A stripe shows the rotor turning.
  RigidShape stripe{VisualGeometry::Shape::Box, Vector3(1.6 * sizes.rotor_radius, 0.25 * sizes.rotor_radius,
                                                        0.5 * sizes.rotor_radius), 1.0, {0.95, 0.8, 0.2, 1.0}};
  builder.addVisual(shapeVisual(stripe, name + "_stripe", body, SE3::Identity()));
  return body;
}

Constraint coupling(const std::string& name, std::vector<int> joints, std::vector<double> coefficients) {
  Constraint c;
  c.name = name;
  c.kind = ConstraintKind::Coupling;
  c.coupling_joints = std::move(joints);
  c.coupling_coefficients = std::move(coefficients);
  return c;
}

}  // namespace loopsim::generators
