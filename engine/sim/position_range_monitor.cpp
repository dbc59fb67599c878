#include <loopsim/sim/position_range_monitor.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace loopsim {

namespace {
constexpr double kRoundOff = 1e-9;  // m or rad
}  // namespace

PositionRangeMonitor::PositionRangeMonitor(const Model& model, double allowed_excess)
    : model_(model), allowed_excess_(std::max(allowed_excess, kRoundOff)) {
  for (int j = 1; j < model.nbodies(); ++j) {
    if (model.joint_nq[j] != 1) continue;
    const int iq = model.idx_q[j];
    if (!std::isfinite(model.lower_position_limit[iq]) && !std::isfinite(model.upper_position_limit[iq])) continue;
    PositionRangeExcursion e;
    e.joint = j;
    e.lower = model.lower_position_limit[iq];
    e.upper = model.upper_position_limit[iq];
    log_.watch(e);
  }
}

std::span<const int> PositionRangeMonitor::check(double t, const VectorX& q) {
  log_.beginCheck();
  for (std::size_t k = 0; k < log_.size(); ++k) {
    const PositionRangeExcursion& e = log_[k];
    const double x = q[model_.idx_q[e.joint]];
    const double excess = std::max(e.lower - x, x - e.upper);
    // A joint resting on its limit crosses it by round-off (Atlas's r_arm_ely
    // starts at its lower limit 0 and reads -5e-18): not an excursion to report.
    if (excess > allowed_excess_) log_.exceeded(k, t, excess);
  }
  return log_.newlyExceeded();
}

std::string describeExcursion(const Model& model, const PositionRangeExcursion& e) {
  const char* unit = model.joint_types[e.joint] == JointType::Prismatic ? "m" : "rad";
  char text[256];
  std::snprintf(text, sizeof text, "left its range [%.6g, %.6g] %s at t = %.6g s, by up to %.6g %s", e.lower, e.upper,
                unit, e.first_time, e.max_excess, unit);
  return "joint '" + model.joint_names[e.joint] + "' " + text;
}

}  // namespace loopsim
