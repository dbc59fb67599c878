// The default μ (docs/solvers.md, "Default μ"): a solver with penalty_in_inertia (lcaba,
// constrained-aba) that nobody gave a μ resolves mu: auto where it is bound;
// the proximal solvers keep kDefaultMu; an explicit μ stays the user's, with a
// warning when it is far above what auto would choose.
#include <gtest/gtest.h>

#include <cstdio>

#include <string>

#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/solvers/selection/auto_mu.hpp>
#include <loopsim/solvers/registry.hpp>
#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

namespace loopsim {
namespace {

using test::QuietLog;

Scene withSolver(const std::string& file, const std::string& solver) {
  Scene scene = loadScene(test::scenesDir() / file);
  scene.solver = solver;
  return scene;
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// ‖v̇ − v̇_kkt‖ / ‖v̇_kkt‖ of `sim`'s solver at its consistent start (τ = 0, the
// simulation's added inertia on both).
double relativeErrorToKkt(Simulation& sim) {
  const ConstraintSet& set = sim.constraints();
  auto kkt = makeSolver("kkt", set, SolverSettings{});
  kkt->setAddedInertia(sim.solver().addedInertia());
  const VectorX tau = VectorX::Zero(sim.model().nv);
  VectorX reference(sim.model().nv), vdot(sim.model().nv), lambda(set.dimension());
  kkt->solve(sim.q(), sim.v(), tau, {}, reference, lambda);
  sim.solver().solve(sim.q(), sim.v(), tau, {}, vdot, lambda);
  return (vdot - reference).norm() / reference.norm();
}

}  // namespace

TEST(DefaultMu, PenaltySolversResolveAutoWhenNobodyChoseMu) {
  QuietLog quiet;
  for (const auto& [file, solver] : {std::pair{"four_bar.yaml", "lcaba"}, std::pair{"pendulum_weld.yaml", "constrained-aba"}}) {
    const Scene scene = withSolver(file, solver);
    ASSERT_FALSE(scene.solver_settings.mu.has_value()) << file << " gives mu: the default is not tested";
    const Simulation sim(scene);
    const SolverBinding& binding = sim.solverBinding();
    EXPECT_TRUE(binding.mu_default) << solver;
    EXPECT_FALSE(binding.mu_auto) << solver;
    ASSERT_TRUE(binding.auto_mu.has_value()) << solver;
    EXPECT_DOUBLE_EQ(sim.scene().solver_settings.muValue(), binding.auto_mu->mu) << solver;
    EXPECT_LT(binding.auto_mu->mu, kDefaultMu / 100.0) << solver;  // far from the old default on these scenes
    EXPECT_TRUE(contains(binding.muLine(), std::string("μ auto (") + solver + "'s default): ")) << binding.muLine();
    EXPECT_TRUE(binding.mu_warning.empty()) << binding.mu_warning;
  }
}

TEST(DefaultMu, ProximalSolversKeepTheirDefault) {
  QuietLog quiet;
  for (const char* solver : {"prox-bbo", "prox-ltl"}) {
    const Simulation sim(withSolver("four_bar.yaml", solver));
    EXPECT_FALSE(sim.solverBinding().auto_mu.has_value()) << solver;
    EXPECT_DOUBLE_EQ(sim.scene().solver_settings.muValue(), kDefaultMu) << solver;
    EXPECT_TRUE(sim.scene().solver_settings.mu.has_value()) << solver << ": the bound settings carry their μ";
    EXPECT_TRUE(sim.solverBinding().mu_warning.empty()) << solver;
  }
}

TEST(DefaultMu, AnExplicitMuStaysAndFarAboveAutoIsWarnedAbout) {
  QuietLog quiet;
  Scene scene = withSolver("four_bar.yaml", "lcaba");
  const double automatic = Simulation(scene).solverBinding().auto_mu->mu;

  scene.solver_settings.mu = 1e8;
  const Simulation high(scene);
  EXPECT_FALSE(high.solverBinding().auto_mu.has_value());
  EXPECT_FALSE(high.solverBinding().mu_default);
  EXPECT_DOUBLE_EQ(high.scene().solver_settings.muValue(), 1e8);
  const std::string& warning = high.solverBinding().mu_warning;
  EXPECT_TRUE(contains(warning, "solver 'lcaba'")) << warning;
  EXPECT_TRUE(contains(warning, "mu 1e+08")) << warning;
  char auto_text[32];
  std::snprintf(auto_text, sizeof auto_text, "(%.3g)", automatic);
  EXPECT_TRUE(contains(warning, auto_text)) << warning << " (auto " << automatic << ")";
  EXPECT_TRUE(contains(warning, "mu: auto")) << warning;

  // Within kExplicitMuWarningRatio of auto: the user's choice, silently.
  scene.solver_settings.mu = 10.0 * automatic;
  const Simulation near(scene);
  EXPECT_DOUBLE_EQ(near.scene().solver_settings.muValue(), 10.0 * automatic);
  EXPECT_TRUE(near.solverBinding().mu_warning.empty()) << near.solverBinding().mu_warning;

  // The proximal solvers are not warned about (μ only damps them).
  Scene prox = withSolver("four_bar.yaml", "prox-bbo");
  prox.solver_settings.mu = 1e12;
  EXPECT_TRUE(Simulation(prox).solverBinding().mu_warning.empty());
}

// lcaba on Digit at its default μ agrees with kkt to 1e-7 at
// tolerance 1e-12 (2.7e-9); at the old default 1e8 it did not (6.1e-3).
TEST(DefaultMu, LcabaOnDigitMatchesKktAtItsDefault) {
  QuietLog quiet;
  Scene scene = withSolver("digit_standing.yaml", "lcaba");
  scene.solver_settings.tolerance = 1e-12;
  scene.solver_settings.warm_start = false;
  Simulation by_default(scene);
  const double at_auto = relativeErrorToKkt(by_default);
  EXPECT_LE(at_auto, 1e-7);
  scene.solver_settings.mu = kDefaultMu;
  Simulation old_default(scene);
  const double at_old_default = relativeErrorToKkt(old_default);
  EXPECT_GT(at_old_default, 1e-6);
  std::printf("  lcaba on Digit, relative v̇ error vs kkt: %.2g at mu auto (%.3g), %.2g at %.0e\n", at_auto,
              by_default.solver().settings().muValue(), at_old_default, kDefaultMu);
  EXPECT_FALSE(old_default.solverBinding().mu_warning.empty());
}

}  // namespace loopsim
