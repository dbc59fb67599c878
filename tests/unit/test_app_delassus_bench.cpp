// `loopsim delassus --damping` and `loopsim bench --table2`, through the built
// binary, and the Table II cases they build (paper 000 Table II).
#include "command_output.hpp"
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <loopsim/bench/delassus_benchmark.hpp>
#include <loopsim/bench/paper_table_cases.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/delassus/damped_delassus.hpp>
#include <loopsim/scene/scene_loader.hpp>

using namespace loopsim;

namespace {

using Output = loopsim::test::CommandOutput;

Output runLoopsim(const std::string& arguments) {
  return loopsim::test::runCommand(std::string(LOOPSIM_BINARY) + " " + arguments);
}

std::filesystem::path scenesDir() { return std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes"; }

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The numbers of the printed matrix (lines after the header: a row's name, then m values).
MatrixX parseMatrix(const std::string& text, int m) {
  MatrixX out = MatrixX::Constant(m, m, std::nan(""));
  std::istringstream lines(text);
  std::string line;
  int row = 0;
  bool after_header = false;  // the log (stderr) may come first
  while (std::getline(lines, line) && row < m) {
    if (!line.empty() && line[0] == '#') after_header = true;
    if (line.empty() || line[0] == '#' || !after_header) continue;
    // The row's name has spaces: its values are the line's last m tokens.
    std::istringstream cells(line);
    std::vector<std::string> tokens;
    for (std::string token; cells >> token;) tokens.push_back(token);
    if (static_cast<int>(tokens.size()) < m) continue;
    for (int c = 0; c < m; ++c) out(row, c) = std::stod(tokens[tokens.size() - static_cast<std::size_t>(m - c)]);
    ++row;
  }
  return out;
}

}  // namespace

TEST(AppDelassus, DampingPrintsTheDampedInverseByEveryAlgorithmAndPvOsimFast) {
  const auto scene_path = scenesDir() / "go1_standing.yaml";
  const Scene scene = loadScene(scene_path);
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  VectorX q = scene.q0, v = scene.v0;
  makeConsistent(set, q, v, scene.held_joints);
  const double mu = 1e3;
  const MatrixX reference = computeDampedDelassusInverse(set, q, "dense", mu);
  for (const std::string algorithm : {"dense", "pv-osimr", "pv-osim-fast"}) {
    const Output out = runLoopsim("delassus " + scene_path.string() + " --algorithm " + algorithm + " --damping 1e3");
    ASSERT_EQ(out.exit_code, 0) << out.text;
    EXPECT_TRUE(contains(out.text, "(J M⁻¹ Jᵀ + μ⁻¹I)⁻¹, mu 1000")) << out.text;
    const MatrixX printed = parseMatrix(out.text, set.dimension());
    // Printed with 7 significant digits.
    EXPECT_LE((printed - reference).lpNorm<Eigen::Infinity>(), 1e-6 * reference.lpNorm<Eigen::Infinity>())
        << algorithm << "\n" << out.text;
  }
}

TEST(AppDelassus, DampingErrorsNameTheValue) {
  const std::string scene = (scenesDir() / "go1_standing.yaml").string();
  Output out = runLoopsim("delassus " + scene + " --damping -2");
  EXPECT_NE(out.exit_code, 0);
  EXPECT_TRUE(contains(out.text, "mu must be positive and finite, got -2")) << out.text;
  out = runLoopsim("delassus " + scene + " --algorithm pv-osim-fast");
  EXPECT_NE(out.exit_code, 0);
  EXPECT_TRUE(contains(out.text, "give --damping")) << out.text;
  out = runLoopsim("delassus " + scene + " --damping 0 --bench");
  EXPECT_NE(out.exit_code, 0);
  EXPECT_TRUE(contains(out.text, "damping")) << out.text;
}

// delassus --bench --damping: the damped inverse timed by every algorithm and
// by pv-osim-fast, each equal to the dense route's.
TEST(AppDelassus, DampedBenchTimesEveryAlgorithmAndPvOsimFastAgainstTheDenseRoute) {
  for (const char* file : {"go1_standing.yaml", "atlas_2f2h.yaml", "four_bar.yaml"}) {
    const Scene scene = loadScene(scenesDir() / file);
    BenchOptions options;
    options.samples = 3;
    options.rounds = 2;
    const auto results = benchmarkDampedDelassus(scene, options, 1e3);
    int compared = 0;
    for (const BenchResult& r : results) {
      if (r.solver == "aba") continue;
      EXPECT_EQ(r.mode, "damped");
      if (!r.note.empty()) continue;  // an algorithm that does not take the set says why
      ++compared;
      EXPECT_GT(r.median_us, 0.0) << file << " " << r.solver;
      EXPECT_LT(r.max_vdot_deviation, 1e-9) << file << " " << r.solver;
    }
    EXPECT_GE(compared, 2) << file;
    const bool world_set = std::string(file) != "four_bar.yaml";
    const bool fast_ran = std::any_of(results.begin(), results.end(), [](const BenchResult& r) {
      return r.solver == "pv-osim-fast" && r.note.empty();
    });
    if (world_set) {
      EXPECT_TRUE(fast_ran) << file;
    }
  }
  const Output out = runLoopsim("delassus " + (scenesDir() / "go1_standing.yaml").string() +
                                " --damping 1000 --bench --samples 2 --iterations 2");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, "pv-osim-fast")) << out.text;
  EXPECT_TRUE(contains(out.text, "Damped Delassus inverse")) << out.text;
}

// --algorithm takes a list as bench --solver does: commas or spaces, and
// only the algorithms named are timed.
TEST(AppDelassus, BenchAlgorithmsAreAListSeparatedByCommasOrSpaces) {
  const std::string scene = (scenesDir() / "go1_standing.yaml").string();
  for (const std::string list : {"dense,pv-osimr", "\"dense pv-osimr\"", "dense pv-osimr"}) {
    const Output out = runLoopsim("delassus " + scene + " --bench --samples 2 --iterations 2 --algorithm " + list);
    ASSERT_EQ(out.exit_code, 0) << list << ": " << out.text;
    EXPECT_TRUE(contains(out.text, "pv-osimr")) << list << ": " << out.text;
    EXPECT_TRUE(contains(out.text, "dense")) << list << ": " << out.text;
    EXPECT_FALSE(contains(out.text, "efpa")) << list << ": " << out.text;
  }
  const Output bad = runLoopsim("delassus " + scene + " --bench --algorithm dense,pv-osimx");
  EXPECT_EQ(bad.exit_code, 1) << bad.text;
  EXPECT_TRUE(contains(bad.text, "pv-osimx")) << bad.text;
}

TEST(BenchTable2, CasesMirrorPaper000TableTwo) {
  const std::vector<Scene> cases = paperTable2Cases(scenesDir());
  const std::vector<std::pair<std::string, int>> expected = {
      {"iiwa (0D)", 0},  {"iiwa (H3)", 3},    {"iiwa (H)", 6},
      {"go1 (0D)", 0},   {"go1 (F3)", 3},     {"go1 (2F3)", 6},     {"go1 (3F3)", 9},      {"go1 (4F3)", 12},
      {"atlas (0D)", 0}, {"atlas (F)", 6},    {"atlas (2F)", 12},   {"atlas (2F+H)", 18},  {"atlas (2F+2H)", 24}};
  ASSERT_EQ(cases.size(), expected.size());
  for (std::size_t k = 0; k < cases.size(); ++k) {
    EXPECT_EQ(cases[k].name, expected[k].first);
    const ConstraintSet set(*cases[k].model, cases[k].constraints);
    EXPECT_EQ(set.dimension(), expected[k].second) << cases[k].name;
  }
}

TEST(BenchTable2, RunsEveryCaseWithTheTableColumns) {
  const Output out = runLoopsim("bench --table2 --samples 1 --iterations 1 --no-delassus --format csv");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  for (const std::string name : {"iiwa (0D)", "iiwa (H3)", "iiwa (H)", "go1 (0D)", "go1 (4F3)", "atlas (0D)", "atlas (F)", "atlas (2F+H)", "atlas (2F+2H)"}) {
    EXPECT_TRUE(contains(out.text, name)) << name << "\n" << out.text;
  }
  for (const std::string& solver : paperTable2Solvers()) {
    EXPECT_TRUE(contains(out.text, "atlas (2F+2H)," + solver + ",")) << solver << "\n" << out.text;
  }
  EXPECT_TRUE(contains(out.text, "atlas (2F),constrained-aba,3 iter")) << out.text;
  EXPECT_FALSE(contains(out.text, ",lcaba,")) << "only the table's columns by default\n" << out.text;
  const Output mixed = runLoopsim("bench --table2 --scene " + (scenesDir() / "go1_standing.yaml").string());
  EXPECT_NE(mixed.exit_code, 0);
  EXPECT_TRUE(contains(mixed.text, "--table2")) << mixed.text;
}

// bench --mu-sweep --mu-cap: the penalty rule's cap swept (default 1e3 … 1e6);
// it needs --mu-sweep and is not a relative sweep.
TEST(BenchMuCap, SweepsTheCapAndRefusesItElsewhere) {
  const std::string four_bar = (scenesDir() / "four_bar.yaml").string();
  const Output out = runLoopsim("bench --mu-sweep --mu-cap --samples 2 --scene " + four_bar);
  ASSERT_EQ(out.exit_code, 0) << out.text;
  for (const std::string cap : {"cap=1e+03", "cap=1e+04", "cap=1e+05", "cap=1e+06"}) {
    EXPECT_TRUE(contains(out.text, "four_bar " + cap)) << cap << "\n" << out.text;
  }
  EXPECT_TRUE(contains(out.text, "mu = min(3e+03 lambda_Lambda, cap lambda_max(M))")) << out.text;
  Output refused = runLoopsim("bench --mu-cap --scene " + four_bar);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(contains(refused.text, "--mu-cap: applies to --mu-sweep")) << refused.text;
  refused = runLoopsim("bench --mu-sweep --mu-cap --mu-relative --scene " + four_bar);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(contains(refused.text, "--mu-cap: not with --mu-relative")) << refused.text;
}

// bench --contact: loopsim's step against mj_step on a scene's model, a table
// row per scene with the ratios' quartiles; refuses what does not apply.
TEST(BenchContact, TimesAStepAgainstMujocoAndRefusesWhatDoesNotApply) {
  const std::string box_drop = (scenesDir() / "box_drop.yaml").string();
  const Output out = runLoopsim("bench --contact --iterations 3 --samples 2 --scene " + box_drop);
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, "admm/mj [q1 q3]")) << out.text;
  EXPECT_TRUE(contains(out.text, "box_drop")) << out.text;
  EXPECT_TRUE(contains(out.text, "3 rounds of 2 steps")) << out.text;
  const Output csv = runLoopsim("bench --contact --iterations 3 --samples 2 --format csv --scene " + box_drop);
  ASSERT_EQ(csv.exit_code, 0) << csv.text;
  EXPECT_TRUE(contains(csv.text, "scene,nv,factorization,admm_us")) << csv.text;
  EXPECT_TRUE(contains(csv.text, "\nbox_drop,6,dense,")) << csv.text;
  Output refused = runLoopsim("bench --contact --format json --scene " + box_drop);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(contains(refused.text, "--format: --contact writes table or csv")) << refused.text;
  refused = runLoopsim("bench --contact --solver pv --scene " + box_drop);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(contains(refused.text, "--contact: times whole steps")) << refused.text;
  refused = runLoopsim("bench --contact --iterations 0 --scene " + box_drop);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(contains(refused.text, "--iterations: must be at least 1")) << refused.text;
}
