// `loopsim eval --threads N` and `--mpi`, through the built binary: the
// output file is byte for byte the one-thread output whatever the split
// (threads 1, 2, 3; mpirun -n 2), errors name the first bad line in input
// order, and bad --threads values are refused. Timings are never asserted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "app_process.hpp"

using loopsim::test::ProcessResult;
using loopsim::test::readWholeFile;
using loopsim::test::runLoopsimProcess;

namespace {

std::string scenePath(const std::string& name) {
  return (std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / name).string();
}

class EvalParallel : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("loopsim_eval_parallel_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ProcessResult loopsim(const std::string& arguments) { return runLoopsimProcess(arguments, dir_); }

  // States of a scene: a record of `steps` steps (q, v, τ; its final state is skipped by eval).
  std::filesystem::path recordStates(const std::string& scene, int steps, double dt) {
    const auto csv = dir_ / (std::filesystem::path(scene).stem().string() + "_states.csv");
    const ProcessResult r = loopsim("run " + scenePath(scene) + " --quiet --dt " + std::to_string(dt) +
                                    " --duration " + std::to_string(steps * dt) + " --record " + csv.string() +
                                    " --record-columns q,v,tau");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return csv;
  }

  // The output file of eval with the given extra options.
  std::string eval(const std::string& scene, const std::filesystem::path& states, const std::string& options,
                   const std::string& out_name) {
    const auto out = dir_ / out_name;
    const ProcessResult r = loopsim("eval " + scenePath(scene) + " --states " + states.string() + " --out " +
                                    out.string() + " --overwrite " + options);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return readWholeFile(out);
  }

  // Thread counts 1, 2 and 3 give the same bytes (and one output row per state).
  void expectThreadCountsAgree(const std::string& scene, const std::filesystem::path& states,
                               const std::string& options) {
    const std::string one = eval(scene, states, options + " --threads 1", "one.csv");
    ASSERT_EQ(lineCount(one), stateCount(states) + 1) << "header + one row per state";
    ASSERT_GT(stateCount(states), 200u);
    for (int threads : {2, 3}) {
      const std::string many =
          eval(scene, states, options + " --threads " + std::to_string(threads), "t" + std::to_string(threads) + ".csv");
      EXPECT_TRUE(many == one) << scene << " " << options << ": --threads " << threads << " differs from --threads 1";
    }
  }

  // Data rows of a record but its final state (which eval skips).
  static std::size_t stateCount(const std::filesystem::path& states) { return lineCount(readWholeFile(states)) - 2; }
  static std::size_t lineCount(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }

  std::filesystem::path dir_;
};

// Rewrites the second cell (after t) of the given data rows.
void editRows(const std::filesystem::path& csv, const std::vector<std::pair<std::size_t, std::string>>& bad_cells) {
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  in.close();
  for (const auto& [row, value] : bad_cells) {
    std::string& line = lines[row + 1];
    const std::size_t start = line.find(',') + 1, end = line.find(',', start);
    line.replace(start, end - start, value);
  }
  std::ofstream out(csv);
  for (const auto& l : lines) out << l << '\n';
}

}  // namespace

TEST_F(EvalParallel, AtlasThreadCountsGiveIdenticalFiles) {
  const auto states = recordStates("atlas_standing.yaml", 300, 0.001);
  expectThreadCountsAgree("atlas_standing.yaml", states, "");
  // An iterative solver: every state starts cold, so the split cannot change a result.
  expectThreadCountsAgree("atlas_standing.yaml", states, "--solver prox-ltl");
}

TEST_F(EvalParallel, FourBarLoopThreadCountsGiveIdenticalFiles) {
  const auto states = recordStates("four_bar.yaml", 400, 0.001);
  expectThreadCountsAgree("four_bar.yaml", states, "");
  expectThreadCountsAgree("four_bar.yaml", states, "--solver prox-ltl --no-stabilization");
}

TEST_F(EvalParallel, EachStateIsEvaluatedOnItsOwn) {
  // Rows 200.. of the full output equal the output of rows 200.. alone: no
  // warm start carries over from one row to the next.
  const auto states = recordStates("atlas_standing.yaml", 300, 0.001);
  const std::string full = eval("atlas_standing.yaml", states, "--solver prox-ltl --threads 1", "full.csv");
  std::ifstream in(states);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const auto tail = dir_ / "tail.csv";
  {
    std::ofstream out(tail);
    out << lines[0] << '\n';
    for (std::size_t k = 201; k < lines.size(); ++k) out << lines[k] << '\n';
  }
  const std::string part = eval("atlas_standing.yaml", tail, "--solver prox-ltl --threads 1", "tail_out.csv");
  // Skip the header and the first 200 rows of the full output.
  std::size_t at = 0;
  for (int k = 0; k < 201; ++k) at = full.find('\n', at) + 1;
  EXPECT_TRUE(full.substr(at) == part.substr(part.find('\n') + 1));
}

TEST_F(EvalParallel, TheFirstBadLineInInputOrderIsReported) {
  const auto states = recordStates("four_bar.yaml", 300, 0.001);
  // Rows 250 (line 252) and 40 (line 42): different threads' parts for 2 and 3 threads.
  editRows(states, {{250, "nan"}, {40, "inf"}});
  for (int threads : {1, 2, 3}) {
    const ProcessResult r = loopsim("eval " + scenePath("four_bar.yaml") + " --states " + states.string() +
                                    " --out " + (dir_ / "bad_out.csv").string() + " --threads " + std::to_string(threads));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(r.errorLine(), "loopsim: error: " + states.string() + ": line 42: state has a NaN or Inf value (q[0] = inf)")
        << "--threads " << threads;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "bad_out.csv"));
  }
}

TEST_F(EvalParallel, BadThreadCountsAreRefused) {
  const auto states = recordStates("four_bar.yaml", 10, 0.001);
  for (const std::string value : {"0", "-2", "two", "1.5"}) {
    const ProcessResult r = loopsim("eval " + scenePath("four_bar.yaml") + " --states " + states.string() +
                                    " --out " + (dir_ / "out.csv").string() + " --threads " + value);
    EXPECT_EQ(r.exit_code, 1) << value;
    EXPECT_EQ(r.firstErrorLine(), "loopsim: error: eval: --threads: must be a whole number >= 1 (got '" + value +
                                      "'; default: all " + std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
                                      " cores)");
    EXPECT_FALSE(std::filesystem::exists(dir_ / "out.csv"));
  }
  const ProcessResult bench = loopsim("bench --scene " + scenePath("four_bar.yaml") + " --threads 0");
  EXPECT_EQ(bench.exit_code, 1);
  EXPECT_NE(bench.firstErrorLine().find("--threads: must be a whole number >= 1"), std::string::npos) << bench.err;
}

#ifdef LOOPSIM_TEST_MPIEXEC
TEST_F(EvalParallel, MpiTwoRanksEqualOneProcess) {
  // Root in CI: OpenMPI refuses it without these. `timeout`: a stuck job must not hang the suite.
  // Sanitizer build: OpenMPI's components are dlopened and unloaded by MPI_Finalize,
  // so their leaks have frames in unloaded modules that no LeakSanitizer
  // suppression can name: no leak check for the ranks (eval's own code keeps it
  // in the one-process tests above); ASan and UBSan stay on.
#if defined(__SANITIZE_ADDRESS__)
  const std::string no_leak_check = "ASAN_OPTIONS=\"${ASAN_OPTIONS}:detect_leaks=0\" ";
#else
  const std::string no_leak_check;
#endif
  const std::string mpirun = no_leak_check + "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 " +
                             std::string(LOOPSIM_TEST_MPIEXEC) + " --oversubscribe -n 2 ";
  if (std::system((mpirun + "true >/dev/null 2>&1").c_str()) != 0) {
    GTEST_SKIP() << LOOPSIM_TEST_MPIEXEC << " cannot start 2 processes here (not installed, or no loopback)";
  }
  const auto states = recordStates("atlas_standing.yaml", 301, 0.001);  // an odd row count: unequal shards
  const std::string single = eval("atlas_standing.yaml", states, "--threads 1", "single.csv");
  for (const std::string solver : {"kkt", "prox-ltl"}) {
    const std::string one =
        solver == "kkt" ? single
                        : eval("atlas_standing.yaml", states, "--solver " + solver + " --threads 1", "single_prox.csv");
    const auto out = dir_ / ("mpi_" + solver + ".csv");
    const std::string command = "cd " + dir_.string() + " && " + mpirun + LOOPSIM_BINARY + " eval " +
                                scenePath("atlas_standing.yaml") + " --states " + states.string() + " --out " +
                                out.string() + " --solver " + solver + " --mpi >mpi_stdout.txt 2>mpi_stderr.txt";
    const int status = std::system(command.c_str());
    ASSERT_EQ(status, 0) << readWholeFile(dir_ / "mpi_stderr.txt");
    EXPECT_EQ(readWholeFile(dir_ / "mpi_stdout.txt"), "evaluated " + std::to_string(stateCount(states)) +
                                                          " states -> " + out.string() + " (2 MPI ranks x 1 threads)\n");
    EXPECT_TRUE(readWholeFile(out) == one) << solver << ": mpirun -n 2 differs from one process";
  }
  // A bad row in rank 1's shard: rank 0 reports it, nothing is written, mpirun fails.
  editRows(states, {{250, "nan"}});
  const auto bad_out = dir_ / "mpi_bad.csv";
  const std::string command = "cd " + dir_.string() + " && " + mpirun + LOOPSIM_BINARY + " eval " +
                              scenePath("atlas_standing.yaml") + " --states " + states.string() + " --out " +
                              bad_out.string() + " --mpi >mpi_stdout.txt 2>mpi_stderr.txt";
  EXPECT_NE(std::system(command.c_str()), 0);
  const std::string err = readWholeFile(dir_ / "mpi_stderr.txt");
  EXPECT_NE(err.find("loopsim: error: " + states.string() + ": line 252: state has a NaN or Inf value"),
            std::string::npos)
      << err;
  EXPECT_FALSE(std::filesystem::exists(bad_out));
}
#else
TEST_F(EvalParallel, MpiWithoutMpiSupportIsAClearError) {
  const auto states = recordStates("four_bar.yaml", 10, 0.001);
  const ProcessResult r = loopsim("eval " + scenePath("four_bar.yaml") + " --states " + states.string() + " --out " +
                                  (dir_ / "out.csv").string() + " --mpi");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: --mpi: this loopsim was built without MPI support (CMake option "
                                "LOOPSIM_MPI is OFF: install libopenmpi-dev and rebuild)");
}
#endif
