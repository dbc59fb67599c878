#pragma once
// Column names shared by records (`run --record`) and `eval` input/output:
// the model's coordinates (model/coordinate_names.hpp) and
//   lambda:<constraint>:<row>           (row names: wx..vz, x y z rx ry, c)
#include <string>
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/coordinate_names.hpp>

namespace loopsim {

/// "lambda:<constraint>:<row>" for every constraint row.
std::vector<std::string> lambdaColumns(const ConstraintSet& constraints);

}  // namespace loopsim
