// `loopsim bench --dynamics`: RNEA and CRBA timed as columns beside the ABA
// floor, interleaved with it, so issue 8 §4's ratios come from the bench.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <loopsim/bench/solver_benchmark.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

namespace loopsim {

TEST(BenchDynamics, RneaAndCrbaColumnsOnlyWhenAskedWithTheirRatiosToAba) {
  test::QuietLog quiet;
  const Scene scene = loadScene(test::scenesDir() / "four_bar.yaml");
  BenchOptions options;
  options.samples = 4;
  options.rounds = 3;
  options.warmup_rounds = 0;
  options.solvers = {"ltl"};
  auto has = [](const std::vector<BenchResult>& results, const std::string& name) {
    return std::any_of(results.begin(), results.end(), [&](const BenchResult& r) { return r.solver == name; });
  };
  const std::vector<BenchResult> plain = benchmarkScene(scene, options);
  EXPECT_FALSE(has(plain, "rnea"));
  EXPECT_FALSE(has(plain, "crba"));

  options.dynamics_algorithms = true;
  const std::vector<BenchResult> results = benchmarkScene(scene, options);
  for (const std::string name : {"rnea", "crba"}) {
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

}  // namespace loopsim
