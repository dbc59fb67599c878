// Bad input through the built binary, one test per case: the exact first line
// of the message (stderr) and the exit code. Nothing is silently ignored,
// guessed or misread.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <loopsim/solvers/registry.hpp>

#include "app_process.hpp"

using loopsim::test::ProcessResult;
namespace fs = std::filesystem;

namespace {

// One actuated joint (crank_joint) and three revolute joints: crank, coupler, rocker.
const char* kFourBar = R"(name: bad_input_four_bar
models:
  - generator: four_bar
actuated: [crank_joint]
controller: {type: pd_hold, kp: 10, kd: 1}
dt: 0.001
duration: 0.01
)";

const char* kFreeBox = R"(name: free_box
bodies:
  - {name: box, shape: box, size: [0.2, 0.2, 0.2], mass: 1.0}
dt: 0.001
duration: 0.01
)";

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("loopsim_bad_input_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }
  ProcessResult loopsim(const std::string& arguments) { return loopsim::test::runLoopsimProcess(arguments, dir_); }
  ProcessResult eval(const std::string& scene_text, const std::string& states_text, const std::string& extra = "") {
    return loopsim("eval " + write("scene.yaml", scene_text) + " --states " + write("states.csv", states_text) +
                   " --out " + (dir_ / "out.csv").string() + " " + extra);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

const std::string kHeader = "t,q:crank_joint,q:coupler_joint,q:rocker_joint,v:crank_joint,v:coupler_joint,v:rocker_joint";
const std::string kRow = "0,1,2,0.5,0,0,0";

}  // namespace

// ---- eval: columns -------------------------------------------------------

TEST_F(BadInput, EvalMisspelledTauColumn) {
  const ProcessResult r = eval(kFourBar, kHeader + ",tau:crank_jont\n" + kRow + ",1\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("states.csv") +
                                    ": line 1, column 8 'tau:crank_jont': unknown column (did you mean "
                                    "'tau:crank_joint'?); eval reads t, q:…, v:… and tau:… columns of this scene's joints");
}

TEST_F(BadInput, EvalUnknownColumn) {
  const ProcessResult r = eval(kFourBar, kHeader + ",tau:crank_joint,speed\n" + kRow + ",1,3\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("states.csv") +
                                    ": line 1, column 9 'speed': unknown column; eval reads t, q:…, v:… and tau:… "
                                    "columns of this scene's joints");
}

TEST_F(BadInput, EvalDuplicateColumn) {
  const ProcessResult r = eval(kFourBar, kHeader + ",tau:crank_joint,q:crank_joint\n" + kRow + ",1,3\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("states.csv") +
                                    ": line 1, column 9 'q:crank_joint': duplicate column (also column 2); give each "
                                    "column once");
}

TEST_F(BadInput, EvalByteOrderMarkDoesNotHideTheFirstColumn) {
  const ProcessResult r = eval(kFourBar, "\xEF\xBB\xBF" + kHeader + ",tau:crank_joint\n0.25,1,2,0.5,0,0,0,1\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string out = loopsim::test::readWholeFile(dir_ / "out.csv");
  EXPECT_EQ(out.rfind("t,vdot:crank_joint", 0), 0u) << out;
  EXPECT_NE(out.find("\n0.25,"), std::string::npos) << out;
}

TEST_F(BadInput, EvalMissingTauOfAnActuatedJoint) {
  const ProcessResult r = eval(kFourBar, kHeader + "\n" + kRow + "\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("states.csv") +
                                    ": column 'tau:crank_joint': missing for the actuated joint 'crank_joint'; add it, "
                                    "or pass --tau-default zero to evaluate with tau = 0");
}

TEST_F(BadInput, EvalTauDefaultZeroIsAnExplicitPrintedDecision) {
  const ProcessResult r = eval(kFourBar, kHeader + "\n" + kRow + "\n", "--tau-default zero");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--tau-default zero: tau = 0 for the missing columns tau:crank_joint"), std::string::npos)
      << r.err;
}

TEST_F(BadInput, EvalNonUnitQuaternion) {
  const std::string header =
      "q:box_joint:x,q:box_joint:y,q:box_joint:z,q:box_joint:qx,q:box_joint:qy,q:box_joint:qz,q:box_joint:qw,"
      "v:box_joint:wx,v:box_joint:wy,v:box_joint:wz,v:box_joint:vx,v:box_joint:vy,v:box_joint:vz";
  const ProcessResult r = eval(kFreeBox, header + "\n0,0,1,0,0,0,1,0,0,0,0,0,0\n0,0,1,0,0,0,2,0,0,0,0,0,0\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("states.csv") +
                                    ": line 3, joint 'box_joint': quaternion [qx qy qz qw] has norm 2; it must be unit "
                                    "(to 1e-6)");
}

TEST_F(BadInput, EvalNonFiniteResultNamesTheRow) {
  const ProcessResult r =
      eval(kFourBar, kHeader + ",tau:crank_joint\n" + kRow + ",0\n0,1,2,0.5,1e300,1e300,1e300,0\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("states.csv") +
                                    ": line 3: the dynamics at this state are not finite (vdot or lambda is NaN or "
                                    "Inf); check its values (velocities of 1e300 overflow)");
  EXPECT_FALSE(fs::exists(dir_ / "out.csv"));
}

// ---- scenes --------------------------------------------------------------

TEST_F(BadInput, SceneDuplicateKey) {
  const ProcessResult r = loopsim("check " + write("dup.yaml", std::string(kFourBar) + "dt: 0.002\n"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("dup.yaml") +
                                    ": dt (line 8): duplicate key 'dt' (first given on line 6); give each key once");
}

TEST_F(BadInput, SceneEmptyModels) {
  const ProcessResult r = loopsim("run " + write("empty.yaml", "models: []\n") + " --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("empty.yaml") +
                                    ": models (line 1): is empty: a scene needs at least one model or body");
}

TEST_F(BadInput, SceneAbsurdDuration) {
  const ProcessResult r = loopsim("run " + write("long.yaml", "models:\n  - generator: four_bar\nduration: 1e300\n"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("long.yaml") +
                                    ": duration (line 3): duration 1e+300 s at dt 0.001 s is 1e+303 steps; at most "
                                    "1e+09 are allowed (shorten the duration or lengthen dt)");
}

TEST_F(BadInput, SceneTinyDt) {
  const ProcessResult r =
      loopsim("run " + write("tiny.yaml", "models:\n  - generator: four_bar\ndt: 1e-12\nduration: 10\n"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("tiny.yaml") +
                                    ": duration (line 4): duration 10 s at dt 1e-12 s is 1e+13 steps; at most 1e+09 "
                                    "are allowed (shorten the duration or lengthen dt)");
}

// Scheduled times far beyond any run: refused as a duration is, never
// overflowing into an early step (compare --from, and --from + --duration).
TEST_F(BadInput, CompareFromBeyondAnyRun) {
  const std::string scene = write("s.yaml", kFourBar);
  ProcessResult r = loopsim("compare " + scene + " --solvers kkt,ltl --from 1e300 --quiet --out " + dir_.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(),
            "loopsim: error: --from: t = 1e+300 s at dt 0.001 s is step 1e+303; at most 1e+09 steps are allowed");
  r = loopsim("compare " + scene + " --solvers kkt,ltl --from 1000001 --duration 1 --quiet --out " + dir_.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(),
            "loopsim: error: --from: t = 1e+06 s at dt 0.001 s is step 1000001000; at most 1e+09 steps are allowed");
  r = loopsim("compare " + scene + " --solvers kkt,ltl --from 999999.5 --duration 1 --quiet --out " + dir_.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.firstErrorLine().find("--duration: --from 999999.5"), std::string::npos) << r.firstErrorLine();
  r = loopsim("compare " + scene + " --solvers kkt,ltl --from -1 --quiet --out " + dir_.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: --from: must be a time >= 0 s (got -1)");
  // gui --frames past 64 bits (held at the largest long by the parser) is refused before any window.
  r = loopsim("gui --frames 99999999999999999999999");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: --frames: 9223372036854775807: at most 1e9 frames");
}

TEST_F(BadInput, CommandLineDurationOverflow) {
  const ProcessResult r = loopsim("run " + write("s.yaml", kFourBar) + " --duration 1e16 --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: --duration: duration 1e+16 s at dt 0.001 s is 1e+19 steps; at most "
                                "1e+09 are allowed (shorten the duration or lengthen dt)");
}

TEST_F(BadInput, CommandLineDtLongerThanDuration) {
  const ProcessResult r = loopsim("run " + write("s.yaml", kFourBar) + " --dt 1 --duration 0.5 --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: --dt: dt is longer than the duration (dt 1 s, duration 0.5 s)");
}

TEST_F(BadInput, CommandLineNegativeDt) {
  const ProcessResult r = loopsim("run " + write("s.yaml", kFourBar) + " --dt -1 --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: --dt: must be a finite number > 0 (got -1)");
}

// ---- command line --------------------------------------------------------

TEST_F(BadInput, UnknownCommandIsNamedAndTheCommandsListed) {
  const ProcessResult r = loopsim("simulate x");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine().rfind("loopsim: error: unknown command 'simulate'; commands: info, run, ", 0), 0u)
      << r.err;
}

TEST_F(BadInput, MisspelledCommandGetsASuggestion) {
  const ProcessResult r = loopsim("rnu scene.yaml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine().rfind("loopsim: error: unknown command 'rnu' (did you mean 'run'?); commands: ", 0), 0u)
      << r.err;
}

TEST_F(BadInput, NoCommand) {
  // Options but no command (plain `loopsim` alone is the default job, see the GUI tests).
  const ProcessResult r = loopsim("--log-level warn");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine().rfind("loopsim: error: no command given; commands: info, run, ", 0), 0u) << r.err;
}

TEST_F(BadInput, MissingArgumentExitsWithOne) {
  const ProcessResult r = loopsim("run");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: run: scene is required") << r.err;
}

TEST_F(BadInput, UnknownOptionExitsWithOne) {
  const ProcessResult r = loopsim("run " + write("s.yaml", kFourBar) + " --force");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: run: The following argument was not expected: --force") << r.err;
}

TEST_F(BadInput, BadOptionValueExitsWithOne) {
  const ProcessResult r = loopsim("--log-level loud solvers");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine().rfind("loopsim: error: solvers: --log-level: loud not in {", 0), 0u) << r.err;
}

TEST_F(BadInput, HelpAndVersionExitWithZero) {
  const ProcessResult help = loopsim("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Exit codes: 0 ok; 1 usage error or invalid input; 2 no display; 3 the simulation diverged; "
                          "4 replay --verify found a difference"),
            std::string::npos)
      << help.out;
  EXPECT_EQ(loopsim("run --help").exit_code, 0);
  EXPECT_EQ(loopsim("--version").exit_code, 0);
}

TEST_F(BadInput, ListOptionsTakeCommasAndSpaces) {
  const std::string scene = (fs::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / "four_bar.yaml").string();
  for (const char* solvers : {"--solver kkt,ltl", "--solver 'kkt ltl'", "--solver kkt --solver ltl"}) {
    const ProcessResult r =
        loopsim("bench --scene " + scene + " " + solvers + " --samples 2 --iterations 1 --format csv");
    EXPECT_EQ(r.exit_code, 0) << solvers << ": " << r.err;
    EXPECT_NE(r.out.find("kkt"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ltl"), std::string::npos) << r.out;
  }
  const ProcessResult r = loopsim("bench --scene " + scene + " --solver kkt,ltll --samples 2 --iterations 1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: --solver: " + loopsim::unknownSolverMessage("ltll"));
}

// ---- model files, limits ---------------------------------------------------

namespace {
std::string testUrdf(const std::string& name) { return (fs::path(LOOPSIM_TEST_DATA_DIR) / "urdf" / name).string(); }
std::string digitMjcf() { return (fs::path(LOOPSIM_ASSETS_DIR) / "robots" / "digit" / "digit.xml").string(); }
}  // namespace

TEST_F(BadInput, InfoAndCheckTakeMjcf) {
  const std::string chain = (fs::path(LOOPSIM_TEST_DATA_DIR) / "mjcf" / "chain.xml").string();
  for (const std::string command : {"info ", "check "}) {
    const ProcessResult r = loopsim(command + chain);
    EXPECT_EQ(r.exit_code, 0) << command << r.err;
    EXPECT_NE(r.out.find("nv:"), std::string::npos) << r.out;
  }
}

TEST_F(BadInput, InfoTakesAScene) {
  const ProcessResult r = loopsim("info " + write("s.yaml", kFourBar));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("crank_joint"), std::string::npos) << r.out;
}

TEST_F(BadInput, FloatingOnAnMjcfIsRefused) {
  const std::string chain = (fs::path(LOOPSIM_TEST_DATA_DIR) / "mjcf" / "chain.xml").string();
  const ProcessResult r = loopsim("info --floating " + chain);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + chain + ": --floating: applies to URDF files only");
}

TEST_F(BadInput, UnknownFileTypeIsNamed) {
  const ProcessResult r = loopsim("check " + write("robot.txt", "hello"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("robot.txt") +
                                    ": unknown file type '.txt' (expected a scene .yaml/.yml, a URDF .urdf or an MJCF "
                                    ".xml)");
}

TEST_F(BadInput, RunOnAModelRunsItAsAOneModelScene) {
  const ProcessResult r = loopsim("run " + testUrdf("two_link_arm.urdf") + " --duration 0.01");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("is a model, not a scene: running it as a one-model scene"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Steps              : 10\n"), std::string::npos) << r.out;
}

TEST_F(BadInput, RunOnAFloatingModelPutsItOnAGroundAndSaysSo) {
  const std::string go1 = std::string(LOOPSIM_ASSETS_DIR) + "/robots/go1/go1.urdf";
  const ProcessResult r = loopsim("run " + go1 + " --floating --duration 0.01 --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("floats: put on a ground plane at z = 0, moved up by "), std::string::npos) << r.out;
  const ProcessResult off = loopsim("run " + go1 + " --floating --no-ground --duration 0.01 --quiet");
  EXPECT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(off.out.find("ground plane"), std::string::npos) << off.out;
}

TEST_F(BadInput, ModelOnlyRunFlagsOnASceneAreRefused) {
  const ProcessResult r = loopsim("run " + write("s.yaml", kFourBar) + " --no-ground --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("s.yaml") +
                                    ": --no-ground: applies to a model file run as a one-model scene; a scene file "
                                    "says it with its keys");
}

TEST_F(BadInput, ReplayOfAMissingCsvNamesTheCsv) {
  const ProcessResult r = loopsim("replay " + file("nope.csv"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: " + file("nope.csv") + ": no such record file");
}

TEST_F(BadInput, RecordOptionsWithoutRecordAreRefused) {
  const ProcessResult r = loopsim("run " + write("s.yaml", kFourBar) + " --record-every 10 --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.firstErrorLine(), "loopsim: error: --record-every: applies to --record, which is not given");
}

TEST_F(BadInput, EffortLimitsSaturateAndAreReported) {
  // A PD hold with a huge kd on fast joints asks for ~1e4 N·m; shoulder (effort 20 N·m) and slide (50 N)
  // clamp (the slide, lighter, slows below its limit after 6 steps; unclamped, that kd would be unstable).
  const std::string scene = write("arm.yaml", "models:\n  - urdf: " + testUrdf("two_link_arm.urdf") +
                                                  "\ninitial:\n  v: {shoulder: 5.0, slide: 1.0}\n"
                                                  "actuated: [shoulder, slide]\ncontroller: {type: pd_hold, kp: 0, kd: 1.0e4}\n"
                                                  "dt: 0.001\nduration: 0.01\n");
  const ProcessResult r = loopsim("run " + scene + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" Effort saturation  : 10 of 10 steps clamped at the effort limit (shoulder 10, slide 6)\n"),
            std::string::npos)
      << r.out;
}

TEST_F(BadInput, JointsLeavingTheirRangeAreReportedOncePerJoint) {
  // Shoulder limited to [-1.5, 1.5], started at 1.4 rad/s towards its upper limit with no
  // controller, the limits turned off.
  const std::string scene = write("arm.yaml", "models:\n  - urdf: " + testUrdf("two_link_arm.urdf") +
                                                  "\ninitial:\n  q: {shoulder: 1.45}\n  v: {shoulder: 5.0}\n"
                                                  "dt: 0.001\nduration: 0.2\njoint_limits: false\n");
  const ProcessResult r = loopsim("run " + scene);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string warning = "joint 'shoulder' left its position range at t = ";
  const auto first = r.err.find(warning);
  EXPECT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(warning, first + 1), std::string::npos) << "reported once:\n" << r.err;
  EXPECT_NE(r.out.find("joint 'shoulder' left its range [-1.5, 1.5] rad at t = "), std::string::npos) << r.out;
}

TEST_F(BadInput, SimulatedJointLimitsKeepEveryJointInItsRange) {
  // The same arm with the limits on (the default): the shoulder stops at 1.5 rad.
  const std::string scene = write("arm.yaml", "models:\n  - urdf: " + testUrdf("two_link_arm.urdf") +
                                                  "\ninitial:\n  q: {shoulder: 1.45}\n  v: {shoulder: 5.0}\n"
                                                  "dt: 0.001\nduration: 0.2\n");
  const ProcessResult r = loopsim("run " + scene);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("left its position range"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find(" Position ranges    : every joint stayed in its range\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" Joint limits       : a bound reached in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", 0 unconverged\n"), std::string::npos) << r.out;
}

TEST_F(BadInput, JointLimitsKeyRefusesBadValues) {
  const std::string arm = "models:\n  - urdf: " + testUrdf("two_link_arm.urdf") + "\n";
  const ProcessResult slop = loopsim("run " + write("a.yaml", arm + "joint_limits: {slop: -0.1}\n") + " --quiet");
  EXPECT_EQ(slop.exit_code, 1);
  EXPECT_NE(slop.firstErrorLine().find("-0.1"), std::string::npos) << slop.err;
  EXPECT_NE(slop.firstErrorLine().find("slop"), std::string::npos) << slop.err;
  const ProcessResult key = loopsim("run " + write("b.yaml", arm + "joint_limits: {enabled: true, margin: 1}\n") + " --quiet");
  EXPECT_EQ(key.exit_code, 1);
  EXPECT_NE(key.firstErrorLine().find("unknown key 'margin'"), std::string::npos) << key.err;
  const ProcessResult word = loopsim("run " + write("c.yaml", arm + "joint_limits: sometimes\n") + " --quiet");
  EXPECT_EQ(word.exit_code, 1);
  EXPECT_NE(word.firstErrorLine().find("sometimes"), std::string::npos) << word.err;
}

TEST_F(BadInput, JointsExceedingTheirVelocityLimitAreReportedOncePerJointAndRecorded) {
  // Shoulder (velocity limit 3 rad/s) starts at 5 rad/s; slide (1 m/s) at 0.5 m/s stays within.
  const std::string scene = write("arm.yaml", "models:\n  - urdf: " + testUrdf("two_link_arm.urdf") +
                                                  "\ninitial:\n  v: {shoulder: 5.0, slide: 0.5}\n"
                                                  "dt: 0.001\nduration: 0.05\n");
  const ProcessResult r = loopsim("run " + scene + " --record " + file("arm.csv"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The loader says the limits are not simulated ...
  EXPECT_NE(r.err.find("two_link_arm.urdf: <limit velocity> on 2 joints ('shoulder' 3, 'slide' 1) is not simulated; "
                       "`loopsim run` reports every joint that exceeds it"),
            std::string::npos)
      << r.err;
  // ... the run warns once, from the initial state on ...
  const std::string warning = "joint 'shoulder' exceeded its velocity limit at t = 0 s";
  const auto first = r.err.find(warning);
  EXPECT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("exceeded its velocity limit at", first + warning.size()), std::string::npos)
      << "reported once:\n"
      << r.err;
  // ... the summary lists it ...
  EXPECT_NE(r.out.find(" Velocity limits    : 1 joint exceeded the limit (velocity limits are not simulated)\n"
                       "   joint 'shoulder' exceeded its velocity limit 3 rad/s at t = 0 s, by up to 2"),
            std::string::npos)
      << r.out;
  // ... and so does the record's JSON summary.
  const std::string summary = loopsim::test::readWholeFile(dir_ / "arm.json");
  EXPECT_NE(summary.find("\"velocity_limits\": [\n      {\n        \"dof\": 0,\n        \"first_time\": 0.0,\n"
                         "        \"joint\": \"shoulder\",\n        \"limit\": 3.0,"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("\"joint\": \"slide\""), std::string::npos) << summary;
  EXPECT_EQ(loopsim("replay " + file("arm.csv") + " --verify").exit_code, 0);
}

TEST_F(BadInput, AModelWithoutVelocityLimitsSaysSo) {
  const ProcessResult r = loopsim("run " + write("s.yaml", kFourBar) + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" Velocity limits    : no joint has one\n"), std::string::npos) << r.out;
}

TEST_F(BadInput, InfoTakesTheShippedDigitMjcf) {
  const ProcessResult r = loopsim("info " + digitMjcf());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nv:"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "MUJOCO_LOG.TXT"));
}

TEST_F(BadInput, UnstablePdIsCaughtBeforeItOverflows) {
  // kp·dt²/m well above 4 on light links: explicit PD pumps energy every step.
  const std::string scene = write("unstable.yaml", R"(models:
  - generator: pendulum_chain
    params: {links: 3, weld_tip: false}
initial:
  v: {link_1_joint: 0.5}
actuated: all
controller: {type: pd_hold, kp: 2000, kd: 0}
dt: 0.01
duration: 5
)");
  const ProcessResult r = loopsim("run " + scene + " --quiet --record " + file("unstable.csv"));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  // The record keeps the run up to the stop, and its summary says why it stopped.
  const std::string summary = loopsim::test::readWholeFile(dir_ / "unstable.json");
  EXPECT_NE(summary.find("\"message\": \"diverged at t = 0.04 s (step 4): kinetic energy grew from "), std::string::npos)
      << summary;
  EXPECT_EQ(loopsim("replay " + file("unstable.csv") + " --verify").exit_code, 0);
  EXPECT_EQ(r.errorLine().rfind("loopsim: diverged at t = 0.04 s (step 4): kinetic energy grew from ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("; likely cause: the PD gains (kp 2000, kd 0) on joint 'link_"), std::string::npos) << r.err;
}

// Counts beyond what the machine holds are refused before the work, naming the
// count and the machine's figure, never the scene.
TEST_F(BadInput, CountsBeyondTheMachineAreRefusedNamingTheCount) {
  const std::string scene = write("s.yaml", kFourBar);
  ProcessResult r = loopsim("eval " + scene + " --states " + scene + " --out " + file("o.csv") + " --threads 100000");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.errorLine().find("--threads: 100000 is more than "), std::string::npos) << r.err;
  EXPECT_NE(r.errorLine().find("cores): more threads than that only add memory and switching"), std::string::npos)
      << r.err;
  r = loopsim("bench --scene " + scene + " --threads 100000");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.errorLine().find("--threads: 100000 is more than "), std::string::npos) << r.err;
  r = loopsim("bench --scene " + scene + " --samples 2000000000");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.errorLine().find("loopsim: error: samples: 2000000000 states of this scene need "), std::string::npos)
      << r.err;
  EXPECT_NE(r.errorLine().find(" of memory (at most half of it is used)"), std::string::npos) << r.err;
  EXPECT_EQ(r.errorLine().find("could not sample"), std::string::npos) << r.err;
}

// Values a command would silently ignore or obey absurdly are refused, naming the option.
TEST_F(BadInput, IgnoredOrAbsurdValuesAreRefusedNamingTheOption) {
  const std::string scene = write("s.yaml", kFourBar);
  ProcessResult r = loopsim("run " + scene + " --solver kkt --mu 1e3 --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.errorLine().rfind("loopsim: error: --mu: solver kkt does not use mu (a direct solver); mu is the "
                                "proximal or augmented-Lagrangian parameter of ",
                                0),
            0u)
      << r.err;
  EXPECT_EQ(loopsim("run " + scene + " --solver prox-ltl --mu 1e3 --quiet").exit_code, 0);
  r = loopsim("run " + write("tol.yaml", std::string(kFourBar) + "solver: {name: prox-ltl, tolerance: 1e300}\n") +
              " --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.errorLine().find("solver.tolerance"), std::string::npos) << r.err;
  EXPECT_NE(r.errorLine().find("must be at most 0.01, got '1e300' (a residual tolerance this large stops every solve "
                               "at once and lets the constraints drift)"),
            std::string::npos)
      << r.err;
  r = loopsim("delassus " + scene + " --algorithm dense --algorithm ltl-osim");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.errorLine(), "loopsim: error: --algorithm: prints one matrix: give one algorithm (got dense, "
                           "ltl-osim), or time several with --bench");
  r = loopsim("delassus " + scene + " --samples 5");
  EXPECT_EQ(r.errorLine(), "loopsim: error: --samples: applies to --bench");
  r = loopsim("bench --mu-sweep --scene " + scene + " --iterations 3");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.errorLine().rfind("loopsim: error: --iterations: --mu-sweep counts solver iterations to tolerance", 0),
            0u)
      << r.err;
}

// Messages name the option that exists and quote the value as typed.
TEST_F(BadInput, MessagesNameTheOptionAndTheValueAsTyped) {
  const std::string scene = write("s.yaml", kFourBar);
  ProcessResult r = loopsim("bench --scene " + scene + " --samples 0");
  EXPECT_EQ(r.errorLine(), "loopsim: error: --samples: must be at least 1, got 0");
  r = loopsim("delassus " + scene + " --bench --iterations 0");
  EXPECT_EQ(r.errorLine(), "loopsim: error: --iterations: must be at least 1, got 0");
  r = loopsim("bench --mu-sweep --mu-tolerance -1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.errorLine().find("--mu-tolerance: must be a finite number > 0 (got '-1')"), std::string::npos) << r.err;
  EXPECT_LT(r.err.size(), 400u) << "no 309-digit range: " << r.err;
  r = loopsim("run " + scene + " --record " + file("r.csv") + " --record-every 0");
  EXPECT_NE(r.errorLine().find("--record-every: must be a whole number >= 1 (got '0')"), std::string::npos) << r.err;
  r = loopsim("run " + dir_.string() + " --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.errorLine(), "loopsim: error: " + dir_.string() + ": is not a regular file") << r.err;
}
