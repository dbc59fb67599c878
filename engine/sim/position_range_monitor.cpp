#include <loopsim/sim/position_range_monitor.hpp>

#include <cmath>
#include <cstdio>

namespace loopsim {

PositionRangeMonitor::PositionRangeMonitor(const Model& model) : model_(model) {
  for (int j = 1; j < model.nbodies(); ++j) {
    if (model.joint_nq[j] != 1) continue;
    const int iq = model.idx_q[j];
    if (!std::isfinite(model.lower_position_limit[iq]) && !std::isfinite(model.upper_position_limit[iq])) continue;
    limited_joints_.push_back(j);
    PositionRangeExcursion e;
    e.joint = j;
    e.first_time = -1.0;  // never left
    e.lower = model.lower_position_limit[iq];
    e.upper = model.upper_position_limit[iq];
    state_.push_back(e);
  }
  order_.reserve(state_.size());
  newly_left_.reserve(state_.size());
}

std::span<const int> PositionRangeMonitor::check(double t, const VectorX& q) {
  newly_left_.clear();
  for (std::size_t k = 0; k < state_.size(); ++k) {
    PositionRangeExcursion& e = state_[k];
    const double x = q[model_.idx_q[e.joint]];
    const double excess = std::max(e.lower - x, x - e.upper);
    if (!(excess > 0.0)) continue;
    if (e.first_time < 0.0) {
      e.first_time = t;
      order_.push_back(static_cast<int>(k));
      newly_left_.push_back(e.joint);
    }
    e.max_excess = std::max(e.max_excess, excess);
  }
  return newly_left_;
}

std::vector<PositionRangeExcursion> PositionRangeMonitor::excursions() const {
  std::vector<PositionRangeExcursion> out;
  for (int k : order_) out.push_back(state_[static_cast<std::size_t>(k)]);
  return out;
}

std::string describeExcursion(const Model& model, const PositionRangeExcursion& e) {
  const char* unit = model.joint_types[e.joint] == JointType::Prismatic ? "m" : "rad";
  char text[256];
  std::snprintf(text, sizeof text, "left its range [%.6g, %.6g] %s at t = %.6g s, by up to %.6g %s", e.lower, e.upper,
                unit, e.first_time, e.max_excess, unit);
  return "joint '" + model.joint_names[e.joint] + "' " + text;
}

}  // namespace loopsim
