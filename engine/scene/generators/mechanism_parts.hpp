#pragma once
// Internal to the generators: slender links and closing targets.
#include <string>

#include <loopsim/model/model_builder.hpp>

namespace loopsim::generators {

struct RodSpec {
  double length = 0.3;
  double width = 0.03;
  double mass_per_length = 2.0;
  Vector3 direction = Vector3::UnitX();  // the rod runs from the body origin along this unit vector
  Vector4 rgba{0.7, 0.7, 0.7, 1.0};
};

/// A revolute body whose link is a uniform rod (inertia and box visual).
int addRevoluteRod(ModelBuilder& builder, int parent, const std::string& name, const Vector3& axis,
                   const SE3& joint_placement, const RodSpec& rod);

/// World placement of `placement` on `body` at configuration q.
SE3 worldPlacement(const Model& model, const VectorX& q, int body, const SE3& placement);

/// Throws ModelError("", "generator '<generator>'", what) unless ok.
void require(bool ok, const std::string& generator, const std::string& what);

/// A rotation whose z axis is `z` (unit).
Matrix3 frameWithZ(const Vector3& z);

}  // namespace loopsim::generators
