#pragma once
// Watches a run and reports every one-dof joint that leaves its model range
// [lower, upper] by more than an allowed excess, once per joint (when it first
// left, and how far it went). With the limits simulated (scene key
// joint_limits, contact/joint_limits.hpp) the allowed excess is their slop;
// with them off, round-off only.
// check() never allocates.
#include <span>
#include <string>
#include <vector>

#include <loopsim/model/model.hpp>
#include <loopsim/sim/limit_excursions.hpp>

namespace loopsim {

class PositionRangeMonitor {
 public:
  explicit PositionRangeMonitor(const Model& model, double allowed_excess = 0.0);

  /// Checks q at time t. Returns the joints that left their range for the
  /// first time at this call (usually none; valid until the next call).
  std::span<const int> check(double t, const VectorX& q);

  /// Joints that left their range, in the order they first did.
  std::vector<PositionRangeExcursion> excursions() const { return log_.inOrder(); }

 private:
  const Model& model_;
  double allowed_excess_;
  ExcursionLog<PositionRangeExcursion> log_;  // one-dof joints with a finite limit
};

/// "joint 'knee' left its range [-1, 1] rad at t = 0.53 s, by up to 0.2 rad".
std::string describeExcursion(const Model& model, const PositionRangeExcursion& excursion);

}  // namespace loopsim
