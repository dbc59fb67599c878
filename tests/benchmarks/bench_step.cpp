// Simulation::step against its solve on the robot scenes (issue 8 §3): what a
// step costs beyond the constrained dynamics (controller, integration,
// projection, constraint errors, energy, statistics). Compare the
// Step/<scene>/projection:0 rows with Solve/<scene> from the same run.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <string>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>

using namespace loopsim;

namespace {

const char* const kScenes[] = {"atlas_standing", "go1_standing", "digit_standing"};

Scene benchScene(int index, bool projection) {
  const std::filesystem::path dir = std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes";
  Scene scene = loadScene(dir / (std::string(kScenes[index]) + ".yaml"));
  scene.projection = projection;
  scene.duration = 1e6;  // the run statistics keep timing samples; the step count is the benchmark's
  return scene;
}

void BM_Step(benchmark::State& state) {
  const Scene scene = benchScene(static_cast<int>(state.range(0)), state.range(1) != 0);
  SimulationOptions options;
  options.timing_samples = 1 << 16;
  Simulation sim(scene, options);
  for (auto _ : state) {
    if (!sim.step()) {
      state.SkipWithError("diverged");
      break;
    }
  }
  state.SetLabel(kScenes[state.range(0)]);
}

// The solve alone at the simulation's (moving) state, as the step calls it.
void BM_Solve(benchmark::State& state) {
  const Scene scene = benchScene(static_cast<int>(state.range(0)), false);
  Simulation sim(scene);
  for (int k = 0; k < 10; ++k) sim.step();
  const Model& model = sim.model();
  Data data(model);
  VectorX tau(model.nv), vdot(model.nv), lambda(sim.constraints().dimension());
  passiveForces(model, data, sim.q(), sim.v());
  tau = sim.appliedTorque() + data.passive;
  for (auto _ : state) {
    sim.solver().solve(sim.q(), sim.v(), tau, {}, vdot, lambda);
    benchmark::DoNotOptimize(vdot.data());
  }
  state.SetLabel(kScenes[state.range(0)]);
}

}  // namespace

BENCHMARK(BM_Step)->ArgsProduct({{0, 1, 2}, {0, 1}})->ArgNames({"scene", "projection"})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Solve)->DenseRange(0, 2)->ArgName("scene")->Unit(benchmark::kMicrosecond);
