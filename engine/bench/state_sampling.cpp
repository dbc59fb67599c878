#include <loopsim/bench/state_sampling.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <spdlog/spdlog.h>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/model/quiet_log.hpp>
#include <loopsim/parallel/machine_limits.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim {

namespace {

// Refuses a count that is not positive or whose states would not fit in
// memory, naming the count (the scene is not at fault).
void checkStateCount(const Model& model, long long count, const std::string& element) {
  if (count < 1) throw ModelError("", element, "must be at least 1, got " + std::to_string(count));
  // Three vectors a state, each with its heap block and header.
  const double bytes = 8.0 * (model.nq + 2 * model.nv) + 3 * (32.0 + 16.0) + sizeof(SampledState);
  if (const std::string problem = memoryProblem(count, bytes, "states of this scene"); !problem.empty()) {
    throw ModelError("", element, problem);
  }
}

}  // namespace

std::vector<SampledState> sampleStates(const Scene& scene, const ConstraintSet& set, int samples, unsigned seed) {
  const Model& model = *scene.model;
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  checkStateCount(model, samples, "samples");
  std::vector<SampledState> states;
  VectorX q0 = scene.q0.size() == model.nq ? scene.q0 : neutral(model);
  VectorX dq(model.nv);
  long long attempts = 0;
  // Each projection logs its correction at info level: too chatty for N samples.
  const QuietLogAtLeast quiet(spdlog::level::warn);
  while (static_cast<int>(states.size()) < samples) {
    if (++attempts > 10LL * samples + 10) {
      throw ModelError(scene.source_file, "bench", "could not sample constraint-consistent states near the initial pose");
    }
    SampledState s{VectorX(model.nq), VectorX(model.nv), VectorX(model.nv)};
    for (int k = 0; k < model.nv; ++k) dq[k] = 0.1 * normal(rng);
    integrate(model, q0, dq, 1.0, s.q);
    for (int k = 0; k < model.nv; ++k) s.v[k] = normal(rng), s.tau[k] = normal(rng);
    if (set.dimension() > 0) {
      try {
        makeConsistent(set, s.q, s.v, scene.held_joints);
      } catch (const ModelError&) {
        continue;  // a sample off the assembly branch: draw another
      }
    }
    states.push_back(std::move(s));
  }
  return states;
}

std::vector<SampledState> simulatedStates(const Scene& scene, int steps) {
  // The consistent start logs at info level and the controller's set-up
  // warns about the scene (effort limits): `run` and `check` say that, a
  // timing table would drown in it.
  const QuietLogAtLeast quiet(spdlog::level::err);
  checkStateCount(*scene.model, steps, "samples");
  std::vector<SampledState> states;
  Simulation sim(scene);
  for (int k = 0; k < steps; ++k) {
    SampledState s{sim.q(), sim.v(), VectorX()};
    if (!sim.step()) {
      throw ModelError(scene.source_file, "bench --trajectory",
                       "the scene's simulation (solver " + scene.solver + ") diverged at t = " +
                           std::to_string(sim.time()) + " s, step " + std::to_string(k + 1));
    }
    s.tau = sim.appliedTorque();  // the controller's τ at s (the step's)
    states.push_back(std::move(s));
  }
  return states;
}

}  // namespace loopsim
