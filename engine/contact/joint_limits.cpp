#include <loopsim/contact/joint_limits.hpp>

#include <cmath>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/number_text.hpp>

namespace loopsim {

std::vector<LimitedDof> limitedDofs(const Model& model) {
  std::vector<LimitedDof> out;
  for (int j = 1; j < model.nbodies(); ++j) {
    const JointType type = model.joint_types[j];
    if (type != JointType::Revolute && type != JointType::Prismatic) continue;
    const int iq = model.idx_q[j];
    const double lower = model.lower_position_limit[iq], upper = model.upper_position_limit[iq];
    if (std::isnan(lower) || std::isnan(upper) || lower > upper) {
      throw ModelError("", "joint '" + model.joint_names[j] + "' limit",
                       "lower " + numberText(lower) + " and upper " + numberText(upper) +
                           ": need lower <= upper, neither NaN");
    }
    if (std::isinf(lower) && std::isinf(upper)) continue;
    out.push_back({j, iq, model.idx_v[j], lower, upper});
  }
  return out;
}

}  // namespace loopsim
