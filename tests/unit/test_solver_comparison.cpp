// SolverComparison: K simulations in lockstep, their divergence from the
// reference (configuration difference), a solver that stops alone, and the
// checks on the list of solvers.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/sim/solver_comparison.hpp>
#include "sim_test_scenes.hpp"

using namespace loopsim;

namespace {

std::string scenePath(const std::string& name) {
  return (std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / name).string();
}

std::string errorOf(const Scene& scene, const std::vector<std::string>& solvers, const ComparisonOptions& options = {}) {
  try {
    SolverComparison comparison(scene, solvers, options);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SolverComparison, StepsInLockstepAndTheReferenceIsTheRunOfItsSolver) {
  const Scene scene = loadScene(scenePath("four_bar.yaml"));
  SolverComparison comparison(scene, {"ltl", "kkt", "prox-ltl"});
  EXPECT_EQ(comparison.reference().name, "kkt") << "kkt is the default reference when compared";
  EXPECT_EQ(comparison.referenceIndex(), 1);
  comparison.advanceTo(500);
  EXPECT_EQ(comparison.stepCount(), 500);
  EXPECT_DOUBLE_EQ(comparison.time(), 0.5);

  Simulation alone(scene);  // scene solver kkt
  for (int k = 0; k < 500; ++k) ASSERT_TRUE(alone.step());
  const Simulation& ref = *comparison.reference().simulation;
  ASSERT_EQ(ref.stepCount(), 500);
  for (int i = 0; i < alone.model().nq; ++i) EXPECT_EQ(ref.q()[i], alone.q()[i]) << "the reference is `run` bit for bit";

  for (const ComparedSolver& s : comparison.solvers()) {
    EXPECT_TRUE(s.running()) << s.name << ": " << s.failure;
    EXPECT_EQ(s.simulation->stepCount(), 500) << s.name;
    EXPECT_LT(s.max_divergence, 1e-9) << s.name;
    EXPECT_TRUE(std::isnan(s.first_exceeded_time)) << s.name;
    EXPECT_EQ(s.series.size(), 500u) << s.name << ": one sample per step";
    // The divergence is the configuration difference at the same time.
    VectorX d(alone.model().nv);
    difference(alone.model(), ref.q(), s.simulation->q(), d);
    EXPECT_EQ(s.divergence, d.norm()) << s.name;
    EXPECT_GT(s.recentMedianSolveUs(), 0.0) << s.name;
  }
  EXPECT_EQ(comparison.reference().max_divergence, 0.0);
}

TEST(SolverComparison, ASolverThatDivergesStopsAloneWithTheReason) {
  // soft-ltl with a negligible constraint weight lets the loop open: its
  // closure error passes the divergence threshold while kkt and ltl hold it.
  Scene scene = simtest::movingFourBar(4.0);
  scene.solver_settings.soft_weight = 1e-9;
  scene.duration = 2.0;
  ComparisonOptions options;
  options.sample_every = 10;
  SolverComparison comparison(scene, {"kkt", "soft-ltl", "ltl"}, options);
  comparison.advanceTo(2000);
  const ComparedSolver& kkt = comparison.solvers()[0];
  const ComparedSolver& soft = comparison.solvers()[1];
  const ComparedSolver& ltl = comparison.solvers()[2];
  ASSERT_FALSE(soft.running());
  EXPECT_NE(soft.failure.find("constraint violation"), std::string::npos) << soft.failure;
  EXPECT_LT(soft.failure_time, 2.0);
  EXPECT_LT(soft.simulation->stepCount(), 2000);
  EXPECT_FALSE(std::isnan(soft.first_exceeded_time));
  EXPECT_LT(soft.first_exceeded_time, soft.failure_time);
  EXPECT_GT(soft.max_divergence, 1e-3);
  EXPECT_TRUE(kkt.running());
  EXPECT_TRUE(ltl.running());
  EXPECT_EQ(kkt.simulation->stepCount(), 2000);
  EXPECT_EQ(ltl.simulation->stepCount(), 2000);
  EXPECT_LT(ltl.max_divergence, 1e-9);
  EXPECT_EQ(ltl.series.size(), 200u) << "one sample per 10 steps";
  EXPECT_LE(soft.series.back().time, soft.failure_time + scene.dt);
}

TEST(SolverComparison, TheDefaultReferenceIsKktElseTheFirstExactSolver) {
  EXPECT_EQ(SolverComparison::defaultReference({"ltl", "kkt"}), "kkt");
  EXPECT_EQ(SolverComparison::defaultReference({"soft-ltl", "prox-ltl", "ltl"}), "prox-ltl");
  EXPECT_EQ(SolverComparison::defaultReference({"soft-ltl", "pv-soft"}), "soft-ltl");
}

TEST(SolverComparison, RefusesBadListsNamingTheProblem) {
  const Scene scene = loadScene(scenePath("four_bar.yaml"));
  EXPECT_NE(errorOf(scene, {"kkt"}).find("compare 2 to 6 solvers (got 1)"), std::string::npos);
  EXPECT_NE(errorOf(scene, {"kkt", "ltl", "prox-ltl", "soft-ltl", "lcaba", "prox-bbo", "constrained-aba"})
                .find("(got 7)"),
            std::string::npos);
  EXPECT_NE(errorOf(scene, {"kkt", "kkt"}).find("'kkt' is listed twice"), std::string::npos);
  const std::string unknown = errorOf(scene, {"kkt", "ltll"});
  EXPECT_NE(unknown.find("unknown solver 'ltll' (did you mean 'ltl'?)"), std::string::npos) << unknown;
  ComparisonOptions options;
  options.reference = "prox-ltl";
  EXPECT_NE(errorOf(scene, {"kkt", "ltl"}, options).find("'prox-ltl' is not one of the compared solvers (kkt, ltl)"),
            std::string::npos);
  const Scene redundant = loadScene(scenePath("redundant_four_bar.yaml"));
  const std::string refused = errorOf(redundant, {"prox-ltl", "ltl"});
  EXPECT_NE(refused.find("ltl"), std::string::npos) << refused;
  EXPECT_NE(refused.find("redundant"), std::string::npos) << refused;
}

TEST(SolverComparison, RestoringPastStatesDropsTheFutureAndRepeatsItBitForBit) {
  const Scene scene = loadScene(scenePath("four_bar.yaml"));
  SolverComparison comparison(scene, {"kkt", "ltl", "prox-ltl"});
  comparison.advanceTo(120);
  std::vector<SimulationSnapshot> past(3);
  for (std::size_t i = 0; i < 3; ++i) comparison.solvers()[i].simulation->snapshot(past[i]);
  comparison.advanceTo(300);
  std::vector<VectorX> first_run;
  for (const ComparedSolver& s : comparison.solvers()) first_run.push_back(s.simulation->q());

  comparison.restore(past);
  EXPECT_EQ(comparison.stepCount(), 120);
  EXPECT_DOUBLE_EQ(comparison.time(), 0.12);
  for (const ComparedSolver& s : comparison.solvers()) {
    EXPECT_EQ(s.series.size(), 120u) << s.name << ": the samples after the restored state are dropped";
    EXPECT_EQ(s.simulation->stepCount(), 120) << s.name;
  }
  EXPECT_EQ(comparison.solvers()[1].divergence, (comparison.solvers()[1].simulation->q() - comparison.solvers()[0].simulation->q()).norm())
      << "the divergence at the restored state (revolute joints: the difference is q_ltl - q_kkt)";
  comparison.advanceTo(300);
  EXPECT_EQ(comparison.stepCount(), 300);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(comparison.solvers()[i].simulation->q(), first_run[i]) << comparison.solvers()[i].name << ": direct, bit for bit";
  }
  // prox-ltl restarts cold (no warm start from the dropped future): the same motion to its tolerance.
  EXPECT_LT((comparison.solvers()[2].simulation->q() - first_run[2]).norm(), 1e-9);
  EXPECT_EQ(comparison.solvers()[0].series.size(), 300u);

  // Wrong count, or states of different times: refused, naming the problem.
  EXPECT_THROW(comparison.restore(std::span(past.data(), 2)), ModelError);
  past[2].steps = 121;
  EXPECT_THROW(comparison.restore(past), ModelError);
}

TEST(SolverComparison, AComparisonFromAnotherSimulationsStateContinuesItsRun) {
  const Scene scene = loadScene(scenePath("four_bar.yaml"));  // solver kkt
  Simulation alone(scene);
  for (int k = 0; k < 150; ++k) ASSERT_TRUE(alone.step());
  SimulationSnapshot here;
  alone.snapshot(here);
  SolverComparison comparison(scene, {"ltl", "kkt"});
  comparison.restore(std::span(&here, 1));
  EXPECT_EQ(comparison.stepCount(), 150);
  for (const ComparedSolver& s : comparison.solvers()) EXPECT_EQ(s.simulation->q(), alone.q()) << s.name;
  comparison.advanceTo(400);
  for (int k = 150; k < 400; ++k) ASSERT_TRUE(alone.step());
  EXPECT_EQ(comparison.reference().simulation->q(), alone.q()) << "kkt from the state at 0.15 s is the run of kkt, bit for bit";
  EXPECT_LT(comparison.solvers()[0].max_divergence, 1e-9);
}

TEST(SolverComparison, RestoringRevivesASolverOnlyBeforeItStopped) {
  Scene scene = simtest::movingFourBar(4.0);
  scene.solver_settings.soft_weight = 1e-9;  // soft-ltl lets the loop open and stops (see above)
  scene.duration = 2.0;
  SolverComparison comparison(scene, {"kkt", "soft-ltl"});
  comparison.advanceTo(10);
  std::vector<SimulationSnapshot> early(2), late(2);
  for (std::size_t i = 0; i < 2; ++i) comparison.solvers()[i].simulation->snapshot(early[i]);
  comparison.advanceTo(2000);
  const ComparedSolver& soft = comparison.solvers()[1];
  ASSERT_FALSE(soft.running());
  const double stopped_at = soft.failure_time;
  // After it stopped: its last state (of an earlier step) is passed at the time of the others, as the GUI's history does.
  for (std::size_t i = 0; i < 2; ++i) comparison.solvers()[i].simulation->snapshot(late[i]);
  late[1].steps = late[0].steps;
  comparison.restore(late);
  EXPECT_FALSE(soft.running()) << "stopped before the restored time: stays stopped";
  EXPECT_EQ(soft.failure_time, stopped_at);
  comparison.restore(early);
  EXPECT_TRUE(soft.running()) << "restored before it stopped: runs again";
  EXPECT_TRUE(soft.failure.empty());
  EXPECT_TRUE(std::isnan(soft.failure_time));
  EXPECT_EQ(soft.simulation->stepCount(), 10);
  comparison.advanceTo(2000);
  EXPECT_FALSE(soft.running()) << "and stops again";
  EXPECT_NEAR(soft.failure_time, stopped_at, 1e-12) << "at the same time: the same run";
}
