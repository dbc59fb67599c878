#pragma once
// The next states of a simulation's own trajectory with the τ its step hands
// the solver (applied + passive): for timing a solve as a step calls it, on
// states never twice at one q (bench_step.cpp, tools/solve_profile.cpp).
#include <vector>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim::test {

struct TrajectoryStates {
  std::vector<VectorX> q, v, tau;
};

/// Steps `sim` up to `count` times and keeps each state reached; stops early
/// (fewer states) if a step diverges.
inline TrajectoryStates nextTrajectoryStates(Simulation& sim, int count) {
  const Model& model = sim.model();
  Data data(model);
  TrajectoryStates states;
  for (int k = 0; k < count && sim.step(); ++k) {
    passiveForces(model, data, sim.q(), sim.v());
    states.q.push_back(sim.q());
    states.v.push_back(sim.v());
    states.tau.push_back(sim.appliedTorque() + data.passive);
  }
  return states;
}

}  // namespace loopsim::test
