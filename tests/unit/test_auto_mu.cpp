// mu: auto (docs/solvers.md, "`mu: auto`"; paper 001 §VI-D):
//   - M x by massMatrixTimesAtKinematics equals crba's M x;
//   - the power-iteration λ_max(M (+ D)) is within 5 % of the dense eigenvalue
//     (Eigen SelfAdjointEigenSolver on crba's M) on Atlas, Go1, Digit, four_bar;
//   - with mu: auto, lcaba and prox-bbo match kkt to ≤ 1e-9 relative v̇ on
//     Digit and two_digits_box at tolerance 1e-12 (where the default μ 1e8
//     leaves lcaba at ~1e-6 on Digit);
//   - lcaba with mu: auto (μ from the constraint-space inertia) matches kkt to
//     1e-7 relative v̇ on a 256-link cycle and a 32-loop chain;
//   - bench --mu-sweep's table has the shape of paper 001 Figs. 10-11;
//   - `mu: auto` in a scene, `--mu`-style errors for banana and -1, and the
//     Simulation's binding (the resolved μ is what runs and what is recorded).
// (No allocation in the estimate or in solve(): test_allocation.cpp.)
#include <gtest/gtest.h>

#include <spdlog/spdlog.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <map>
#include <random>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/bench/mu_sweep.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/solvers/selection/auto_mu.hpp>
#include <loopsim/solvers/registry.hpp>
#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

using namespace loopsim;
using namespace loopsim::test;

namespace {

double denseLambdaMax(const Model& model, const VectorX& q, const VectorX& added) {
  Data data(model);
  MatrixX M = crba(model, data, q);
  if (added.size() == model.nv) M.diagonal() += added;
  const Eigen::SelfAdjointEigenSolver<MatrixX> eig(M, Eigen::EigenvaluesOnly);
  return eig.eigenvalues().maxCoeff();
}

// mu: auto, cold, to tolerance 1e-12: the accuracy checks against kkt.
SolverSettings coldAutoMuSettings() {
  SolverSettings settings;
  settings.mu_auto = true;
  settings.tolerance = 1e-12;
  settings.warm_start = false;
  settings.max_iterations = 200;
  return settings;
}

}  // namespace

TEST(AutoMu, MassMatrixProductEqualsCrba) {
  std::mt19937 rng(3);
  for (const char* file : {"atlas_standing.yaml", "digit_standing.yaml", "four_bar.yaml", "geared_chain.yaml"}) {
    const TreeCase c = sceneCase(file, 0.2);
    Data data(c.model);
    const VectorX q = sampleTreeState(c, rng).q;
    const MatrixX M = crba(c.model, data, q);
    forwardKinematics(c.model, data, q);
    const VectorX x = randomVector(rng, c.model.nv, 1.0);
    VectorX y(c.model.nv);
    massMatrixTimesAtKinematics(c.model, data, x, y);
    EXPECT_LE((y - M * x).lpNorm<Eigen::Infinity>(), 1e-11 * std::max(1.0, (M * x).lpNorm<Eigen::Infinity>()))
        << file;
  }
}

TEST(AutoMu, PowerIterationWithinFivePercentOfTheDenseEigenvalue) {
  QuietLog quiet;
  std::mt19937 rng(7);
  for (const char* file : {"atlas_standing.yaml", "go1_standing.yaml", "digit_standing.yaml", "four_bar.yaml"}) {
    const TreeCase c = sceneCase(file, 0.1);
    InertiaEigenEstimator estimator(c.model);
    for (int sample = 0; sample < 5; ++sample) {
      const VectorX q = sample == 0 ? c.q0 : sampleTreeState(c, rng).q;
      // With and without an implicit-damping diagonal (dt·D, here up to 0.5).
      const VectorX added = sample % 2 == 0 ? VectorX() : VectorX(0.5 * randomVector(rng, c.model.nv, 1.0).cwiseAbs());
      const AutoMuEstimate e = estimator.estimate(q, added);
      const double dense = denseLambdaMax(c.model, q, added);
      EXPECT_NEAR(e.lambda_max, dense, 0.05 * dense) << file << " sample " << sample;
      EXPECT_LE(e.lambda_max, dense * (1.0 + 1e-12)) << "a Rayleigh quotient is a lower bound";
      EXPECT_GE(e.sweeps, 2);
      EXPECT_LE(e.sweeps, 50);
      if (sample == 0) {
        std::printf("  %-20s nv %3d  lambda_max %.4g (dense %.4g, %+.2f %%) in %d sweeps\n", file, c.model.nv,
                    e.lambda_max, dense, 100.0 * (e.lambda_max / dense - 1.0), e.sweeps);
      }
    }
  }
}

TEST(AutoMu, LoopSolversMatchKktOnDigitScenes) {
  QuietLog quiet;
  std::mt19937 rng(11);
  for (const char* file : {"digit_standing.yaml", "two_digits_box.yaml"}) {
    const TreeCase c = sceneCase(file, 0.05);
    double worst = 0.0;
    for (int sample = 0; sample < 8; ++sample) {
      const TreeState s = sampleTreeState(c, rng);
      const ConstraintSet set(c.model, s.constraints);
      const SolverSettings settings = coldAutoMuSettings();
      AutoMuEstimate lambda_max = estimateInertiaEigenvalue(c.model, s.q, VectorX());
      lambda_max.constraint_inertia = estimateConstraintInertia(set, s.q, VectorX());
      VectorX reference(c.model.nv), vdot(c.model.nv), lambda(set.dimension());
      makeSolver("kkt", set)->solve(s.q, s.v, s.tau, s.fext, reference, lambda);
      for (const char* name : {"lcaba", "prox-bbo"}) {
        AutoMuEstimate estimate = lambda_max;
        const SolverSettings resolved = resolveAutoMu(settings, findSolver(name)->capabilities, estimate);
        EXPECT_FALSE(resolved.mu_auto);
        EXPECT_DOUBLE_EQ(resolved.muValue(), estimate.mu);
        const bool penalty = findSolver(name)->capabilities.penalty_in_inertia;
        EXPECT_DOUBLE_EQ(estimate.mu, penalty ? std::min(kAutoMuFactorConstraintInertia * estimate.constraint_inertia,
                                                         kAutoMuPenaltyCap * estimate.lambda_max)
                                              : kAutoMuFactorProximal * estimate.lambda_max);
        const SolveStats stats = makeSolver(name, set, resolved)->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
        // At tolerance 1e-12 the residual can stall at round-off just above
        // it (the stall stops the iteration); the v̇ check below is the test.
        EXPECT_TRUE(stats.converged || stats.residual <= 100 * settings.tolerance)
            << file << " " << name << " residual " << stats.residual;
        const double error = (vdot - reference).norm() / reference.norm();
        worst = std::max(worst, error);
        EXPECT_LE(error, 1e-9) << file << " " << name << " at mu " << resolved.muValue() << " (" << stats.iterations << " it)";
      }
    }
    std::printf("  %-20s mu auto: worst relative vdot error of lcaba / prox-bbo vs kkt %.2e\n", file, worst);
  }
}

// Long loops, where λ_max(M) grows ~n⁴ with the links but the constraint-space
// inertia λ_Λ does not: with μ = 1e3·λ_max(M) lcaba was 6e-6-5e-5 off kkt on
// the 256-link cycle and the 32-loop chain at any tolerance (penalty round-off,
// not the stopping test); μ = c_Λ·λ_Λ keeps it within 1e-7 (test_default_mu.cpp's bound) in the
// same few iterations as on Digit.
TEST(AutoMu, LcabaMatchesKktOnLongLoops) {
  QuietLog quiet;
  CycleParams cycle;
  cycle.links = 256;
  ChainOfLoopsParams chain;
  chain.loops = 32;
  chain.links_per_loop = 8;
  const GeneratedMechanism mechanisms[] = {cycleMechanism(cycle), chainOfLoops(chain)};
  std::mt19937 rng(23);
  for (const GeneratedMechanism& g : mechanisms) {
    const TreeCase c{g.model.name, g.model, g.constraints, g.q0, 0.05, {}};
    double worst = 0.0;
    int most_iterations = 0;
    for (int sample = 0; sample < 3; ++sample) {
      const TreeState s = sampleTreeState(c, rng);
      const ConstraintSet set(c.model, s.constraints);
      const SolverSettings settings = coldAutoMuSettings();
      const SolverSettings resolved = resolveAutoMu(settings, findSolver("lcaba")->capabilities, set, s.q, VectorX());
      VectorX reference(c.model.nv), vdot(c.model.nv), lambda(set.dimension());
      makeSolver("kkt", set)->solve(s.q, s.v, s.tau, s.fext, reference, lambda);
      const SolveStats stats = makeSolver("lcaba", set, resolved)->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
      const double error = (vdot - reference).norm() / reference.norm();
      worst = std::max(worst, error);
      most_iterations = std::max(most_iterations, stats.iterations);
      EXPECT_LE(error, 1e-7) << c.name << " sample " << sample << " at mu " << resolved.muValue();
      EXPECT_LE(stats.iterations, 10) << c.name << " sample " << sample << " at mu " << resolved.muValue();
    }
    std::printf("  %-16s nv %3d  lcaba mu auto: worst relative vdot error vs kkt %.2e, at most %d iterations\n",
                c.name.c_str(), c.model.nv, worst, most_iterations);
  }
}

// The grounded favourable branching (paper 001 Fig. 9, hub fixed) is where
// the cap binds: its λ_Λ grows with the branches (70 at 14, 667 at 42) while
// λ_max(M), one branch's, stays ~0.6, so c_Λ·λ_Λ is capped at
// kAutoMuPenaltyCap·λ_max(M). At the former cap 1e3 lcaba took 10-13
// iterations cold on 14 branches (38-69 on 42); at 1e4, 6-7, and v̇ stays
// within 1e-9 of kkt.
TEST(AutoMu, PenaltyCapBindsOnTheGroundedBranchingWithFewIterations) {
  QuietLog quiet;
  FavourableBranchingParams params;
  params.branches = 14;
  params.stem_links = 0;
  const GeneratedMechanism g = favourableBranching(params);
  const TreeCase c{g.model.name, g.model, g.constraints, g.q0, 0.05, {}};
  std::mt19937 rng(5);
  for (int sample = 0; sample < 3; ++sample) {
    const TreeState s = sampleTreeState(c, rng);
    const ConstraintSet set(c.model, s.constraints);
    AutoMuEstimate estimate = estimateInertiaEigenvalue(c.model, s.q, VectorX());
    estimate.constraint_inertia = estimateConstraintInertia(set, s.q, VectorX());
    const SolverSettings resolved = resolveAutoMu(coldAutoMuSettings(), findSolver("lcaba")->capabilities, estimate);
    EXPECT_TRUE(estimate.capped) << "lambda_Lambda " << estimate.constraint_inertia << ", lambda_max "
                                 << estimate.lambda_max;
    EXPECT_DOUBLE_EQ(resolved.muValue(), kAutoMuPenaltyCap * estimate.lambda_max);
    VectorX reference(c.model.nv), vdot(c.model.nv), lambda(set.dimension());
    makeSolver("kkt", set)->solve(s.q, s.v, s.tau, s.fext, reference, lambda);
    const SolveStats stats = makeSolver("lcaba", set, resolved)->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
    EXPECT_LE(stats.iterations, 8) << "sample " << sample << " at mu " << resolved.muValue();
    EXPECT_LE((vdot - reference).norm() / reference.norm(), 1e-9) << "sample " << sample;
  }
  // Below the cap, c_Λ·λ_Λ and not capped; a set without rows: the cap's factor.
  AutoMuEstimate below{.lambda_max = 10.0, .constraint_inertia = 1.0};
  resolvePenaltyMu(below);
  EXPECT_FALSE(below.capped);
  EXPECT_DOUBLE_EQ(below.mu, kAutoMuFactorConstraintInertia);
  AutoMuEstimate reused = below;  // a capped estimate resolved again below the cap is no longer capped
  reused.capped = true;
  resolvePenaltyMu(reused);
  EXPECT_FALSE(reused.capped);
  AutoMuEstimate rowless{.lambda_max = 10.0};
  resolvePenaltyMu(rowless);
  EXPECT_FALSE(rowless.capped);
  EXPECT_DOUBLE_EQ(rowless.mu, 10.0 * kAutoMuPenaltyCap);
}

// bench --mu-sweep --mu-cap: rows for the penalty solvers only, μ at most the
// cap times λ_max(M) in every row, and the cap that binds nowhere leaves μ alone.
TEST(AutoMu, MuCapSweepSweepsThePenaltyRule) {
  QuietLog quiet;
  const Scene scene = loadScene(scenesDir() / "four_bar.yaml");
  MuSweepOptions options;
  options.samples = 4;
  options.tolerance = 1e-12;
  options.penalty_cap = true;
  options.values = {1e2, 1e6};
  const std::vector<MuSweepRow> all = muSweep(scene, options);
  // lcaba at both caps, one row saying why constrained-aba (no internal loops)
  // cannot take the scene; the proximal solvers are not swept.
  std::vector<MuSweepRow> rows;
  for (const auto& r : all) {
    if (r.solver == "constrained-aba") {
      EXPECT_NE(r.note.find("internal loops"), std::string::npos) << r.note;
      continue;
    }
    EXPECT_EQ(r.solver, "lcaba");
    EXPECT_TRUE(r.note.empty()) << r.note;
    EXPECT_LE(r.max_error, 1e-9) << "cap " << r.value;
    rows.push_back(r);
  }
  ASSERT_EQ(all.size(), 3u);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_LE(rows[0].median_mu, 1e2 * rows[0].median_lambda_max * 1.5);  // the low cap binds
  EXPECT_GT(rows[1].median_mu, rows[0].median_mu);
  EXPECT_NE(formatMuSweepTable(all, options).find("cap=1e+02"), std::string::npos);
  options.solvers = {"prox-bbo"};
  const std::vector<MuSweepRow> refused = muSweep(scene, options);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].note.find("penalty_in_inertia"), std::string::npos) << refused[0].note;
}

TEST(AutoMu, UnresolvedAutoIsRefusedBySolvers) {
  const TreeCase c = sceneCase("four_bar.yaml", 0.0);
  const ConstraintSet set(c.model, c.constraints);
  SolverSettings settings;
  settings.mu_auto = true;
  for (const char* name : {"lcaba", "prox-bbo", "prox-ltl"}) {
    try {
      makeSolver(name, set, settings);
      ADD_FAILURE() << name << " accepted an unresolved mu: auto";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("mu: auto"), std::string::npos) << e.what();
    }
  }
}

namespace {

Scene sceneWithMu(const std::string& mu) {
  std::string text = "name: mu_scene\nmodels:\n  - generator: four_bar\ndt: 0.002\nduration: 0.1\n";
  text += "solver: {name: prox-bbo, mu: ";
  text += mu;
  text += "}\n";
  return loadSceneString(text, "mu_scene.yaml", {});
}

}  // namespace

TEST(AutoMu, SceneKey) {
  QuietLog quiet;
  const Scene scene = sceneWithMu("auto");
  EXPECT_TRUE(scene.solver_settings.mu_auto);
  EXPECT_DOUBLE_EQ(sceneWithMu("3e5").solver_settings.muValue(), 3e5);
  EXPECT_FALSE(sceneWithMu("3e5").solver_settings.mu_auto);
  for (const std::string bad : {"banana", "-1", "0", "[1, 2]"}) {
    try {
      sceneWithMu(bad);
      ADD_FAILURE() << "mu: " << bad << " accepted";
    } catch (const ModelError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("mu_scene.yaml"), std::string::npos) << what;
      EXPECT_NE(what.find("mu"), std::string::npos) << what;
      EXPECT_NE(what.find("positive number or 'auto'"), std::string::npos) << what;
      if (bad != "[1, 2]") {
        std::string quoted = "'";
        quoted.append(bad).push_back('\'');
        EXPECT_NE(what.find(quoted), std::string::npos) << what;
      }
    }
  }

  // The simulation resolves it at the consistent start: the resolved μ runs
  // (and is what a record stores); the binding keeps the estimate.
  Simulation sim(scene);
  const SolverBinding& binding = sim.solverBinding();
  ASSERT_TRUE(binding.auto_mu.has_value());
  EXPECT_TRUE(binding.mu_auto);
  EXPECT_FALSE(sim.scene().solver_settings.mu_auto);
  EXPECT_DOUBLE_EQ(sim.scene().solver_settings.muValue(), binding.auto_mu->mu);
  EXPECT_DOUBLE_EQ(sim.solver().settings().muValue(), binding.auto_mu->mu);
  EXPECT_NE(binding.muLine().find("μ auto:"), std::string::npos);
  EXPECT_NE(binding.muLine().find("power sweeps"), std::string::npos);
  EXPECT_TRUE(sim.run(0.05));
}

// bench --mu-sweep (paper 001 Figs. 10-11) has the paper's shape on the chain
// of loops: prox-bbo's iterations to tolerance fall as μ grows while its v̇
// stays at round-off; lcaba's v̇ drifts from kkt as μ grows (μ KᵀK round-off).
TEST(AutoMu, MuSweepHasTheShapeOfFigures10And11) {
  QuietLog quiet;
  const Scene scene = loadScene(scenesDir() / "chain_of_loops.yaml");
  MuSweepOptions options;
  options.samples = 5;
  options.values = {1e2, 1e4, 1e6, 1e8, 1e10};
  options.solvers = {"lcaba", "prox-bbo"};
  const std::vector<MuSweepRow> rows = muSweep(scene, options);
  ASSERT_EQ(rows.size(), 10u);
  std::map<std::string, std::vector<MuSweepRow>> by_solver;
  for (const auto& r : rows) {
    EXPECT_TRUE(r.note.empty()) << r.solver << ": " << r.note;
    EXPECT_EQ(r.reference, "kkt");
    by_solver[r.solver].push_back(r);
  }
  const auto& bbo = by_solver["prox-bbo"];
  const auto& lcaba = by_solver["lcaba"];
  for (std::size_t k = 1; k < bbo.size(); ++k) {
    EXPECT_LE(bbo[k].median_iterations, bbo[k - 1].median_iterations) << "mu " << bbo[k].value;
  }
  EXPECT_GT(bbo.front().median_iterations, bbo.back().median_iterations);
  for (const auto& r : bbo) EXPECT_LE(r.max_error, 1e-9) << "prox-bbo at mu " << r.value;
  EXPECT_GT(lcaba.back().median_error, 100.0 * lcaba.front().median_error);
  EXPECT_FALSE(formatMuSweepTable(rows, MuSweepOptions{}).empty());
  const std::string csv = formatMuSweepCsv(rows);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 11);
}
