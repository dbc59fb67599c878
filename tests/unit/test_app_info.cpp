// Runs the built `loopsim` binary (LOOPSIM_BINARY) on URDF fixtures and
// checks its output, exit codes and error messages.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

struct RunResult {
  int exit_code = -1;
  std::string output;
};

/// Runs `loopsim <arguments>` through the shell; `redirect` selects the streams captured.
RunResult runLoopsim(const std::string& arguments, const std::string& redirect = "2>&1") {
  std::string command(1, '\'');
  command.append(LOOPSIM_BINARY).append("' ").append(arguments).append(" ").append(redirect);
  RunResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) result.output += buffer.data();
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

/// The fixture's path, single-quoted for the shell.
std::string fixture(const std::string& name) {
  std::string quoted(1, '\'');  // built by appends: GCC 12 warns (-Wrestrict) on "'" + s + "'"
  quoted.append((fs::path(LOOPSIM_TEST_DATA_DIR) / "urdf" / name).string());
  quoted.push_back('\'');
  return quoted;
}

class AppInfo : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(LOOPSIM_BINARY)) FAIL() << "build the loopsim target first: " << LOOPSIM_BINARY;
  }
};

TEST_F(AppInfo, Version) {
  const RunResult r = runLoopsim("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("loopsim 0."), std::string::npos) << r.output;
}

TEST_F(AppInfo, PrintsSizesJointsFramesAndWarnings) {
  const RunResult r = runLoopsim("info " + fixture("two_link_arm.urdf"), "2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* expected : {"model:       two_link_arm", "nq:          3", "nv:          3",
                               "bodies:      3 (plus the world)", "total mass:  2.3 kg", "tree depth:  2",
                               "shoulder", "elbow", "slide", "prismatic", "merged link",
                               "mesh file 'meshes/hand_missing.stl' not found", "warnings: 4"}) {
    EXPECT_NE(r.output.find(expected), std::string::npos) << "missing '" << expected << "' in:\n" << r.output;
  }
  // Row of the shoulder: body, joint, type, parent, q/v index, limits, velocity, effort, damping.
  EXPECT_NE(r.output.find("upper_arm  shoulder  revolute   world      0  0  -1.5   1.5    3         20      0.1"),
            std::string::npos)
      << r.output;
}

TEST_F(AppInfo, FloatingOptionAndGlobalLogLevelAfterSubcommand) {
  const RunResult r = runLoopsim("info " + fixture("two_link_arm.urdf") + " --floating --log-level warn");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("nq:          10"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nv:          9"), std::string::npos);
  EXPECT_NE(r.output.find("root_joint"), std::string::npos);
  EXPECT_NE(r.output.find("0-6"), std::string::npos);  // the floating joint's q range
}

TEST_F(AppInfo, BadFileExitsWithOneAndPrintsTheErrorOnStderr) {
  const RunResult r = runLoopsim("info " + fixture("bad.urdf"), "2>&1 >/dev/null");  // stderr only
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "loopsim: error: bad.urdf: joint 'j2': lower limit 1.5 > upper limit 0.5\n");

  const RunResult missing = runLoopsim("info /nonexistent/robot.urdf");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("loopsim: error: /nonexistent/robot.urdf: no such file"), std::string::npos)
      << missing.output;

  const RunResult strict = runLoopsim("info --strict " + fixture("triangle.urdf"));
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_NE(strict.output.find("loopsim: error: triangle.urdf: link 'arm': principal moments"), std::string::npos)
      << strict.output;
}

TEST_F(AppInfo, UsageErrorsExitWithOne) {
  const RunResult no_model = runLoopsim("info");
  EXPECT_EQ(no_model.exit_code, 1);
  EXPECT_NE(no_model.output.find("model is required"), std::string::npos) << no_model.output;
  const RunResult bad_level = runLoopsim("--log-level loud info " + fixture("two_link_arm.urdf"));
  EXPECT_EQ(bad_level.exit_code, 1);
  // Plain `loopsim` (no command at all) is the main job, not a usage error: tests/gui/test_gui_errors.cpp.
  const RunResult only_options = runLoopsim("--log-level warn");
  EXPECT_EQ(only_options.exit_code, 1);
  EXPECT_NE(only_options.output.find("no command given; commands: info, run"), std::string::npos) << only_options.output;
}

}  // namespace
