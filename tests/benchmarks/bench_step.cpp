// Simulation::step against its solve on the robot scenes (docs/performance.md): what a
// step costs beyond the constrained dynamics (controller, integration,
// projection, constraint errors, energy, statistics). Compare the
// Step/<scene>/<solver>/projection:* rows with Solve/<scene>/<solver> from the
// same run.
//
// The solve is timed on a cycle of states from the scene's own trajectory,
// never twice in a row at the same q: the joint-space solvers keep their
// placements, M and factors when q repeats bit for bit, so a solve repeated
// at one state would time only the cached half of it.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <string>

#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>
#include "trajectory_states.hpp"

using namespace loopsim;

namespace {

const char* const kScenes[] = {"atlas_standing", "go1_standing", "digit_standing"};
const char* const kSolvers[] = {"kkt", "ltl"};
constexpr int kStateCycle = 64;

Scene benchScene(const benchmark::State& state, bool projection) {
  const std::filesystem::path dir = std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes";
  Scene scene = loadScene(dir / (std::string(kScenes[state.range(0)]) + ".yaml"));
  scene.solver = kSolvers[state.range(1)];
  scene.projection = projection;
  scene.duration = 1e6;  // the run statistics keep timing samples; the step count is the benchmark's
  return scene;
}

std::string label(const benchmark::State& state) {
  return std::string(kScenes[state.range(0)]) + " " + kSolvers[state.range(1)];
}

void BM_Step(benchmark::State& state) {
  const Scene scene = benchScene(state, state.range(2) != 0);
  SimulationOptions options;
  options.timing_samples = 1 << 16;
  Simulation sim(scene, options);
  for (auto _ : state) {
    if (!sim.step()) {
      state.SkipWithError("diverged");
      break;
    }
  }
  state.SetLabel(label(state));
}

// The solve alone, as the step calls it, on kStateCycle consecutive states
// of the simulation (projection off).
void BM_Solve(benchmark::State& state) {
  const Scene scene = benchScene(state, false);
  Simulation sim(scene);
  const Model& model = sim.model();
  const test::TrajectoryStates states = test::nextTrajectoryStates(sim, kStateCycle);
  if (static_cast<int>(states.q.size()) < kStateCycle) {
    state.SkipWithError("diverged");
    return;
  }
  VectorX vdot(model.nv), lambda(sim.constraints().dimension());
  int k = 0;
  for (auto _ : state) {
    sim.solver().solve(states.q[k], states.v[k], states.tau[k], {}, vdot, lambda);
    benchmark::DoNotOptimize(vdot.data());
    k = (k + 1) % kStateCycle;
  }
  state.SetLabel(label(state));
}

}  // namespace

BENCHMARK(BM_Step)
    ->ArgsProduct({{0, 1, 2}, {0, 1}, {0, 1}})
    ->ArgNames({"scene", "solver", "projection"})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Solve)->ArgsProduct({{0, 1, 2}, {0, 1}})->ArgNames({"scene", "solver"})->Unit(benchmark::kMicrosecond);
