#include <loopsim/sim/velocity_limit_monitor.hpp>

#include <cmath>
#include <cstdio>

namespace loopsim {

namespace {

// v of a floating joint is [ω; v]: its last three dofs are linear.
bool isLinearDof(const Model& model, int dof) {
  const int j = model.dof_joint[dof];
  const JointType type = model.joint_types[j];
  return type == JointType::Prismatic || (type == JointType::Floating && dof - model.idx_v[j] >= 3);
}

}  // namespace

VelocityLimitMonitor::VelocityLimitMonitor(const Model& model) : model_(model) {
  for (int j = 1; j < model.nbodies(); ++j) {
    const int first = model.idx_v[j];
    for (int i = first; i < first + model.joint_nv[j]; ++i) {
      // 0 is URDF's usual "unspecified" (the effort clamp reads effort 0 the same way).
      if (!(model.velocity_limit[i] > 0.0) || !std::isfinite(model.velocity_limit[i])) continue;
      VelocityLimitExcursion e;
      e.joint = j;
      e.dof = i;
      e.limit = model.velocity_limit[i];
      log_.watch(e);
      break;  // one entry per joint; check() looks at all its dofs
    }
  }
}

std::span<const int> VelocityLimitMonitor::check(double t, const VectorX& v) {
  log_.beginCheck();
  for (std::size_t k = 0; k < log_.size(); ++k) {
    VelocityLimitExcursion& e = log_[k];
    const int first = model_.idx_v[e.joint];
    double excess = 0.0;
    int worst = -1;
    for (int i = first; i < first + model_.joint_nv[e.joint]; ++i) {
      const double limit = model_.velocity_limit[i];
      if (!(limit > 0.0)) continue;
      const double over = std::abs(v[i]) - limit;  // -inf where unlimited
      if (over > excess) {
        excess = over;
        worst = i;
      }
    }
    if (worst < 0) continue;
    // The dof named in the report is the one of the largest excess so far.
    if (excess > e.max_excess) {
      e.dof = worst;
      e.limit = model_.velocity_limit[worst];
    }
    log_.exceeded(k, t, excess);
  }
  return log_.newlyExceeded();
}

std::string describeExcursion(const Model& model, const VelocityLimitExcursion& e) {
  const char* unit = isLinearDof(model, e.dof) ? "m/s" : "rad/s";
  std::string dof;
  if (model.joint_nv[e.joint] > 1) dof = " (dof " + std::to_string(e.dof - model.idx_v[e.joint]) + ")";
  char text[256];
  std::snprintf(text, sizeof text, "exceeded its velocity limit %.6g %s%s at t = %.6g s, by up to %.6g %s", e.limit,
                unit, dof.c_str(), e.first_time, e.max_excess, unit);
  return "joint '" + model.joint_names[e.joint] + "' " + text;
}

}  // namespace loopsim
