// Records: run --record then replay --verify is bit-identical; eval on a
// record's rows reproduces its v̇; an interrupted record leaves no file under
// its final name; nothing is overwritten without being asked.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <unistd.h>

#include <loopsim/model/errors.hpp>
#include <loopsim/record/csv_reader.hpp>
#include <loopsim/record/recorder.hpp>
#include <loopsim/record/replay.hpp>
#include <loopsim/record/state_columns.hpp>
#include <loopsim/record/state_evaluation.hpp>
#include <loopsim/scene/scene_loader.hpp>

using namespace loopsim;

namespace {

const char* kFourBarScene = R"(
name: recorded_four_bar
models:
  - generator: four_bar
actuated: all
controller:
  type: sinusoid
  kp: 50
  kd: 5
  drives: [{joint: crank_joint, amplitude: 0.4, frequency: 1.0, phase: 0, offset: 0.0}]
dt: 0.002
duration: 0.2
solver: kkt
)";

class Records : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("loopsim_records_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    scene_path_ = dir_ / "scene.yaml";
    std::ofstream(scene_path_) << kFourBarScene;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Records `steps` steps and commits.
  std::filesystem::path record(int steps, const RecordOptions& options = {}) {
    const Scene scene = loadScene(scene_path_);
    Simulation sim(scene);
    const auto csv = dir_ / "run.csv";
    SimulationRecorder recorder(sim, csv, false, options);
    for (int k = 0; k < steps; ++k) EXPECT_TRUE(recorder.step(sim));
    recorder.finish(sim, "test");
    return csv;
  }

  std::filesystem::path dir_, scene_path_;
};

}  // namespace

TEST_F(Records, ReplayVerifyIsBitIdentical) {
  const auto csv = record(100);
  ASSERT_TRUE(std::filesystem::exists(csv));
  ASSERT_TRUE(std::filesystem::exists(summaryPathFor(csv)));
  const ReplayReport report = replayRecord(csv, true);
  EXPECT_TRUE(report.verified) << report.mismatch;
  EXPECT_EQ(report.rows_compared, 101);  // 100 steps and the final state
  EXPECT_EQ(report.steps, 100);
}

TEST_F(Records, ReplayVerifyReportsTheFirstDifference) {
  const auto csv = record(50);
  // Change one digit of a q value in row 20 (line 22).
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  in.close();
  const CsvTable table = readCsv(csv);
  const int column = table.requireColumn("q:crank_joint");
  std::string& line = lines[21];
  std::size_t start = 0;
  for (int c = 0; c < column; ++c) start = line.find(',', start) + 1;
  const std::size_t end = line.find(',', start);
  const double value = std::stod(line.substr(start, end - start));
  char replacement[40];
  std::snprintf(replacement, sizeof replacement, "%.17g", value + 1e-9);
  line.replace(start, end - start, replacement);
  std::ofstream out(csv);
  for (const auto& l : lines) out << l << '\n';
  out.close();
  const ReplayReport report = replayRecord(csv, true);
  EXPECT_FALSE(report.verified);
  EXPECT_EQ(report.first_mismatch_row, 20);
  EXPECT_NE(report.mismatch.find("q:crank_joint"), std::string::npos) << report.mismatch;
}

// A stop request (the CLI's SIGINT/SIGTERM) ends the run between blocks and
// leaves neither the output nor its temporary file.
TEST_F(Records, AStoppedEvalLeavesNoFiles) {
  const auto csv = record(60);
  const Scene scene = loadScene(scene_path_);
  const auto out = dir_ / "stopped.csv";
  for (const int stop_at_poll : {1, 2}) {
    int polls = 0;
    EvalOptions options;
    options.stop_requested = [&polls, stop_at_poll] { return ++polls >= stop_at_poll; };
    const EvalRun run = evaluateStates(scene, csv, out, options);
    EXPECT_TRUE(run.stopped) << stop_at_poll;
    EXPECT_LT(run.count, 60) << stop_at_poll;
    EXPECT_EQ(polls, stop_at_poll);
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      EXPECT_EQ(entry.path().filename().string().find("stopped.csv"), std::string::npos) << entry.path();
    }
  }
}

TEST_F(Records, EvalReproducesTheRecordedAccelerations) {
  const auto csv = record(60);
  const Scene scene = loadScene(scene_path_);
  const auto out = dir_ / "eval.csv";
  EvalOptions options;
  EXPECT_EQ(evaluateStates(scene, csv, out, options).count, 60);
  const CsvTable recorded = readCsv(csv);
  const CsvTable evaluated = readCsv(out);
  // The record's last row is the final state (no step from it): not evaluated.
  ASSERT_EQ(evaluated.rows.size() + 1, recorded.rows.size());
  int compared = 0;
  for (const auto& name : velocityColumns(*scene.model, "vdot")) {
    const int rc = recorded.requireColumn(name), ec = evaluated.requireColumn(name);
    for (std::size_t r = 0; r < evaluated.rows.size(); ++r) {
      EXPECT_EQ(recorded.rows[r][static_cast<std::size_t>(rc)], evaluated.rows[r][static_cast<std::size_t>(ec)])
          << name << " row " << r;
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
  // Without stabilisation the accelerations differ (the record is not exactly on the manifold).
  options.stabilization = false;
  options.overwrite = true;
  evaluateStates(scene, csv, out, options);
  EXPECT_TRUE(std::filesystem::exists(out));
}

TEST_F(Records, InterruptedRecordLeavesNoFileUnderTheFinalName) {
  const Scene scene = loadScene(scene_path_);
  const auto csv = dir_ / "interrupted.csv";
  {
    Simulation sim(scene);
    SimulationRecorder recorder(sim, csv, false);
    for (int k = 0; k < 10; ++k) recorder.step(sim);
    // Destroyed without finish(): as if the run was interrupted.
  }
  EXPECT_FALSE(std::filesystem::exists(csv));
  EXPECT_FALSE(std::filesystem::exists(summaryPathFor(csv)));
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().string().find("interrupted.csv"), std::string::npos) << entry.path();
  }
}

TEST_F(Records, ExistingRecordsAreNotOverwritten) {
  const auto csv = record(5);
  const Scene scene = loadScene(scene_path_);
  Simulation sim(scene);
  try {
    SimulationRecorder recorder(sim, csv, false);
    FAIL() << "expected a refusal";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("refusing to overwrite"), std::string::npos) << e.what();
  }
  SimulationRecorder recorder(sim, csv, true);  // --overwrite
  recorder.step(sim);
  recorder.finish(sim, "test");
  EXPECT_EQ(readCsv(csv).rows.size(), 2u);  // one step and the final state
}

TEST(CsvReader, BadCellsNameLineAndColumn) {
  const auto path = std::filesystem::temp_directory_path() / ("loopsim_bad_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << "t,q:a\n0,1\n0.1,abc\n";
  try {
    readCsv(path);
    FAIL() << "expected an error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("line 3, column 'q:a'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'abc'"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

namespace {

// Rewrites one cell (row index, column name) of a CSV with `edit` applied to its text.
void editCell(const std::filesystem::path& csv, std::size_t row, const std::string& column,
              const std::function<std::string(const std::string&)>& edit) {
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  in.close();
  const CsvTable table = readCsv(csv);
  const int c = table.requireColumn(column);
  std::string& line = lines[row + 1];
  std::size_t start = 0;
  for (int k = 0; k < c; ++k) start = line.find(',', start) + 1;
  const std::size_t end = std::min(line.find(',', start), line.size());
  line.replace(start, end - start, edit(line.substr(start, end - start)));
  std::ofstream out(csv);
  for (const auto& l : lines) out << l << '\n';
}

std::string nudged(const std::string& text) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", std::nextafter(std::stod(text), 1e300));
  return buffer;
}

}  // namespace

TEST_F(Records, ReplayVerifyCatchesATamperedValueInEveryColumnGroup) {
  for (const std::string column : {"t", "tau:crank_joint", "vdot:crank_joint", "lambda:loop:x", "kinetic_energy",
                                   "energy_balance", "iterations", "solver_residual", "v:rocker_joint"}) {
    const auto csv = record(30);
    editCell(csv, 12, column, nudged);
    const ReplayReport report = replayRecord(csv, true);
    EXPECT_FALSE(report.verified) << column;
    EXPECT_EQ(report.first_mismatch_row, 12) << column;
    EXPECT_NE(report.mismatch.find(": " + column + " recorded"), std::string::npos) << report.mismatch;
    std::filesystem::remove(csv);
    std::filesystem::remove(summaryPathFor(csv));
  }
}

TEST_F(Records, ReplayVerifyIgnoresOnlyTheWallClockColumns) {
  const auto csv = record(30);
  editCell(csv, 5, "timing:solve_us", [](const std::string&) { return std::string("123456"); });
  const ReplayReport report = replayRecord(csv, true);
  EXPECT_TRUE(report.verified) << report.mismatch;
}

TEST_F(Records, ReplayVerifyCatchesADeletedColumn) {
  const auto csv = record(10);
  // Drop the column "vdot:crank_joint" from the header and every row.
  const CsvTable table = readCsv(csv);
  const int c = table.requireColumn("vdot:crank_joint");
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  in.close();
  std::ofstream out(csv);
  for (std::string line : lines) {
    std::size_t start = 0;
    for (int k = 0; k < c; ++k) start = line.find(',', start) + 1;
    line.erase(start, line.find(',', start) + 1 - start);
    out << line << '\n';
  }
  out.close();
  const ReplayReport report = replayRecord(csv, true);
  EXPECT_FALSE(report.verified);
  EXPECT_EQ(report.mismatch, "header column " + std::to_string(c + 1) + ": recorded '" + table.columns[c + 1] +
                                 "', the scene produces 'vdot:crank_joint'");
}

TEST_F(Records, TheLastRowIsTheFinalState) {
  const auto csv = record(50);
  const CsvTable table = readCsv(csv);
  ASSERT_EQ(table.rows.size(), 51u);
  EXPECT_DOUBLE_EQ(table.rows.back()[0], 50 * 0.002);
  EXPECT_TRUE(std::isnan(table.rows.back()[static_cast<std::size_t>(table.requireColumn("tau:crank_joint"))]));
  EXPECT_TRUE(std::isfinite(table.rows.back()[static_cast<std::size_t>(table.requireColumn("q:crank_joint"))]));
  editCell(csv, 50, "q:crank_joint", nudged);
  const ReplayReport report = replayRecord(csv, true);
  EXPECT_FALSE(report.verified);
  EXPECT_EQ(report.first_mismatch_row, 50);
}

TEST_F(Records, RecordEveryNthStepAndColumnGroupsReplay) {
  const auto csv = record(100, {.every = 7, .groups = {"v", "q"}});
  const CsvTable table = readCsv(csv);
  EXPECT_EQ(table.rows.size(), 16u);  // steps 0, 7, ..., 98 and the final state
  EXPECT_EQ(table.columns.front(), "t");
  for (const auto& name : table.columns) {
    EXPECT_TRUE(name == "t" || name.rfind("q:", 0) == 0 || name.rfind("v:", 0) == 0) << name;
  }
  EXPECT_DOUBLE_EQ(table.rows[1][0], 7 * 0.002);
  const ReplayReport report = replayRecord(csv, true);
  EXPECT_TRUE(report.verified) << report.mismatch;
  EXPECT_EQ(report.rows_compared, 16);
}

TEST_F(Records, TheDefaultRecordHasThePerturbationColumnsAndReplaysEveryNthStep) {
  // One format for `run --record` and the GUI: the perturbation group is in the default set (0 when nothing pushed).
  const auto csv = record(40, {.every = 7, .groups = {}});
  const CsvTable table = readCsv(csv);
  const auto body = static_cast<std::size_t>(table.requireColumn("perturbation:body"));
  EXPECT_EQ(table.columns[body - 1].rfind("lambda:", 0), 0u) << "after lambda, in record order";
  EXPECT_EQ(table.columns[body + 7], "position_violation") << "the six wrench columns, then the statistics";
  for (std::size_t r = 0; r + 1 < table.rows.size(); ++r) EXPECT_EQ(table.rows[r][body], 0.0) << "row " << r;
  EXPECT_TRUE(std::isnan(table.rows.back()[body])) << "the final state: no step follows it";
  const ReplayReport report = replayRecord(csv, true);
  EXPECT_TRUE(report.verified) << report.mismatch;
  EXPECT_EQ(report.rows_compared, 7);
}

TEST_F(Records, LiveStabilizationChangesAreRecordedAndReplayedAtTheirStep) {
  const Scene scene = loadScene(scene_path_);
  Simulation sim(scene), unchanged(scene);
  const auto csv = dir_ / "live.csv";
  {
    SimulationRecorder recorder(sim, csv, false, {});
    for (int k = 0; k < 60; ++k) {
      if (k == 20) sim.setStabilization(0.01, true);  // the GUI's panel: from the next step
      if (k == 40) sim.setStabilization(0.0, false);
      ASSERT_TRUE(recorder.step(sim));
      ASSERT_TRUE(unchanged.step());
      if (k < 20) {
        ASSERT_EQ(sim.q(), unchanged.q());
      }
    }
    recorder.finish(sim, "test");
  }
  EXPECT_NE(sim.q(), unchanged.q()) << "the changes took effect";
  const RecordSummary summary = readRecordSummary(summaryPathFor(csv));
  EXPECT_EQ(summary.time_constant, scene.time_constant) << "the summary's T is the one at the first step";
  ASSERT_EQ(summary.layout.stabilization_changes.size(), 2u);
  EXPECT_EQ(summary.layout.stabilization_changes[0].step, 20);
  EXPECT_EQ(summary.layout.stabilization_changes[0].time_constant, 0.01);
  EXPECT_TRUE(summary.layout.stabilization_changes[0].projection);
  EXPECT_EQ(summary.layout.stabilization_changes[1].step, 40);
  EXPECT_FALSE(summary.layout.stabilization_changes[1].projection);
  const ReplayReport report = replayRecord(csv, true);
  EXPECT_TRUE(report.verified) << report.mismatch;
  EXPECT_EQ(report.rows_compared, 61);
  EXPECT_THROW(sim.setStabilization(std::nan(""), false), ModelError);
}

TEST_F(Records, UnknownColumnGroupIsRefused) {
  const Scene scene = loadScene(scene_path_);
  Simulation sim(scene);
  try {
    SimulationRecorder recorder(sim, dir_ / "x.csv", false, {.every = 1, .groups = {"q", "lamda"}});
    FAIL() << "expected a refusal";
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--record-columns: unknown column group 'lamda' (did you mean 'lambda'?) (groups: q, v, tau, vdot, "
              "lambda, perturbation, stats, timing)");
  }
}
