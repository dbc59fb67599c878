// Resuming a simulation from a past state (Simulation::snapshot / restore)
// and the ring of past states the GUI keeps (StateHistory).
#include <gtest/gtest.h>

#include <filesystem>

#include "allocation_counter.hpp"
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/sim/state_history.hpp>
#include "sim_test_scenes.hpp"

using namespace loopsim;

namespace {

std::string scenePath(const std::string& name) {
  return (std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / name).string();
}

}  // namespace

TEST(StateHistory, ResumingFromAPastStateReplaysTheDroppedFutureBitForBit) {
  for (const char* file : {"four_bar.yaml", "atlas_standing.yaml"}) {
    const Scene scene = loadScene(scenePath(file));
    Simulation original(scene);
    StateHistory history(original.model().nq, original.model().nv, 2000);
    history.push(original);
    for (int k = 0; k < 600; ++k) {
      ASSERT_TRUE(original.step());
      history.push(original);
    }
    ASSERT_EQ(history.size(), 601u);
    const double balance = original.energy().balance();

    // Back to step 200, then the same 400 steps again: the same states, the same energy balance.
    Simulation resumed(scene);
    for (int k = 0; k < 450; ++k) ASSERT_TRUE(resumed.step());  // a different future, dropped
    SimulationSnapshot past;
    history.get(200, past);
    EXPECT_EQ(past.steps, 200);
    EXPECT_DOUBLE_EQ(past.time, 0.2);
    resumed.restore(past);
    EXPECT_EQ(resumed.stepCount(), 200);
    for (int k = 0; k < 400; ++k) ASSERT_TRUE(resumed.step());
    EXPECT_EQ(resumed.stepCount(), 600);
    EXPECT_EQ(resumed.time(), original.time());
    for (int i = 0; i < original.model().nq; ++i) ASSERT_EQ(resumed.q()[i], original.q()[i]) << file << " q " << i;
    for (int i = 0; i < original.model().nv; ++i) ASSERT_EQ(resumed.v()[i], original.v()[i]) << file << " v " << i;
    EXPECT_EQ(resumed.energy().balance(), balance) << file;
  }
}

TEST(StateHistory, KeepsTheLastStatesAndDropsTheFutureOnRequest) {
  Scene scene = simtest::movingFourBar(4.0);
  Simulation sim(scene);
  StateHistory history(sim.model().nq, sim.model().nv, 100);
  history.push(sim);
  for (int k = 0; k < 249; ++k) {
    ASSERT_TRUE(sim.step());
    history.push(sim);
  }
  ASSERT_EQ(history.size(), 100u);
  EXPECT_EQ(history.step(0), 150) << "the oldest kept";
  EXPECT_EQ(history.step(99), 249);
  EXPECT_EQ(history.q(99), sim.q());
  EXPECT_EQ(history.indexAt(history.time(40)), 40u);
  EXPECT_EQ(history.indexAt(history.time(40) + 0.5 * scene.dt), 40u);
  EXPECT_EQ(history.indexAt(-1.0), 0u);
  EXPECT_EQ(history.indexAt(1e9), 99u);
  history.truncateAfter(59);
  EXPECT_EQ(history.size(), 60u);
  EXPECT_EQ(history.step(59), 209);
  ASSERT_TRUE(sim.step());
  history.push(sim);
  EXPECT_EQ(history.size(), 61u);
  EXPECT_EQ(history.step(60), 250);
  // Pushing never allocates.
  EXPECT_EQ(test::countHeapAllocations([&] {
              for (int k = 0; k < 10; ++k) history.push(sim);
            }),
            0);
  EXPECT_EQ(StateHistory::capacityFor(10.0, 1e-3, 7, 6), 10001u);
  EXPECT_EQ(StateHistory::capacityFor(10.0, 1e-3, 7, 6, 8.0 * 17 * 100), 100u) << "capped by memory";
}
