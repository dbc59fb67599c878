#pragma once
// Column names shared by records (`run --record`) and `eval` input/output:
//   q:<joint>            one-dof joints
//   q:<joint>:x|y|z      floating base position (world)
//   q:<joint>:qx|qy|qz|qw  quaternion, [x y z w]
//   v:<joint>, v:<joint>:wx|wy|wz|vx|vy|vz  (child-frame velocity, [angular; linear])
//   tau:<joint>[...], vdot:<joint>[...]   like v
//   lambda:<constraint>:<row>           (row names: wx..vz, x y z rx ry, c)
#include <string>
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/model.hpp>

namespace loopsim {

/// Names of the nq configuration coordinates, prefixed "q:".
std::vector<std::string> configurationColumns(const Model& model);
/// Names of the nv velocity coordinates with the given prefix ("v", "tau", "vdot").
std::vector<std::string> velocityColumns(const Model& model, const std::string& prefix);
/// "lambda:<constraint>:<row>" for every constraint row.
std::vector<std::string> lambdaColumns(const ConstraintSet& constraints);

}  // namespace loopsim
