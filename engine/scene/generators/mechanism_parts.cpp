#include <loopsim/scene/generators/mechanism_parts.hpp>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/rigid_shapes.hpp>

namespace loopsim::generators {

int addRevoluteRod(ModelBuilder& builder, int parent, const std::string& name, const Vector3& axis,
                   const SE3& joint_placement, const RodSpec& rod) {
  JointSpec joint;
  joint.axis = axis;
  const double mass = rod.mass_per_length * rod.length;
  const int body = builder.addBody(parent, name + "_joint", joint, joint_placement,
                                   rodInertia(mass, rod.length, rod.width, rod.direction), name);
  // Box visual along the rod: its x extent is the length, turned onto the direction.
  VisualGeometry visual;
  visual.name = name;
  visual.body = body;
  visual.shape = VisualGeometry::Shape::Box;
  const Vector3 d = rod.direction.normalized();
  visual.placement = SE3(Eigen::Quaterniond::FromTwoVectors(Vector3::UnitX(), d).toRotationMatrix(),
                         0.5 * rod.length * d);
  visual.size = Vector3(rod.length, rod.width, rod.width);
  visual.rgba = rod.rgba;
  builder.addVisual(visual);
  return body;
}

SE3 worldPlacement(const Model& model, const VectorX& q, int body, const SE3& placement) {
  Data data(model);
  forwardKinematics(model, data, q);
  return data.oMi[body] * placement;
}

void require(bool ok, const std::string& generator, const std::string& what) {
  if (!ok) throw ModelError("", "generator '" + generator + "'", what);
}

Matrix3 frameWithZ(const Vector3& z) {
  return Eigen::Quaterniond::FromTwoVectors(Vector3::UnitZ(), z.normalized()).toRotationMatrix();
}

}  // namespace loopsim::generators
