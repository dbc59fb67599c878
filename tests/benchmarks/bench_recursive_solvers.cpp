// Constrained forward dynamics on the robot scenes (paper 000 Table II on our
// Atlas and Go1): every solver that takes the scene, and ABA as the floor, on
// two consistent states near the scene's start. `loopsim bench` gives the same comparison
// over many sampled states; these are for profiling one solver at a time.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <memory>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/delassus/delassus.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/registry.hpp>

using namespace loopsim;

namespace {

// Two consistent states a step's motion apart, alternated call by call: at
// one repeated q the joint-space solvers reuse M's factors and J (a step's
// projection leaves them to the next solve at the same q), so a single state
// would time their velocity-only path, not a solve.
struct SceneFixture {
  Scene scene;
  std::unique_ptr<ConstraintSet> set;
  VectorX q[2], v, tau;
  explicit SceneFixture(const std::string& file)
      : scene(loadScene(std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / file)) {
    set = std::make_unique<ConstraintSet>(*scene.model, scene.constraints, scene.time_constant);
    v = VectorX::Constant(scene.model->nv, 0.1);
    tau = VectorX::Constant(scene.model->nv, 1.0);
    q[0] = scene.q0;
    makeConsistent(*set, q[0], v, scene.held_joints);
    q[1] = q[0];
    integrate(*scene.model, q[0], v, 0.01, q[1]);
    VectorX v1 = v;  // v stays the one consistent at q[0]
    makeConsistent(*set, q[1], v1, scene.held_joints);
  }
};

SceneFixture& fixture(const std::string& file) {
  static std::map<std::string, std::unique_ptr<SceneFixture>> cache;
  auto& slot = cache[file];
  if (!slot) slot = std::make_unique<SceneFixture>(file);
  return *slot;
}

void BM_SceneAba(benchmark::State& state, const std::string& file) {
  SceneFixture& f = fixture(file);
  Data data(*f.scene.model);
  int k = 0;
  for (auto _ : state) benchmark::DoNotOptimize(aba(*f.scene.model, data, f.q[k ^= 1], f.v, f.tau).data());
}

// CRBA (both triangles) on the scene's robot: the table's CRBA column, beside its ABA.
void BM_SceneCrba(benchmark::State& state, const std::string& file) {
  SceneFixture& f = fixture(file);
  Data data(*f.scene.model);
  int k = 0;
  for (auto _ : state) benchmark::DoNotOptimize(crba(*f.scene.model, data, f.q[k ^= 1]).data());
}

void BM_SceneSolver(benchmark::State& state, const std::string& file, const std::string& solver_name, int iterations) {
  SceneFixture& f = fixture(file);
  SolverSettings settings = f.scene.solver_settings;
  if (iterations > 0) settings.max_iterations = iterations, settings.tolerance = 0.0, settings.warm_start = false;
  auto solver = makeSolver(solver_name, *f.set, settings);
  VectorX vdot(f.scene.model->nv), lambda(f.set->dimension());
  int k = 0;
  for (auto _ : state) {
    solver->solve(f.q[k ^= 1], f.v, f.tau, {}, vdot, lambda);
    benchmark::DoNotOptimize(vdot.data());
  }
}

void BM_SceneDelassus(benchmark::State& state, const std::string& file, const std::string& algorithm) {
  SceneFixture& f = fixture(file);
  auto a = makeDelassusAlgorithm(algorithm, *f.set);
  MatrixX out = MatrixX::Zero(f.set->dimension(), f.set->dimension());
  int k = 0;
  for (auto _ : state) {
    a->compute(f.q[k ^= 1], out);
    benchmark::DoNotOptimize(out.data());
  }
}

}  // namespace

#define LOOPSIM_SCENE_BENCHMARKS(tag, file)                                              \
  BENCHMARK_CAPTURE(BM_SceneAba, tag, file);                                             \
  BENCHMARK_CAPTURE(BM_SceneCrba, tag, file);                                            \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_kkt, file, "kkt", 0);                          \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_ltl, file, "ltl", 0);                          \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_pv, file, "pv", 0);                            \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_pv_early, file, "pv-early", 0);                \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_pv_soft, file, "pv-soft", 0);                  \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_soft_ltl, file, "soft-ltl", 0);                \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_constrained_aba_1it, file, "constrained-aba", 1); \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_constrained_aba_3it, file, "constrained-aba", 3); \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_prox_pv_1it, file, "prox-pv", 1);              \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_prox_ltl_1it, file, "prox-ltl", 1);            \
  BENCHMARK_CAPTURE(BM_SceneDelassus, tag##_ltl_osim, file, "ltl-osim");                 \
  BENCHMARK_CAPTURE(BM_SceneDelassus, tag##_pv_osim, file, "pv-osim");                   \
  BENCHMARK_CAPTURE(BM_SceneDelassus, tag##_efpa, file, "efpa");                         \
  BENCHMARK_CAPTURE(BM_SceneDelassus, tag##_pv_osimr, file, "pv-osimr")

LOOPSIM_SCENE_BENCHMARKS(atlas_2F, std::string("atlas_standing.yaml"));
LOOPSIM_SCENE_BENCHMARKS(atlas_2F2H, std::string("atlas_2f2h.yaml"));
LOOPSIM_SCENE_BENCHMARKS(go1_4F, std::string("go1_standing.yaml"));

// Paper 004's transmissions: cluster-aba beside the Lagrange-multiplier
// solvers on the geared and belt chains and the Mini Cheetah's rotors.
#define LOOPSIM_CLUSTER_BENCHMARKS(tag, file)                           \
  BENCHMARK_CAPTURE(BM_SceneAba, tag, file);                            \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_kkt, file, "kkt", 0);         \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_ltl, file, "ltl", 0);         \
  BENCHMARK_CAPTURE(BM_SceneSolver, tag##_cluster_aba, file, "cluster-aba", 0)

LOOPSIM_CLUSTER_BENCHMARKS(geared_chain, std::string("geared_chain.yaml"));
LOOPSIM_CLUSTER_BENCHMARKS(belt_chain, std::string("belt_chain.yaml"));
LOOPSIM_CLUSTER_BENCHMARKS(mini_cheetah, std::string("mini_cheetah_standing.yaml"));
