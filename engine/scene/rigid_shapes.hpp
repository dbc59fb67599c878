#pragma once
// Solid primitives: the inertia of a uniform box, sphere, cylinder or capsule and the
// matching visual. Free bodies of a scene and the mechanism generators use them.
#include <string>

#include <loopsim/model/model.hpp>

namespace loopsim {

struct RigidShape {
  VisualGeometry::Shape shape = VisualGeometry::Shape::Box;
  /// Box: full extents (x, y, z). Sphere: (radius). Cylinder: (radius, length), axis z.
  /// Capsule: (radius, length of the cylindrical part), axis z.
  Vector3 size = Vector3::Zero();
  double mass = 0.0;
  Vector4 rgba{0.7, 0.7, 0.7, 1.0};
};

/// Inertia of the uniform solid about its centre, centred at `center` (body frame).
/// Throws ModelError (element names the shape) on a non-positive mass or size.
Inertia shapeInertia(const RigidShape& shape, const std::string& element, const Vector3& center = Vector3::Zero());

/// The visual of a shape on `body` at `placement`.
VisualGeometry shapeVisual(const RigidShape& shape, const std::string& name, int body, const SE3& placement);

/// Inertia of a slender box link of length `length` along `axis` (unit x, y or z
/// direction in the body frame), cross-section width x width, starting at the origin.
Inertia rodInertia(double mass, double length, double width, const Vector3& direction);

}  // namespace loopsim
