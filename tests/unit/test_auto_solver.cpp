// Solver `auto` (docs/solvers.md, "Solver `auto`"): a timing probe at the consistent start picks the
// fastest exact capable solver.
//   - atlas_standing: the pick is an exact solver that takes the scene, and the
//     simulation equals running that solver explicitly, bit for bit;
//   - redundant_four_bar (declared redundant): the pick is redundant-capable;
//   - a record made with auto names the picked solver and replays with verify;
//   - eval refuses auto (a probe would pick per process).
#include <gtest/gtest.h>

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <loopsim/model/errors.hpp>
#include <loopsim/record/record_summary.hpp>
#include <loopsim/record/recorder.hpp>
#include <loopsim/record/replay.hpp>
#include <loopsim/record/state_evaluation.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/solvers/registry.hpp>
#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

using namespace loopsim;
using namespace loopsim::test;

namespace {

Scene autoScene(const std::string& file) {
  Scene scene = loadScene(scenesDir() / file);
  requireSolver(scene.solverProblem(), "auto");
  scene.solver = "auto";
  return scene;
}

}  // namespace

TEST(AutoSolver, AtlasPicksAnExactSolverAndEqualsItBitForBit) {
  QuietLog quiet;
  const Scene scene = autoScene("atlas_standing.yaml");
  Simulation automatic(scene);
  const SolverBinding& binding = automatic.solverBinding();
  ASSERT_TRUE(binding.selection.has_value());
  EXPECT_EQ(binding.requested, "auto");
  const std::string picked = binding.selection->picked;
  EXPECT_EQ(automatic.scene().solver, picked);
  const SolverInfo* info = findSolver(picked);
  ASSERT_NE(info, nullptr);
  EXPECT_FALSE(info->capabilities.soft);
  const std::vector<std::string> candidates = autoSolverCandidates(scene.solverProblem());
  EXPECT_NE(std::find(candidates.begin(), candidates.end(), picked), candidates.end());
  EXPECT_EQ(std::find(candidates.begin(), candidates.end(), "pv-soft"), candidates.end());
  EXPECT_NE(binding.solverLine().find("solver auto → " + picked + " (probe: "), std::string::npos)
      << binding.solverLine();
  std::printf("  %s\n", binding.solverLine().c_str());

  Scene named = scene;
  named.solver = picked;
  Simulation explicit_run(named);
  for (int k = 0; k < 200; ++k) {
    ASSERT_TRUE(automatic.step());
    ASSERT_TRUE(explicit_run.step());
  }
  EXPECT_EQ(automatic.q(), explicit_run.q());  // bit for bit
  EXPECT_EQ(automatic.v(), explicit_run.v());
  EXPECT_EQ(automatic.lambda(), explicit_run.lambda());
}

TEST(AutoSolver, RedundantFourBarPicksARedundantCapableSolver) {
  QuietLog quiet;
  const Scene scene = autoScene("redundant_four_bar.yaml");
  ASSERT_TRUE(scene.redundant);
  Simulation sim(scene);
  const std::string picked = sim.solverBinding().selection->picked;
  EXPECT_TRUE(findSolver(picked)->capabilities.redundant) << picked;
  for (const auto& t : sim.solverBinding().selection->timings) {
    EXPECT_TRUE(findSolver(t.solver)->capabilities.redundant) << t.solver;
  }
  EXPECT_TRUE(sim.run(0.2));
}

TEST(AutoSolver, EveryCandidateTakesTheScene) {
  QuietLog quiet;
  for (const char* file : {"four_bar.yaml", "geared_chain.yaml", "digit_standing.yaml"}) {
    const Scene scene = loadScene(scenesDir() / file);
    for (const std::string& name : autoSolverCandidates(scene.solverProblem())) {
      EXPECT_NO_THROW(requireSolver(scene.solverProblem(), name)) << file << " " << name;
      EXPECT_FALSE(findSolver(name)->capabilities.soft);
    }
  }
}

namespace {

class AutoRecords : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("loopsim_auto_records_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

}  // namespace

TEST_F(AutoRecords, ARecordMadeWithAutoReplaysWithVerify) {
  QuietLog quiet;
  const auto scene_path = dir_ / "scene.yaml";
  std::ofstream(scene_path) << R"(
name: auto_four_bar
models:
  - generator: four_bar
actuated: all
controller:
  type: sinusoid
  kp: 50
  kd: 5
  drives: [{joint: crank_joint, amplitude: 0.4, frequency: 1.0, phase: 0, offset: 0.0}]
dt: 0.002
duration: 0.2
solver: {name: auto, mu: auto}
)";
  const Scene scene = loadScene(scene_path);
  EXPECT_EQ(scene.solver, "auto");
  Simulation sim(scene);
  const auto csv = dir_ / "run.csv";
  SimulationRecorder recorder(sim, csv, false, {});
  for (int k = 0; k < 80; ++k) ASSERT_TRUE(recorder.step(sim));
  recorder.finish(sim, "test");
  // The summary names the picked solver and the resolved μ: replay builds them
  // without probing (a probe could pick another solver on a loaded machine).
  const RecordSummary summary = readRecordSummary(summaryPathFor(csv));
  EXPECT_EQ(summary.solver, sim.solverBinding().selection->picked);
  EXPECT_FALSE(summary.solver_settings.mu_auto);
  EXPECT_DOUBLE_EQ(summary.solver_settings.muValue(), sim.solverBinding().auto_mu->mu);
  const ReplayReport report = replayRecord(csv, true);
  EXPECT_TRUE(report.verified) << report.mismatch;
  EXPECT_EQ(report.steps, 80);

  // eval cannot probe consistently across processes: it asks for a name.
  EvalOptions options;
  try {
    evaluateStates(scene, csv, dir_ / "eval.csv", options);
    ADD_FAILURE() << "eval accepted solver auto";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("named solver"), std::string::npos) << e.what();
  }
}
