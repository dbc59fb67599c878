// `loopsim bench`'s solver table: the penalty solvers timed at the μ a
// simulation would bind (their default mu: auto), every iterative cell printed
// with its accuracy, and `--dynamics`' RNEA and CRBA columns beside the ABA
// floor (their ratios to it from the bench itself), and `--trajectory`'s
// states from the scene's own simulation with a warm-started column.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <loopsim/bench/scaling_benchmark.hpp>
#include <loopsim/bench/solver_benchmark.hpp>
#include <loopsim/bench/state_sampling.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/solvers/solver.hpp>
#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

namespace loopsim {
namespace {

// A few states and rounds: these tests check the table, not the timing.
BenchOptions quickBench(std::vector<std::string> solvers, int rounds) {
  BenchOptions options;
  options.samples = 4;
  options.rounds = rounds;
  options.warmup_rounds = 0;
  options.solvers = std::move(solvers);
  return options;
}

}  // namespace

TEST(BenchAccuracy, PenaltySolversRunAtAutoAndCellsCarryIterationsAndError) {
  test::QuietLog quiet;
  const Scene scene = loadScene(test::scenesDir() / "four_bar.yaml");
  const BenchOptions options = quickBench({"lcaba", "prox-bbo"}, 2);
  const std::vector<BenchResult> results = benchmarkScene(scene, options);
  int lcaba_cells = 0;
  for (const BenchResult& r : results) {
    if (r.solver == "lcaba") {
      ++lcaba_cells;
      EXPECT_GT(r.mu, 0.0);
      EXPECT_LT(r.mu, kDefaultMu / 100.0) << "lcaba timed at the old default, not at auto";
      EXPECT_GE(r.max_vdot_deviation, 0.0) << r.mode;
      if (r.mode.rfind("tol", 0) == 0) {
        EXPECT_LE(r.max_vdot_deviation, 1e-8) << "at mu " << r.mu;
      }
    }
    if (r.solver == "prox-bbo") {
      EXPECT_DOUBLE_EQ(r.mu, kDefaultMu) << r.mode;
    }
  }
  EXPECT_EQ(lcaba_cells, 3);  // tolerance, 1 and 3 iterations
  const std::string table = formatBenchTable(results);
  EXPECT_NE(table.find(" it, e "), std::string::npos) << table;  // "(4.0 it, e 1e-10)"
  EXPECT_NE(table.find("(e "), std::string::npos) << table;      // fixed iterations: "(e 2e-06)"
  EXPECT_NE(table.find("start cold"), std::string::npos) << table;
  EXPECT_NE(table.find("μ as run:"), std::string::npos) << table;
  EXPECT_NE(formatBenchCsv(results).find(",threads,mu\n"), std::string::npos);
}

TEST(BenchDynamics, RneaAndCrbaColumnsOnlyWhenAskedWithTheirRatiosToAba) {
  test::QuietLog quiet;
  const Scene scene = loadScene(test::scenesDir() / "four_bar.yaml");
  BenchOptions options = quickBench({"ltl"}, 3);
  auto has = [](const std::vector<BenchResult>& results, const std::string& name) {
    return std::any_of(results.begin(), results.end(), [&](const BenchResult& r) { return r.solver == name; });
  };
  const std::vector<BenchResult> plain = benchmarkScene(scene, options);
  EXPECT_FALSE(has(plain, "rnea"));
  EXPECT_FALSE(has(plain, "crba"));
  EXPECT_FALSE(has(plain, "crba-lower"));

  options.dynamics_algorithms = true;
  const std::vector<BenchResult> results = benchmarkScene(scene, options);
  for (const std::string name : {"rnea", "crba", "crba-lower"}) {
    const auto it = std::find_if(results.begin(), results.end(), [&](const BenchResult& r) { return r.solver == name; });
    ASSERT_NE(it, results.end()) << name;
    EXPECT_EQ(it->mode, "unconstrained");
    EXPECT_TRUE(it->note.empty()) << it->note;
    EXPECT_GT(it->median_us, 0.0) << name;
    EXPECT_TRUE(std::isfinite(it->ratio_to_aba) && it->ratio_to_aba > 0.0) << name << " " << it->ratio_to_aba;
  }
  EXPECT_TRUE(has(results, "ltl"));
  const std::string table = formatBenchTable(results);
  EXPECT_NE(table.find("crba"), std::string::npos) << table;
  EXPECT_NE(table.find("rnea, crba (--dynamics)"), std::string::npos) << table;
  EXPECT_EQ(formatBenchTable(plain).find("rnea, crba (--dynamics)"), std::string::npos);
}

// --trajectory: the states are the scene's own steps, bit for bit, with the
// controller's τ of each step; iterative solvers gain a column warm-started
// from the previous state's λ, which takes fewer iterations than the cold one
// to the same tolerance and accuracy (four_bar's lcaba: 3.2 against 4.0).
TEST(BenchTrajectory, StatesAreTheScenesOwnStepsAndTheWarmColumnStartsFromTheLastLambda) {
  test::QuietLog quiet;
  const Scene scene = loadScene(test::scenesDir() / "four_bar.yaml");
  const std::vector<SampledState> states = simulatedStates(scene, 5);
  ASSERT_EQ(states.size(), 5u);
  Simulation sim(scene);
  for (const SampledState& s : states) {
    EXPECT_EQ(s.q, sim.q());
    EXPECT_EQ(s.v, sim.v());
    ASSERT_TRUE(sim.step());
    EXPECT_EQ(s.tau, sim.appliedTorque());
  }
  EXPECT_NE(states.front().q, states.back().q) << "the four-bar does not move: the test would not see the order";

  BenchOptions options = quickBench({"lcaba"}, 2);
  options.samples = 8;
  const std::vector<BenchResult> sampled = benchmarkScene(scene, options);
  EXPECT_FALSE(std::any_of(sampled.begin(), sampled.end(),
                           [](const BenchResult& r) { return r.mode.rfind("warm", 0) == 0; }))
      << "a warm column without --trajectory";
  options.trajectory = true;
  const std::vector<BenchResult> results = benchmarkScene(scene, options);
  const BenchResult *cold = nullptr, *warm = nullptr;
  for (const BenchResult& r : results) {
    if (r.solver == "lcaba" && r.mode == "tol 1e-10") cold = &r;
    if (r.solver == "lcaba" && r.mode == "warm tol 1e-10") warm = &r;
  }
  ASSERT_NE(cold, nullptr);
  ASSERT_NE(warm, nullptr);
  EXPECT_LT(warm->mean_iterations, cold->mean_iterations);
  EXPECT_GE(warm->max_vdot_deviation, 0.0);
  EXPECT_LE(warm->max_vdot_deviation, 1e-8);
  EXPECT_GT(warm->median_us, 0.0);
  const std::string table = formatBenchTable(results);
  EXPECT_NE(table.find("lcaba warm tol 1e-10"), std::string::npos) << table;
  EXPECT_NE(table.find("trajectory: the states are the first steps"), std::string::npos) << table;
}

// `bench --scaling` with its default solvers: every registered solver that
// takes the generated chains and ladders, without the ones that need declared
// independent coordinates (cluster-aba once broke the whole command), which
// are refused by name when asked for.
TEST(BenchScaling, DefaultSolversRunAndClusterAbaIsRefusedByName) {
  BenchOptions options;
  options.samples = 2;
  options.rounds = 1;
  options.warmup_rounds = 0;
  const std::vector<ScalingPoint> points = benchmarkScaling(options);
  auto timed = [&](const std::string& solver) {
    return std::any_of(points.begin(), points.end(), [&](const ScalingPoint& p) { return p.solver == solver; });
  };
  EXPECT_TRUE(timed("aba"));
  EXPECT_TRUE(timed("pv"));
  EXPECT_TRUE(timed("pv-soft"));
  EXPECT_TRUE(timed("ltl"));
  EXPECT_FALSE(timed("cluster-aba"));
  for (const ScalingPoint& p : points) EXPECT_TRUE(std::isfinite(p.median_us) && p.median_us > 0.0) << p.solver;
  try {
    benchmarkScaling(options, {"pv", "cluster-aba"});
    ADD_FAILURE() << "cluster-aba accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("'cluster-aba' needs declared independent coordinates"), std::string::npos)
        << e.what();
  }
}

}  // namespace loopsim
