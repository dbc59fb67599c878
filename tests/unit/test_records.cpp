// Records: run --record then replay --verify is bit-identical; eval on a
// record's rows reproduces its v̇; an interrupted record leaves no file under
// its final name; nothing is overwritten without being asked.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "model/errors.hpp"
#include "record/csv_reader.hpp"
#include "record/recorder.hpp"
#include "record/replay.hpp"
#include "record/state_columns.hpp"
#include "record/state_evaluation.hpp"
#include "scene/scene_loader.hpp"

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
  std::filesystem::path record(int steps) {
    const Scene scene = loadScene(scene_path_);
    Simulation sim(scene);
    const auto csv = dir_ / "run.csv";
    SimulationRecorder recorder(sim, csv, false);
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
  EXPECT_EQ(report.rows_compared, 100);
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

TEST_F(Records, EvalReproducesTheRecordedAccelerations) {
  const auto csv = record(60);
  const Scene scene = loadScene(scene_path_);
  const auto out = dir_ / "eval.csv";
  EvalOptions options;
  EXPECT_EQ(evaluateStates(scene, csv, out, options), 60);
  const CsvTable recorded = readCsv(csv);
  const CsvTable evaluated = readCsv(out);
  ASSERT_EQ(evaluated.rows.size(), recorded.rows.size());
  int compared = 0;
  for (const auto& name : velocityColumns(*scene.model, "vdot")) {
    const int rc = recorded.requireColumn(name), ec = evaluated.requireColumn(name);
    for (std::size_t r = 0; r < recorded.rows.size(); ++r) {
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
  SimulationRecorder recorder(sim, csv, true);  // --force
  recorder.step(sim);
  recorder.finish(sim, "test");
  EXPECT_EQ(readCsv(csv).rows.size(), 1u);
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
