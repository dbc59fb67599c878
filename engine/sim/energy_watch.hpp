#pragma once
// A numerical blow-up that has not reached NaN yet: an explicit PD too stiff
// for the step pumps energy into the system, and the controller's work
// "accounts" for it, so the energy balance alone stays quiet. What gives it
// away is the growth itself: physical motion does not multiply the kinetic
// energy by a large factor step after step. This watch fires when the kinetic
// energy has grown by at least kGrowthPerStep on each of the last
// kMinGrowthSteps (or more) consecutive steps, by kMinTotalGrowth over that
// streak, and ends above kScaleFactor times the run's initial energy scale
// (max(1 J, |E0|, kinetic, potential)). It names the joint whose gains are
// the likely cause (largest kp·dt²/m + 2·kd·dt/m, m its diagonal inertia;
// semi-implicit Euler needs < 4).
#include <optional>
#include <string>

#include <loopsim/model/data.hpp>

namespace loopsim {

class Simulation;

class EnergyGrowthWatch {
 public:
  static constexpr double kGrowthPerStep = 1.5;
  static constexpr int kMinGrowthSteps = 3;
  static constexpr double kMinTotalGrowth = 100.0;
  static constexpr double kScaleFactor = 10.0;

  explicit EnergyGrowthWatch(const Simulation& simulation);

  /// Call after each step. Returns the divergence message once it fires (allocates only then).
  std::optional<std::string> check(const Simulation& simulation);

 private:
  std::string likelyCause(const Simulation& simulation);

  double scale_ = 1.0;  // J
  double previous_kinetic_ = 0.0;
  double streak_start_kinetic_ = 0.0;  // kinetic energy before the current growth streak
  int growing_steps_ = 0;
  Data data_;
};

}  // namespace loopsim
