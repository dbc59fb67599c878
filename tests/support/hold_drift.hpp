#pragma once
// How far a held robot drifts from its start: the largest displacement of any
// floating joint's origin (the bases, a free box) and the largest deviation of
// any held actuated joint (actuated, no sinusoid drive) from its value at the
// start, over a run. Shared by the unit tests and tests/tools/hold_drift_report.
#include <string>

#include <loopsim/sim/simulation.hpp>

namespace loopsim {

struct HoldDrift {
  double base_displacement = 0.0;  // m, max over time and floating joints of |p(t) - p(0)|
  std::string base_joint;          // the floating joint where it happened
  double joint_deviation = 0.0;    // rad (m for prismatic), max over time and held actuated dofs
  std::string joint;               // the dof where it happened
  double simulated = 0.0;          // s actually simulated (less than asked on divergence)
  bool diverged = false;
};

/// Steps sim for `duration` seconds from its current state (taken as the
/// start) and measures the drift after every step.
HoldDrift measureHoldDrift(Simulation& sim, double duration);

}  // namespace loopsim
