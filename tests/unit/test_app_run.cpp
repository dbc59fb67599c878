// The `run`, `solvers` and `check` commands, through the built binary.
#include "command_output.hpp"
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace {

using Output = loopsim::test::CommandOutput;

Output runLoopsim(const std::string& arguments) {
  return loopsim::test::runCommand(std::string(LOOPSIM_BINARY) + " " + arguments);
}

std::string scenePath(const std::string& name) {
  return (std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / name).string();
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::filesystem::path writeTemporaryScene(const std::string& name, const std::string& yaml) {
  const auto path = std::filesystem::temp_directory_path() / ("loopsim_test_" + name + ".yaml");
  std::ofstream(path) << yaml;
  return path;
}

}  // namespace

TEST(AppRun, PrintsTheSummaryBlock) {
  const Output out = runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.5 --quiet");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  for (const char* line : {"Simulation summary: four_bar (solver kkt, dt 0.001 s", "Steps              : 500",
                           "Simulated time     : 0.5 s", "Steps per second", "Realtime factor", "Median step",
                           "Median solve", "Iterations / step  : 1.00", "Violation position : max",
                           "Violation velocity : max", "Energy balance     : E - E0 - W_applied - W_damping ="}) {
    EXPECT_TRUE(contains(out.text, line)) << "missing '" << line << "' in:\n" << out.text;
  }
  EXPECT_FALSE(contains(out.text, "[####")) << "no progress bar when stdout is not a terminal";
}

TEST(AppRun, TheSolveMedianSaysWhenTheProjectionEvaluatedItsTerms) {
  // With projection on, a joint-space solver's solve at the projected q keeps
  // M, J and the Delassus matrix: the summary must say why it looks cheap.
  const char* note = "Median solve       : ";
  const char* shared = "(M, J and the Delassus matrix from the previous step's projection)";
  Output out = runLoopsim("run " + scenePath("cycle.yaml") + " --duration 0.05 --solver kkt --quiet");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, note) && contains(out.text, shared)) << out.text;
  out = runLoopsim("run " + scenePath("cycle.yaml") + " --duration 0.05 --solver prox-bbo --quiet");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, note) && !contains(out.text, shared)) << "prox-bbo evaluates its own terms:\n"
                                                                      << out.text;
  out = runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.05 --solver kkt --quiet");  // projection off
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, note) && !contains(out.text, shared)) << out.text;
}

TEST(AppRun, OverridesDtAndSolverAndRejectsBadValues) {
  Output out = runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.1 --dt 0.002 --solver kkt --quiet");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, "Steps              : 50\n")) << out.text;
  EXPECT_TRUE(contains(out.text, "dt 0.002 s")) << out.text;

  out = runLoopsim("run " + scenePath("four_bar.yaml") + " --dt -1 --quiet");
  EXPECT_EQ(out.exit_code, 1) << out.text;
  EXPECT_TRUE(contains(out.text, "--dt: must be a finite number > 0")) << out.text;

  out = runLoopsim("run " + scenePath("four_bar.yaml") + " --solver kktt --quiet");
  EXPECT_EQ(out.exit_code, 1) << out.text;
  EXPECT_TRUE(contains(out.text, "did you mean 'kkt'")) << out.text;
}

// `run --solver auto --mu auto` says what the probe picked and the μ
// it estimated; `check` says the same; --mu takes a positive number or auto.
TEST(AppRun, AutoSolverAndAutoMuAreReported) {
  Output out = runLoopsim("run " + scenePath("chain_of_loops.yaml") + " --solver auto --mu auto --duration 0.05 --quiet");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, "solver auto → ")) << out.text;
  EXPECT_TRUE(contains(out.text, "(probe: ")) << out.text;
  EXPECT_TRUE(contains(out.text, "μ auto: ")) << out.text;
  EXPECT_TRUE(contains(out.text, "power sweeps); iterations median ")) << out.text;

  out = runLoopsim("run " + scenePath("chain_of_loops.yaml") + " --solver lcaba --mu 2e4 --duration 0.05 --quiet");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_FALSE(contains(out.text, "μ auto")) << out.text;

  // lcaba without a μ: auto is its default (docs/solvers.md); a μ far above auto's is warned about, once.
  out = runLoopsim("run " + scenePath("chain_of_loops.yaml") + " --solver lcaba --duration 0.05 --quiet");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, "μ auto (lcaba's default): ")) << out.text;
  EXPECT_FALSE(contains(out.text, "solver 'lcaba': mu ")) << out.text;
  out = runLoopsim("run " + scenePath("chain_of_loops.yaml") + " --solver lcaba --mu 1e8 --duration 0.05 --quiet");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  const std::string warning = "solver 'lcaba': mu 1e+08 is ";
  ASSERT_TRUE(contains(out.text, warning)) << out.text;
  EXPECT_EQ(out.text.find(warning), out.text.rfind(warning)) << out.text;
  EXPECT_FALSE(contains(out.text, "μ auto")) << out.text;

  for (const char* bad : {"banana", "-1", "0"}) {
    out = runLoopsim("run " + scenePath("four_bar.yaml") + " --mu " + bad + " --quiet");
    EXPECT_EQ(out.exit_code, 1) << out.text;
    EXPECT_TRUE(contains(out.text, std::string("--mu: expected a positive number or 'auto', got '") + bad + "'"))
        << out.text;
  }

  const auto path = writeTemporaryScene("auto_check", R"(name: auto_check
models:
  - generator: four_bar
solver: {name: auto, mu: auto}
)");
  out = runLoopsim("check " + path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, "solver:       auto")) << out.text;
  EXPECT_TRUE(contains(out.text, "solver auto → ")) << out.text;
  EXPECT_TRUE(contains(out.text, "μ auto: ")) << out.text;

  const auto explicit_mu = writeTemporaryScene("explicit_mu_check", R"(name: explicit_mu_check
models:
  - generator: four_bar
solver: {name: lcaba, mu: 1e9}
)");
  out = runLoopsim("check " + explicit_mu.string());
  std::filesystem::remove(explicit_mu);
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, "solver 'lcaba': mu 1e+09 is ")) << out.text;
}

TEST(AppRun, DivergenceStopsWithExitCode3AndNamesTheDof) {
  // A PD hold far too stiff for the step (kp 1e9 at dt 10 ms) explodes.
  const auto path = writeTemporaryScene("diverging", R"(name: diverging_chain
models:
  - generator: pendulum_chain
    params: {links: 7, weld_tip: false}
initial:
  v: {link_1_joint: 0.1, link_4_joint: -0.1}
actuated: all
controller: {type: pd_hold, kp: 1.0e9, kd: 0}
dt: 0.01
duration: 100
)");
  const Output out = runLoopsim("run " + path.string() + " --quiet");
  EXPECT_EQ(out.exit_code, 3) << out.text;
  EXPECT_TRUE(contains(out.text, "DIVERGED")) << out.text;
  EXPECT_TRUE(contains(out.text, "diverged at t = ")) << out.text;
  EXPECT_TRUE(contains(out.text, "on joint 'link_")) << out.text;
  EXPECT_TRUE(contains(out.text, "Simulation summary")) << out.text;
  std::filesystem::remove(path);
}

TEST(AppRun, HelpStatesTheExitCodes) {
  const Output out = runLoopsim("run --help");
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_TRUE(contains(out.text, "3 diverged")) << out.text;
}

TEST(AppSolvers, ListsTheRegistryWithCapabilities) {
  Output out = runLoopsim("solvers");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, "  kkt\n")) << out.text;
  EXPECT_TRUE(contains(out.text, "supports: world constraints, internal loops, couplings; exact, direct")) << out.text;
  out = runLoopsim("solvers --table");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, "redundant")) << out.text;
}

TEST(AppCheck, DescribesAScene) {
  const Output out = runLoopsim("check " + scenePath("four_bar.yaml"));
  ASSERT_EQ(out.exit_code, 0) << out.text;
  for (const char* line : {"scene:        four_bar", "constraints:  1, dimension 2", "loop", "revolute",
                           "rank of J at q0: 2 of 2 (full rank)", "consistent start:",
                           "solver:       kkt (supports this scene)", "\nok\n"}) {
    EXPECT_TRUE(contains(out.text, line)) << "missing '" << line << "' in:\n" << out.text;
  }
}

TEST(AppCheck, DescribesAUrdfAndRejectsBadFiles) {
  Output out = runLoopsim(std::string("check ") + LOOPSIM_ASSETS_DIR + "/robots/go1/go1.urdf");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(contains(out.text, "nv:")) << out.text;
  EXPECT_TRUE(contains(out.text, "\nok\n")) << out.text;

  const auto path = writeTemporaryScene("bad_key", "name: bad\nmodels:\n  - generator: four_bar\ndtt: 0.001\n");
  out = runLoopsim("check " + path.string());
  EXPECT_EQ(out.exit_code, 1) << out.text;
  EXPECT_TRUE(contains(out.text, "loopsim: error:")) << out.text;
  EXPECT_TRUE(contains(out.text, "dtt")) << out.text;
  std::filesystem::remove(path);
}

TEST(AppCheck, ReportsTheHoldingForcesAndRefusesAPoseThatCannotBeHeld) {
  Output out = runLoopsim("check " + scenePath("atlas_standing.yaml"));
  ASSERT_EQ(out.exit_code, 0) << out.text;
  for (const char* line : {"controller:   pd_hold on 30 actuated joints (kp 2000, kd 30, feedforward hold)",
                           "holding forces at q0 (feedforward: hold; least actuator effort |tau|, then least |lambda|)",
                           "left_foot_weld", "right_foot_weld", "50.3%", "49.7%",
                           "support by the world constraints: 1718 N vertical (weight of the model 1718 N)"}) {
    EXPECT_TRUE(contains(out.text, line)) << "missing '" << line << "' in:\n" << out.text;
  }

  // The same robot with its arms left passive: nothing carries their weight.
  std::ifstream in(scenePath("atlas_standing.yaml"));
  std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string arms =
      "l_arm_shz, l_arm_shx, l_arm_ely, l_arm_elx, l_arm_uwy, l_arm_mwx, l_arm_lwy,\n"
      "           r_arm_shz, r_arm_shx, r_arm_ely, r_arm_elx, r_arm_uwy, r_arm_mwx, r_arm_lwy";
  ASSERT_NE(yaml.find(arms), std::string::npos);
  yaml.replace(yaml.find(arms), arms.size(), "l_arm_shz");
  yaml.replace(yaml.find("robots/atlas/atlas.urdf"), 23, std::string(LOOPSIM_ASSETS_DIR) + "/robots/atlas/atlas.urdf");
  const auto path = writeTemporaryScene("passive_arms", yaml);
  out = runLoopsim("check " + path.string());
  EXPECT_EQ(out.exit_code, 1) << out.text;
  EXPECT_TRUE(contains(out.text, "hold: the pose cannot be held with the actuated joints")) << out.text;
  EXPECT_TRUE(contains(out.text, "'r_arm_")) << out.text;
  std::filesystem::remove(path);
}

TEST(AppRun, OutOfMemoryIsAClearErrorNamingTheCommand) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more virtual memory than the limit this test sets";
#else
  // 10,000 links: the dense terms (nv² doubles each) do not fit under a 1 GB address-space limit.
  const std::string scene = writeTemporaryScene("out_of_memory",
                                               "name: big\nmodels:\n  - generator: random_tree\n    params: {links: 10000}\ndt: 0.001\n").string();
  const Output out = loopsim::test::runCommand("ulimit -v 1000000; " + std::string(LOOPSIM_BINARY) + " run " + scene +
                                               " --duration 0.002 --quiet");
  EXPECT_EQ(out.exit_code, 1) << out.text;
  EXPECT_NE(out.text.find("loopsim: error: out of memory in `run`"), std::string::npos) << out.text;
  EXPECT_EQ(out.text.find("std::bad_alloc"), std::string::npos) << out.text;
#endif
}
