#include <loopsim/record/state_columns.hpp>

namespace loopsim {

std::vector<std::string> lambdaColumns(const ConstraintSet& constraints) {
  std::vector<std::string> out;
  for (int i = 0; i < constraints.size(); ++i) {
    const Constraint& c = constraints[i];
    for (int r = 0; r < c.dimension(); ++r) {
      out.push_back("lambda:" + c.name + ":" + std::string(constraintRowName(c.kind, c.fullRow(r))));
    }
  }
  return out;
}

}  // namespace loopsim
