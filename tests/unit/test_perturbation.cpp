// An external wrench on one body (Simulation::setPerturbation, the GUI's mouse
// perturbation): it moves the run, its work is booked, and a record with the
// perturbation group replays bit for bit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "model/errors.hpp"
#include "record/record_row.hpp"
#include "record/recorder.hpp"
#include "record/replay.hpp"
#include "scene/scene_loader.hpp"
#include "sim/simulation.hpp"

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
  RecordOptions options;
  options.groups = defaultRecordGroups();
  options.groups.push_back("perturbation");
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
  std::filesystem::remove(csv);
  std::filesystem::remove(summaryPathFor(csv));
  EXPECT_THROW(perturbed.setPerturbation(0, Force()), ModelError) << "the world is not a moving body";
  EXPECT_THROW(perturbed.setPerturbation(4, Force()), ModelError);
}
