// Nothing the user owns is destroyed: records and outputs replace only regular
// files (and only with --overwrite), never an input, never a device, FIFO,
// directory or symbolic link; an interrupted run removes its partial record
// and the next run names partials that SIGKILL left behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>

#include "app_process.hpp"
#include <loopsim/model/errors.hpp>
#include <loopsim/record/output_file.hpp>

using namespace loopsim;
using loopsim::test::ProcessResult;
namespace fs = std::filesystem;

namespace {

const char* kScene = R"(name: safety_four_bar
models:
  - generator: four_bar
dt: 0.001
duration: 0.05
)";

class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("loopsim_safety_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    scene_ = dir_ / "scene.yaml";
    std::ofstream(scene_) << kScene;
  }
  void TearDown() override { fs::remove_all(dir_); }

  ProcessResult loopsim(const std::string& arguments) { return test::runLoopsimProcess(arguments, dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A states file eval accepts (a short record of the scene).
  fs::path makeStates() {
    const ProcessResult r = loopsim("run " + scene_.string() + " --quiet --record " + path("states.csv"));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return dir_ / "states.csv";
  }

  fs::path dir_, scene_;
};

std::string errorOf(const fs::path& output, bool overwrite, const std::vector<fs::path>& inputs = {}) {
  try {
    requireReplaceableOutput(output, overwrite, inputs);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_F(OutputSafety, RecordOntoAFifoIsRefused) {
  ASSERT_EQ(::mkfifo(path("pipe.csv").c_str(), 0600), 0);
  const ProcessResult r = loopsim("run " + scene_.string() + " --quiet --record " + path("pipe.csv") + " --overwrite");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + path("pipe.csv") +
                                    ": is a FIFO (named pipe); loopsim writes records and outputs only to regular files");
  EXPECT_TRUE(fs::is_fifo(path("pipe.csv")));
}

TEST_F(OutputSafety, RecordOntoADirectoryIsRefused) {
  fs::create_directories(path("out.csv"));
  const ProcessResult r = loopsim("run " + scene_.string() + " --quiet --record " + path("out.csv") + " --overwrite");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + path("out.csv") +
                                    ": is a directory; loopsim writes records and outputs only to regular files");
  EXPECT_TRUE(fs::is_directory(path("out.csv")));
}

TEST_F(OutputSafety, DevicesAreRefusedWithoutBeingTouched) {
  // Only stat()ed: the guard throws before anything opens the device.
  EXPECT_EQ(errorOf("/dev/null", true), "/dev/null: is a character device; loopsim writes records and outputs only to regular files");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(OutputSafety, SymbolicLinksAreNotReplaced) {
  std::ofstream(path("target.csv")) << "t\n0\n";
  fs::create_symlink(path("target.csv"), path("link.csv"));
  EXPECT_EQ(errorOf(path("link.csv"), true), path("link.csv") + ": is a symbolic link (to " + path("target.csv") +
                                                 "); loopsim replaces only regular files: give the target or another name");
}

TEST_F(OutputSafety, ExistingRegularFileNeedsOverwrite) {
  std::ofstream(path("old.csv")) << "t\n0\n";
  const ProcessResult r = loopsim("run " + scene_.string() + " --quiet --record " + path("old.csv"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + path("old.csv") + ": file exists; refusing to overwrite it (use --overwrite)");
  EXPECT_EQ(test::readWholeFile(path("old.csv")), "t\n0\n");
  const ProcessResult again = loopsim("run " + scene_.string() + " --quiet --record " + path("old.csv") + " --overwrite");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(test::readWholeFile(path("old.csv")), "t\n0\n");
}

TEST_F(OutputSafety, EvalOutputOverItsStatesIsRefused) {
  const fs::path states = makeStates();
  const std::string before = test::readWholeFile(states);
  const ProcessResult r =
      loopsim("eval " + scene_.string() + " --states " + states.string() + " --out " + states.string() + " --overwrite");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + states.string() + ": is the input file " + states.string() +
                                    "; refusing to write an output over an input");
  EXPECT_EQ(test::readWholeFile(states), before);
}

TEST_F(OutputSafety, EvalOutputOverItsStatesThroughASymlinkIsRefused) {
  const fs::path states = makeStates();
  const std::string before = test::readWholeFile(states);
  fs::create_symlink(states, path("alias.csv"));
  const ProcessResult r =
      loopsim("eval " + scene_.string() + " --states " + states.string() + " --out " + path("alias.csv") + " --overwrite");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + path("alias.csv") + ": is the input file " + states.string() +
                                    "; refusing to write an output over an input");
  EXPECT_EQ(test::readWholeFile(states), before);
}

TEST_F(OutputSafety, OutputOverTheSceneIsRefused) {
  const std::string before = test::readWholeFile(scene_);
  const ProcessResult r = loopsim("run " + scene_.string() + " --quiet --record " + scene_.string() + " --overwrite");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + scene_.string() + ": is the input file " + scene_.string() +
                                    "; refusing to write an output over an input");
  EXPECT_EQ(test::readWholeFile(scene_), before);
}

TEST_F(OutputSafety, OutputOverAModelFileIsRefused) {
  const fs::path urdf = dir_ / "arm.urdf";
  fs::copy_file(fs::path(LOOPSIM_TEST_DATA_DIR) / "urdf" / "two_link_arm.urdf", urdf);
  std::ofstream(path("arm.yaml")) << "models:\n  - urdf: arm.urdf\ndt: 0.001\nduration: 0.01\n";
  const std::string before = test::readWholeFile(urdf);
  const ProcessResult r = loopsim("run " + path("arm.yaml") + " --quiet --record " + urdf.string() + " --overwrite");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.errorLine(), "loopsim: error: " + urdf.string() + ": is the input file " + urdf.string() +
                               "; refusing to write an output over an input");
  EXPECT_EQ(test::readWholeFile(urdf), before);
}

namespace {

// Starts `loopsim run` on a long scene with --record, waits for its partial
// file, sends `signal` and returns (exit code, stdout+stderr).
std::pair<int, std::string> interruptedRun(const fs::path& dir, int signal) {
  const fs::path scene = dir / "long.yaml";
  std::ofstream(scene) << "models:\n  - generator: four_bar\ndt: 0.001\nduration: 100000\n";
  const fs::path log = dir / "log.txt";
  const std::string command = std::string("exec ") + LOOPSIM_BINARY + " run " + scene.string() + " --quiet --record " +
                              (dir / "rec.csv").string() + " >" + log.string() + " 2>&1";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const fs::path partial = partialPathFor(dir / "rec.csv", pid);
  for (int i = 0; i < 600 && !(fs::exists(partial) && fs::file_size(partial) > 1000); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(fs::exists(partial)) << "the run never started writing " << partial;
  ::kill(pid, signal);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::readWholeFile(log)};
}

}  // namespace

TEST_F(OutputSafety, SigintRemovesThePartialRecordAfterASummary) {
  const auto [code, text] = interruptedRun(dir_, SIGINT);
  EXPECT_EQ(code, 130) << text;
  EXPECT_NE(text.find("Simulation summary"), std::string::npos) << text;
  EXPECT_NE(text.find("loopsim: run interrupted by SIGINT at t = "), std::string::npos) << text;
  EXPECT_NE(text.find("the partial record was removed"), std::string::npos) << text;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().find("rec."), std::string::npos) << entry.path();
  }
}

TEST_F(OutputSafety, SigtermRemovesThePartialRecordAfterASummary) {
  const auto [code, text] = interruptedRun(dir_, SIGTERM);
  EXPECT_EQ(code, 143) << text;
  EXPECT_NE(text.find("loopsim: run interrupted by SIGTERM at t = "), std::string::npos) << text;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().find("rec."), std::string::npos) << entry.path();
  }
}

// `eval` under SIGINT/SIGTERM: the work stops between blocks of states, the
// output's temporary file is removed, and the exit code and a line say so.
// The states: one state of a 300-link chain welded every 100 links (a dense
// KKT of 318 rows: milliseconds a state), repeated 800 times.
TEST_F(OutputSafety, ASignalStopsEvalWithoutLeavingAPartialOutput) {
  const fs::path scene = dir_ / "chain.yaml";
  std::ofstream(scene) << "models:\n  - generator: chain_6d_every_k\n    params: {links: 300, every: 100, length: 0.05}\n"
                          "dt: 0.001\nduration: 0.002\nsolver: kkt\n";
  const ProcessResult recorded = loopsim("run " + scene.string() + " --quiet --record " + path("one.csv"));
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  {
    std::ifstream in(path("one.csv"));
    std::string header, row;
    std::getline(in, header);
    std::getline(in, row);
    std::ofstream states(path("states.csv"));
    states << header << '\n';
    for (int k = 0; k < 800; ++k) states << row << '\n';
  }
  for (const auto& [signal, code] : {std::pair{SIGINT, 130}, std::pair{SIGTERM, 143}}) {
    const fs::path log = dir_ / "log.txt";
    const std::string command = std::string("exec ") + LOOPSIM_BINARY + " eval " + scene.string() + " --states " +
                                path("states.csv") + " --threads 1 --out " + path("out.csv") + " >" + log.string() +
                                " 2>&1";
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    const fs::path partial = partialPathFor(dir_ / "out.csv", pid);
    for (int i = 0; i < 600 && !fs::exists(partial); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(fs::exists(partial)) << "eval never started writing " << partial;
    ::kill(pid, signal);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const std::string text = test::readWholeFile(log);
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, code) << text;
    EXPECT_NE(text.find(std::string("loopsim: eval interrupted by ") + (signal == SIGINT ? "SIGINT" : "SIGTERM") +
                        " after "),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(path("out.csv") + " was not written and no partial file is left"), std::string::npos) << text;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      EXPECT_EQ(entry.path().filename().string().find("out."), std::string::npos) << entry.path();
    }
  }
}

TEST_F(OutputSafety, NextRunNamesStalePartials) {
  // What SIGKILL leaves: a partial file whose process is gone (no pid is this large).
  const fs::path stale = partialPathFor(dir_ / "rec.csv", 2147483600L);
  std::ofstream(stale) << "t,q\n0,";
  const ProcessResult r = loopsim("run " + scene_.string() + " --record " + path("rec.csv"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("stale partial file " + stale.string() + " (6 bytes) left by an interrupted run that is no "
                       "longer running; remove it with: rm '" + stale.string() + "'"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::exists(stale)) << "named, never removed without asking";
  EXPECT_EQ(stalePartialsOf(dir_ / "rec.csv"), std::vector<fs::path>{stale});
}

TEST_F(OutputSafety, LongRunsWarnAndShowProgressEvenWhenQuiet) {
  // About 1e8 steps: far beyond a minute at any speed; stopped as soon as it has said so.
  std::ofstream(path("long.yaml")) << "models:\n  - generator: four_bar\ndt: 0.001\nduration: 100000\n";
  const fs::path log = dir_ / "log.txt";
  const std::string command = std::string("exec ") + LOOPSIM_BINARY + " run " + path("long.yaml") + " --quiet >" +
                              path("out.txt") + " 2>" + log.string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string text;
  for (int i = 0; i < 600 && text.find("/ 1e+05 s  wall") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    text = test::readWholeFile(log);
  }
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  text = test::readWholeFile(log);
  EXPECT_NE(text.find("this run will take about "), std::string::npos) << text;
  EXPECT_NE(text.find("(100000000 steps); Ctrl-C stops it cleanly"), std::string::npos) << text;
  EXPECT_NE(text.find("/ 1e+05 s  wall"), std::string::npos) << "a progress bar on stderr:\n" << text;
  EXPECT_EQ(WEXITSTATUS(status), 130);
}
