// `loopsim compare`, through the built binary: the Atlas comparison of the
// issue, the outputs (table CSV, series CSV, PNG of the requested size), the
// overwrite rules, bad names and the exit code of a diverging solver.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "app_process.hpp"

namespace {

namespace fs = std::filesystem;
using loopsim::test::pngSize;
using loopsim::test::ProcessResult;
using loopsim::test::readWholeFile;
using loopsim::test::runLoopsimProcess;

std::string scenePath(const std::string& name) {
  return (fs::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / name).string();
}

fs::path scratchDir(const std::string& name) { return loopsim::test::scratchDir("compare", name); }

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The table CSV as solver -> column -> text (the last column, the quoted reason, is left out).
std::map<std::string, std::map<std::string, std::string>> readTable(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream h(line);
  for (std::string cell; std::getline(h, cell, ',');) header.push_back(cell);
  std::map<std::string, std::map<std::string, std::string>> table;
  while (std::getline(in, line)) {
    std::stringstream row(line.substr(0, line.find('"')));
    std::vector<std::string> cells;
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    for (std::size_t c = 0; c < cells.size() && c < header.size(); ++c) table[cells[0]][header[c]] = cells[c];
  }
  return table;
}

}  // namespace

TEST(AppCompare, AtlasKktLtlProxLtlAgreeBelow1e9OverOneSecondAndThePlotHasTheRequestedSize) {
  const fs::path dir = scratchDir("atlas");
  const ProcessResult r = runLoopsimProcess("compare " + scenePath("atlas_standing.yaml") +
                                                " --solvers kkt,ltl,prox-ltl --duration 1 --out out --plot-size 640x400",
                                            dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "Comparison: atlas_standing, 3 solvers in lockstep, 1 s (1000 steps of 0.001 s), reference kkt"))
      << r.out;
  for (const char* column : {"median solve us", "iterations", "max closure err", "energy bal. J", "max divergence"}) {
    EXPECT_TRUE(contains(r.out, column)) << column << " in\n" << r.out;
  }
  const fs::path table_csv = dir / "out" / "atlas_standing-compare.csv";
  const fs::path series_csv = dir / "out" / "atlas_standing-compare-series.csv";
  const fs::path png = dir / "out" / "atlas_standing-compare.png";
  auto table = readTable(table_csv);
  ASSERT_EQ(table.size(), 3u) << readWholeFile(table_csv);
  EXPECT_EQ(table["kkt"]["reference"], "1");
  for (const char* solver : {"ltl", "prox-ltl"}) {
    EXPECT_EQ(table[solver]["status"], "ok");
    EXPECT_EQ(table[solver]["steps"], "1000");
    const double divergence = std::stod(table[solver]["max_divergence"]);
    EXPECT_LT(divergence, 1e-9) << solver;
    EXPECT_EQ(table[solver]["first_exceeded_time_s"], "nan") << solver;
    std::printf("[ measured ] atlas_standing 1 s: max divergence of %s from kkt = %.3e\n", solver, divergence);
  }
  // The series: a header and one row per step (1000 steps, one sample each).
  std::ifstream series(series_csv);
  std::string header, line;
  std::getline(series, header);
  EXPECT_EQ(header, "t,divergence:kkt,solve_us:kkt,divergence:ltl,solve_us:ltl,divergence:prox-ltl,solve_us:prox-ltl");
  long rows = 0;
  while (std::getline(series, line)) ++rows;
  EXPECT_EQ(rows, 1000);
  std::uint32_t width = 0, height = 0;
  ASSERT_TRUE(pngSize(png, width, height)) << png;
  EXPECT_EQ(width, 640u);
  EXPECT_EQ(height, 400u);

  // The outputs exist now: a second run refuses to replace them, --overwrite allows it.
  const ProcessResult again = runLoopsimProcess("compare " + scenePath("atlas_standing.yaml") +
                                                    " --solvers kkt,ltl --duration 0.01 --out out --plot-size 300x200",
                                                dir);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_TRUE(contains(again.err, "atlas_standing-compare.csv: file exists; refusing to overwrite it (use --overwrite)"))
      << again.err;
  EXPECT_EQ(readTable(table_csv).size(), 3u) << "the refused run changed nothing";
  const ProcessResult replaced = runLoopsimProcess("compare " + scenePath("atlas_standing.yaml") +
                                                       " --solvers kkt,ltl --duration 0.01 --out out --plot-size 300x200 --overwrite",
                                                   dir);
  EXPECT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_EQ(readTable(table_csv).size(), 2u);
  ASSERT_TRUE(pngSize(png, width, height));
  EXPECT_EQ(width, 300u);
  for (const auto& entry : fs::directory_iterator(dir / "out")) {
    EXPECT_FALSE(contains(entry.path().filename().string(), ".partial-")) << entry.path();
  }
  fs::remove_all(dir);
}

TEST(AppCompare, ADivergingSolverGivesExitCode3AndIsNamed) {
  const fs::path dir = scratchDir("diverging");
  // soft-ltl with a negligible weight lets the four-bar's loop open.
  std::string yaml = readWholeFile(scenePath("four_bar.yaml"));
  yaml.replace(yaml.find("solver: kkt"), 11, "solver: {name: kkt, soft_weight: 1e-9}");
  std::ofstream(dir / "loose.yaml") << yaml;
  const ProcessResult r = runLoopsimProcess("compare loose.yaml --solvers kkt,soft-ltl,ltl --duration 3 --quiet", dir);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.errorLine(), "loopsim: compare: diverged: soft-ltl (diverged at t = ")) << r.err;
  EXPECT_FALSE(contains(r.errorLine(), "kkt (")) << r.err;
  EXPECT_TRUE(contains(r.out, "DIVERGED")) << r.out;
  EXPECT_TRUE(fs::exists(dir / "four_bar-compare.png")) << "outputs are written for a diverged comparison too";
  auto table = readTable(dir / "four_bar-compare.csv");
  EXPECT_EQ(table["soft-ltl"]["status"], "DIVERGED");
  EXPECT_EQ(table["ltl"]["status"], "ok");
  EXPECT_EQ(table["ltl"]["steps"], "3000");
  fs::remove_all(dir);
}

TEST(AppCompare, FromATimeEverySolverStartsAtTheScenesRunThere) {
  const fs::path dir = scratchDir("from");
  const ProcessResult r = runLoopsimProcess(
      "compare " + scenePath("four_bar.yaml") + " --solvers kkt,ltl --from 0.2 --duration 0.1 --quiet", dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "2 solvers in lockstep, from t = 0.2 s, 0.1 s (100 steps of 0.001 s), reference kkt")) << r.out;
  // The series starts after 0.2 s: the comparison began there, not at the scene's start.
  std::ifstream series(dir / "four_bar-compare-series.csv");
  std::string header, first;
  std::getline(series, header);
  std::getline(series, first);
  EXPECT_NEAR(std::stod(first), 0.201, 1e-12) << first;
  const ProcessResult bad = runLoopsimProcess(
      "compare " + scenePath("four_bar.yaml") + " --solvers kkt,ltl --from -1 --duration 0.1 --overwrite --quiet", dir);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(contains(bad.err, "--from: must be a time >= 0 s")) << bad.err;
  fs::remove_all(dir);
}

TEST(AppCompare, BadNamesAndOptionsAreErrorsWithTheNearestName) {
  const fs::path dir = scratchDir("bad");
  ProcessResult r = runLoopsimProcess("compare " + scenePath("four_bar.yaml") + " --solvers kkt,ltll", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "unknown solver 'ltll' (did you mean 'ltl'?)")) << r.err;
  r = runLoopsimProcess("compare " + scenePath("four_bar.yaml") + " --solvers kkt,ltl --reference kt", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "'kt' is not one of the compared solvers (kkt, ltl)")) << r.err;
  r = runLoopsimProcess("compare " + scenePath("four_bar.yaml") + " --solvers kkt", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "compare 2 to 6 solvers (got 1)")) << r.err;
  r = runLoopsimProcess("compare " + scenePath("four_bar.yaml") + " --solvers kkt,ltl --plot-size 100x50", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "--plot-size: '100x50': width from 200, height from 150")) << r.err;
  std::ofstream(dir / "a_file") << "x";
  r = runLoopsimProcess("compare " + scenePath("four_bar.yaml") + " --solvers kkt,ltl --out a_file", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "a_file: --out: is not a directory")) << r.err;
  // Nothing was written by the refused runs.
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.path().filename() != "a_file" ? 1 : 0;
  EXPECT_EQ(files, 0u);
  // The scene may follow --solvers (one value per --solvers; repeating it adds solvers).
  r = runLoopsimProcess("compare --solvers kkt,ltl " + scenePath("four_bar.yaml") + " --duration 0.01 --quiet", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = runLoopsimProcess("compare " + scenePath("four_bar.yaml") + " --solvers kkt --solvers ltl --duration 0.01 --overwrite", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "2 solvers in lockstep")) << r.out;
  fs::remove_all(dir);
}
