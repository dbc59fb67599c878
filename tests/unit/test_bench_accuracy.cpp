// `loopsim bench` times the penalty solvers at the μ a simulation would bind
// (their default mu: auto) and prints every iterative cell with its accuracy.
#include <gtest/gtest.h>

#include <string>

#include <loopsim/bench/solver_benchmark.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/solver.hpp>
#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

namespace loopsim {

TEST(BenchAccuracy, PenaltySolversRunAtAutoAndCellsCarryIterationsAndError) {
  test::QuietLog quiet;
  const Scene scene = loadScene(test::scenesDir() / "four_bar.yaml");
  BenchOptions options;
  options.samples = 4;
  options.rounds = 2;
  options.warmup_rounds = 0;
  options.solvers = {"lcaba", "prox-bbo"};
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

}  // namespace loopsim
