#pragma once
// Names of a model's configuration and velocity coordinates, the column names
// of records (`run --record`) and of `eval` input/output:
//   q:<joint>              one-dof joints
//   q:<joint>:x|y|z        floating base position (world)
//   q:<joint>:qx|qy|qz|qw  quaternion, [x y z w]
//   v:<joint>, v:<joint>:wx|wy|wz|vx|vy|vz  (child-frame velocity, [angular; linear])
//   tau:<joint>[...], vdot:<joint>[...]     like v
#include <string>
#include <vector>

#include <loopsim/model/model.hpp>

namespace loopsim {

/// Names of the nq configuration coordinates, prefixed "q:".
std::vector<std::string> configurationColumns(const Model& model);
/// Names of the nv velocity coordinates with the given prefix ("v", "tau", "vdot").
std::vector<std::string> velocityColumns(const Model& model, const std::string& prefix);

}  // namespace loopsim
