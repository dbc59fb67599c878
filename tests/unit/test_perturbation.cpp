// An external wrench on one body (Simulation::setPerturbation, the GUI's mouse
// perturbation): it moves the run, its work is booked, and a record with the
// perturbation group replays bit for bit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include <loopsim/model/errors.hpp>
#include <loopsim/record/record_row.hpp>
#include <loopsim/record/recorder.hpp>
#include <loopsim/record/replay.hpp>
#include <loopsim/record/state_evaluation.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>

using namespace loopsim;

namespace {

std::string scenePath(const std::string& name) {
  return (std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / name).string();
}

}  // namespace

TEST(Perturbation, AWrenchMovesTheRunAndAPerturbedRecordReplaysBitForBit) {
  const Scene scene = loadScene(scenePath("four_bar.yaml"));
  const std::filesystem::path csv =
      std::filesystem::temp_directory_path() / ("loopsim_perturbation_" + std::to_string(::getpid()) + ".csv");
  Simulation free_run(scene), perturbed(scene);
  RecordOptions options;  // the default groups: `run --record` and the GUI write the perturbation columns
  {
    SimulationRecorder recorder(perturbed, csv, false, options);
    for (int k = 0; k < 300; ++k) {
      // 100 steps of a varying push on the coupler (body 2), then none.
      if (k == 50) perturbed.setPerturbation(2, Force(Vector3(0.0, 0.5, 0.0), Vector3(20.0, 0.0, 0.0)));
      if (k > 50 && k < 150) perturbed.setPerturbation(2, Force(Vector3::Zero(), Vector3(20.0 + 0.1 * k, -3.0, 0.0)));
      if (k == 150) perturbed.clearPerturbation();
      ASSERT_TRUE(recorder.step(perturbed));
      ASSERT_TRUE(free_run.step());
    }
    recorder.finish(perturbed, "test");
  }
  EXPECT_GT((perturbed.q() - free_run.q()).norm(), 1e-3) << "the push moved the mechanism";
  EXPECT_EQ(perturbed.perturbedBody(), 0);
  // Its work is booked: the energy balance stays at the unperturbed run's order.
  EXPECT_LT(std::abs(perturbed.energy().balance()), 10.0 * std::abs(free_run.energy().balance()) + 1e-3)
      << "perturbed " << perturbed.energy().balance() << ", free " << free_run.energy().balance();
  const ReplayReport report = replayRecord(csv, true);
  EXPECT_TRUE(report.verified) << report.mismatch;
  EXPECT_EQ(report.rows_compared, 301);
  // eval applies no external wrench: it refuses the pushed rows rather than give another v̇ (the first is row 50).
  const std::filesystem::path evaluated = std::filesystem::path(csv).replace_extension(".eval.csv");
  try {
    evaluateStates(scene, csv, evaluated, EvalOptions{});
    ADD_FAILURE() << "expected a refusal";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("line 52"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the record's step pushed body 2 (perturbation:body"), std::string::npos) << e.what();
  }
  std::filesystem::remove(evaluated);
  std::filesystem::remove(csv);
  std::filesystem::remove(summaryPathFor(csv));
  EXPECT_THROW(perturbed.setPerturbation(0, Force()), ModelError) << "the world is not a moving body";
  EXPECT_THROW(perturbed.setPerturbation(4, Force()), ModelError);
}

TEST(Perturbation, APerturbedRecordWithSkippedRowsIsRefusedByReplay) {
  // Rows skipped by --record-every hide their steps' wrench: replay would silently run another motion.
  const Scene scene = loadScene(scenePath("four_bar.yaml"));
  const std::filesystem::path csv =
      std::filesystem::temp_directory_path() / ("loopsim_perturbation_every_" + std::to_string(::getpid()) + ".csv");
  Simulation sim(scene);
  {
    SimulationRecorder recorder(sim, csv, false, {.every = 3, .groups = {}});
    for (int k = 0; k < 30; ++k) {
      if (k == 10) sim.setPerturbation(2, Force(Vector3::Zero(), Vector3(20.0, 0.0, 0.0)));
      ASSERT_TRUE(recorder.step(sim));
    }
    recorder.finish(sim, "test");
  }
  try {
    replayRecord(csv, true);
    ADD_FAILURE() << "expected a refusal";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("a perturbed record needs every step's row to replay (--record-every 1)"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove(csv);
  std::filesystem::remove(summaryPathFor(csv));
}
