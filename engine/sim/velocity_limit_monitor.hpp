#pragma once
// Joint velocity limits (URDF <limit velocity>) are not simulated yet: this
// watches a run and reports every joint whose speed exceeds its model limit,
// once per joint (when it first did, and by how much at most), as
// PositionRangeMonitor does for position ranges. A multi-dof joint counts as
// one joint (its dof furthest beyond its limit). A limit of 0 is URDF's usual
// "unspecified" and, like an infinite one, is no limit. check() never allocates.
#include <span>
#include <string>
#include <vector>

#include <loopsim/model/model.hpp>
#include <loopsim/sim/limit_excursions.hpp>

namespace loopsim {

class VelocityLimitMonitor {
 public:
  explicit VelocityLimitMonitor(const Model& model);

  /// Checks v at time t. Returns the joints that exceeded their velocity
  /// limit for the first time at this call (usually none; valid until the next call).
  std::span<const int> check(double t, const VectorX& v);

  /// Joints that exceeded their limit, in the order they first did.
  std::vector<VelocityLimitExcursion> excursions() const { return log_.inOrder(); }
  /// How many joints have a finite velocity limit (0: nothing to watch).
  std::size_t watchedJoints() const { return log_.size(); }

 private:
  const Model& model_;
  ExcursionLog<VelocityLimitExcursion> log_;  // joints with a finite limit on a dof
};

/// "joint 'knee' exceeded its velocity limit 5 rad/s at t = 0.53 s, by up to 1.2 rad/s".
std::string describeExcursion(const Model& model, const VelocityLimitExcursion& excursion);

}  // namespace loopsim
