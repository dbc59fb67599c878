// `loopsim bench --loop-scaling` (paper 001 Figs. 6-9): the families reach
// 200+ links, the fit recovers a known exponent from the largest sizes only,
// and the CLI prints every family's rows and an exponent per column on tiny
// sizes (a few seconds: 1 state, 1 round).
#include "app_process.hpp"
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <loopsim/bench/loop_scaling.hpp>
#include <loopsim/bench/power_law_fit.hpp>

using namespace loopsim;

namespace {

namespace fs = std::filesystem;
using loopsim::test::ProcessResult;
using loopsim::test::runLoopsimProcess;

fs::path scratchDir(const std::string& name) { return loopsim::test::scratchDir("loop_scaling", name); }

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

LoopScalingPoint point(const std::string& family, int links, const std::string& solver, const std::string& mode,
                       double us) {
  LoopScalingPoint p;
  p.family = family;
  p.size_name = "n";
  p.size = links;
  p.links = links;
  p.result.solver = solver;
  p.result.mode = mode;
  p.result.median_us = us;
  return p;
}

}  // namespace

TEST(LoopScaling, PowerLawFitRecoversTheExponentOfExactData) {
  std::vector<std::pair<double, double>> xy;
  for (double n : {8.0, 20.0, 50.0, 130.0}) xy.push_back({n, 0.7 * std::pow(n, 1.37)});
  EXPECT_NEAR(fitPowerLawExponent(xy), 1.37, 1e-12);
  EXPECT_EQ(fitPowerLawExponent({{10.0, 1.0}}), 0.0);  // one size: no slope
}

TEST(LoopScaling, FitUsesOnlyTheLargestSizesPerFamilyAndColumn) {
  // Linear below 32 links, n^2.5 from there: only a fit over the 4 largest
  // sizes (32..256) gives 2.5; the sizes are listed out of order on purpose.
  std::vector<LoopScalingPoint> points;
  for (int n : {256, 8, 64, 16, 128, 32}) {
    const double t = n < 32 ? 10.0 * n : 10.0 * 32 * std::pow(n / 32.0, 2.5);
    points.push_back(point("cycle", n, "prox-bbo", "1 iter", t));
    points.back().result.ratio_to_aba = t / (0.1 * n);
    points.push_back(point("cycle", n, "aba", "unconstrained", 0.1 * n));
    points.back().result.ratio_to_aba = 1.0;
    points.push_back(point("ladderish", n, "prox-bbo", "1 iter", 3.0 * n));
  }
  LoopScalingPoint skipped = point("cycle", 512, "prox-bbo", "1 iter", 0.0);
  skipped.result.note = "needs something";
  points.push_back(skipped);
  const auto fits = fitLoopScaling(points, 4);
  ASSERT_EQ(fits.size(), 3u);
  std::map<std::string, LoopScalingFit> by_key;
  for (const auto& f : fits) by_key[f.family + "/" + f.column] = f;
  ASSERT_TRUE(by_key.contains("cycle/prox-bbo 1 iter"));
  const LoopScalingFit& bbo = by_key["cycle/prox-bbo 1 iter"];
  EXPECT_NEAR(bbo.exponent, 2.5, 1e-12);
  EXPECT_EQ(bbo.from_links, 32);
  EXPECT_EQ(bbo.to_links, 256);  // the skipped 512 is not a size of this column
  EXPECT_EQ(bbo.sizes, 4);
  EXPECT_NEAR(bbo.last_step_exponent, 2.5, 1e-12);
  EXPECT_NEAR(bbo.ratio_exponent, 1.5, 1e-12);
  EXPECT_NEAR(by_key["cycle/aba"].ratio_exponent, 0.0, 1e-12);
  EXPECT_NEAR(by_key["cycle/aba"].exponent, 1.0, 1e-12);
  EXPECT_NEAR(by_key["ladderish/prox-bbo 1 iter"].exponent, 1.0, 1e-12);
  // Over all six sizes the kink pulls the exponent down; the last step is still 2.5.
  EXPECT_LT(fitLoopScaling(points, 6).front().exponent, 2.3);
  // Only the last step: a steeper top shows there and barely in the 4-size fit.
  points.push_back(point("cycle", 512, "prox-bbo", "1 iter", 10.0 * 32 * std::pow(8.0, 2.5) * 8.0));
  const LoopScalingFit steeper = fitLoopScaling(points, 4).front();
  EXPECT_NEAR(steeper.last_step_exponent, 3.0, 1e-12);
  EXPECT_EQ(steeper.from_links, 64);
  EXPECT_EQ(steeper.to_links, 512);
}

TEST(LoopScaling, FamiliesAreFigures6To9FromSmallTo200PlusLinks) {
  const std::vector<std::string> expected = {"cycle", "chain_of_loops", "coupled_worst_case", "favourable_branching",
                                             "favourable_branching_grounded"};
  const std::vector<std::string> figures = {"paper 001 Fig. 6", "paper 001 Fig. 7", "paper 001 Fig. 8",
                                            "paper 001 Fig. 9", "paper 001 Fig. 9, hub fixed"};
  const auto& families = loopScalingFamilies();
  ASSERT_EQ(families.size(), expected.size());
  for (std::size_t k = 0; k < families.size(); ++k) {
    const LoopScalingFamily& f = families[k];
    EXPECT_EQ(f.name, expected[k]);
    EXPECT_EQ(f.figure, figures[k]);
    ASSERT_GE(f.sizes.size(), 6u) << f.name;
    const int smallest = f.make(f.sizes.front()).model.njoints();
    const int largest = f.make(f.sizes.back()).model.njoints();
    EXPECT_LE(smallest, 16) << f.name;
    EXPECT_GE(largest, 200) << f.name;
    EXPECT_LE(largest, 400) << f.name;  // keeps the default run short
  }
}

TEST(LoopScaling, CliPrintsEveryFamilyAndSolverAndAnExponentPerColumn) {
  const fs::path dir = scratchDir("csv");
  const ProcessResult r =
      runLoopsimProcess("bench --loop-scaling --max-links 30 --samples 1 --iterations 1 --format csv", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line,
            "family,size_parameter,size,links,constraint_dim,solver,mode,median_us,iqr_us,ratio_to_aba,mean_iterations,"
            "max_vdot_deviation,note");
  const std::vector<std::string> columns = {"aba",          "lcaba 1 iter", "lcaba tol 1e-10", "prox-bbo 1 iter",
                                            "prox-bbo tol 1e-10", "prox-ltl 1 iter", "prox-ltl tol 1e-10", "ltl", "kkt"};
  std::set<std::string> rows, fits;
  std::map<std::string, std::set<int>> links;
  while (std::getline(lines, line)) {
    if (line.rfind("# fit ", 0) == 0) {
      fits.insert(line.substr(6, line.find(':') - 6));
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    ASSERT_GE(cells.size(), 8u) << line;
    const std::string column = cells[6] == "direct" || cells[6] == "unconstrained" ? cells[5] : cells[5] + " " + cells[6];
    rows.insert(cells[0] + " " + column);
    links[cells[0]].insert(std::stoi(cells[3]));
    EXPECT_GT(std::stod(cells[7]), 0.0) << line;
  }
  for (const auto& family : loopScalingFamilies()) {
    for (const auto& column : columns) {
      EXPECT_TRUE(rows.contains(family.name + " " + column)) << family.name << " " << column << "\n" << r.out;
      EXPECT_TRUE(fits.contains(family.name + " " + column)) << family.name << " " << column << "\n" << r.out;
    }
    EXPECT_GE(links[family.name].size(), 2u) << family.name;
    for (int n : links[family.name]) EXPECT_LE(n, 30) << family.name;
  }
  // chain_of_loops keeps 8, 15 and 29 links: its fits say so.
  EXPECT_TRUE(contains(r.out, "# fit chain_of_loops lcaba 1 iter: time ~ links^")) << r.out;
  EXPECT_TRUE(contains(r.out, ", ratio to aba ~ links^")) << r.out;
  EXPECT_TRUE(contains(r.out, "(links 8..29, 3 largest sizes; last step ^")) << r.out;
  fs::remove_all(dir);
}

TEST(LoopScaling, CliTablePrintsTheExponentsUnderEachFamily) {
  const fs::path dir = scratchDir("table");
  const ProcessResult r = runLoopsimProcess(
      "bench --loop-scaling --family favourable_branching --solver lcaba --max-links 30 --samples 1 --iterations 1",
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto table = r.out.find("favourable_branching (paper 001 Fig. 9)");
  const auto fit = r.out.find("fit favourable_branching lcaba 1 iter: time ~ links^");
  ASSERT_NE(table, std::string::npos) << r.out;
  ASSERT_NE(fit, std::string::npos) << r.out;
  EXPECT_LT(table, fit);
  EXPECT_TRUE(contains(r.out, "m_b=3 (19 links, m=12)")) << r.out;
  EXPECT_FALSE(contains(r.out, "cycle")) << r.out;
  EXPECT_FALSE(contains(r.out, "prox-bbo")) << r.out;
  fs::remove_all(dir);
}

TEST(LoopScaling, CliRejectsBadValuesWithTheOptionNamed) {
  const fs::path dir = scratchDir("errors");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bench --loop-scaling --family cycel", "unknown loop-scaling family 'cycel'"},
      {"bench --loop-scaling --max-links 9", "--max-links: 9 leaves"},
      {"bench --family cycle", "--family: applies to --loop-scaling"},
      {"bench --max-links 50", "--max-links: applies to --loop-scaling"},
      {"bench --loop-scaling --format json", "--loop-scaling writes table or csv"},
      {"bench --loop-scaling --scaling", "--loop-scaling: brings its own cases"},
      {"bench --loop-scaling --max-links 0", "--max-links: must be a positive number of links, got 0"},
      {"bench --trajectory --table2", "--trajectory: times the scenes' own simulations"},
  };
  for (const auto& [arguments, message] : cases) {
    const ProcessResult r = runLoopsimProcess(arguments, dir);
    EXPECT_NE(r.exit_code, 0) << arguments;
    EXPECT_TRUE(contains(r.err, message)) << arguments << "\n" << r.err;
  }
  fs::remove_all(dir);
}
