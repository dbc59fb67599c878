// The O(n) loop solvers' impulse solve (ConstrainedSolver::solveImpulse) and
// the post-step projection through it (ConstraintProjector::useImpulseSolver):
//   - lcaba and prox-bbo's Δ equals the dense W-norm velocity projection's
//     (relative 1e-9 at tolerance 1e-12) on random consistent states of
//     Digit standing and paper 001's chain of loops, with and without an
//     added inertia; and the dense W⁻¹Jᵀ(J W⁻¹Jᵀ)⁻¹ r for a random target r;
//   - solve()'s warm start is untouched by an impulse solve;
//   - a simulation with projection on keeps the closure at 1e-8 over 1 s
//     with either solver on both scenes, and the projection ran through them;
//   - the impulse solve and the projection through it never allocate;
//   - a record made with projection + lcaba replays bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <unistd.h>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/record/recorder.hpp>
#include <loopsim/record/replay.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/solvers/registry.hpp>
#include "allocation_counter.hpp"
#include "loop_solver_settings.hpp"
#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

using namespace loopsim;
using namespace loopsim::test;

namespace {

const std::vector<std::string> kImpulseSolvers = {"lcaba", "prox-bbo"};
const std::vector<std::string> kImpulseScenes = {"digit_standing.yaml", "chain_of_loops.yaml"};

// The loop-solver tests' settings, warm start on (the impulse solve ignores
// it; LeavesTheSolveWarmStartAlone needs it).
SolverSettings tightSettings(const std::string& solver) { return test::tightSettings(test::agreementMu(solver), true); }

// ‖a - b‖ / ‖b‖: relative even where Δ is small.
double relativeTo(const VectorX& a, const VectorX& b) { return (a - b).norm() / b.norm(); }

struct Dense {
  MatrixX J, W;
};

// J and W = M + diag(d) at q, dense.
Dense denseTerms(const ConstraintSet& set, const VectorX& q, const VectorX& d) {
  Data data(set.model());
  ConstraintData cdata(set);
  computeConstraintTerms(set, data, q, VectorX::Zero(set.model().nv), cdata, kConstraintErrors | kConstraintJacobian);
  crba(set.model(), data, q);
  MatrixX W = data.M.selfadjointView<Eigen::Upper>();
  W.diagonal() += d;
  return {cdata.J, W};
}

}  // namespace

TEST(ImpulseSolve, EqualsTheDenseVelocityProjection) {
  const QuietLog quiet;
  std::map<std::string, double> worst;
  unsigned seed = 9100;
  for (const std::string& file : kImpulseScenes) {
    const TreeCase c = sceneCase(file, 0.05);
    std::mt19937 rng(seed++);
    for (int sample = 0; sample < 4; ++sample) {
      const TreeState s = sampleTreeState(c, rng);
      const ConstraintSet set(c.model, s.constraints);
      const int nv = c.model.nv, m = set.dimension();
      const VectorX d = sample % 2 == 1 ? VectorX(randomVector(rng, nv, 0.5).cwiseAbs()) : VectorX::Zero(nv);
      const VectorX v_in = s.v + randomVector(rng, nv, 1.0);  // off J v = 0
      // Reference: the dense path (held joints none), metric W = M + diag(d).
      ConstraintProjector dense(set);
      dense.setMetricDiagonal(&d);
      VectorX v_dense = v_in;
      dense.projectVelocities(s.q, v_dense);
      const VectorX delta_ref = v_dense - v_in;
      ASSERT_GT(delta_ref.norm(), 1e-3) << file << ": the projection must move v";
      const Dense ref = denseTerms(set, s.q, d);
      const VectorX r_random = randomVector(rng, m, 0.1);
      const MatrixX WinvJt = ref.W.ldlt().solve(ref.J.transpose());
      const VectorX delta_random = WinvJt * (ref.J * WinvJt).ldlt().solve(r_random);
      for (const std::string& name : kImpulseSolvers) {
        const std::string where = name + ", " + file + ", sample " + std::to_string(sample);
        auto solver = makeSolver(name, set, tightSettings(name));
        ASSERT_TRUE(solver->supportsImpulseSolve()) << where;
        solver->setAddedInertia(d);
        VectorX delta(nv);
        const VectorX r = -(ref.J * v_in);
        const SolveStats stats = solver->solveImpulse(s.q, r, delta);
        worst[name] = std::max(worst[name], relativeTo(delta, delta_ref));
        EXPECT_LE(relativeTo(delta, delta_ref), 1e-9) << where << ", " << stats.iterations << " iterations";
        EXPECT_LE((ref.J * (v_in + delta)).lpNorm<Eigen::Infinity>(), 1e-10) << where;
        EXPECT_TRUE(stats.converged || stats.residual <= 1e-11) << where << ", residual " << stats.residual;
        // W Δ ∈ range(Jᵀ): the metric is M + diag(d), not M.
        const VectorX WD = ref.W * delta;
        const VectorX p = ref.J.transpose().colPivHouseholderQr().solve(WD);
        EXPECT_LE((ref.J.transpose() * p - WD).norm(), 1e-8 * WD.norm()) << where;
        solver->solveImpulse(s.q, r_random, delta);
        worst[name] = std::max(worst[name], relativeTo(delta, delta_random));
        EXPECT_LE(relativeTo(delta, delta_random), 1e-9) << where << ", random target";
      }
    }
  }
  for (const auto& [name, error] : worst) std::printf("[%s impulse solve vs dense] max relative error of Δ %.2e\n", name.c_str(), error);
}

TEST(ImpulseSolve, LeavesTheSolveWarmStartAlone) {
  const QuietLog quiet;
  // A warm-started solve after an impulse solve equals one without it, bit for bit.
  const TreeCase c = sceneCase("chain_of_loops.yaml", 0.05);
  std::mt19937 rng(9200);
  const TreeState s = sampleTreeState(c, rng);
  const ConstraintSet set(c.model, s.constraints);
  const int nv = c.model.nv, m = set.dimension();
  for (const std::string& name : kImpulseSolvers) {
    SolverSettings settings = tightSettings(name);
    settings.mu = name == "lcaba" ? 1e2 : 1e1;  // several iterations: the warm start matters
    auto a = makeSolver(name, set, settings);
    auto b = makeSolver(name, set, settings);
    VectorX vdot_a(nv), vdot_b(nv), lambda_a(m), lambda_b(m), delta(nv);
    a->solve(s.q, s.v, s.tau, s.fext, vdot_a, lambda_a);
    b->solve(s.q, s.v, s.tau, s.fext, vdot_b, lambda_b);
    b->solveImpulse(s.q, randomVector(rng, m, 1.0), delta);
    const SolveStats stats_a = a->solve(s.q, s.v, s.tau, s.fext, vdot_a, lambda_a);
    const SolveStats stats_b = b->solve(s.q, s.v, s.tau, s.fext, vdot_b, lambda_b);
    EXPECT_EQ(stats_a.iterations, stats_b.iterations) << name;
    EXPECT_EQ(vdot_a, vdot_b) << name;
    EXPECT_EQ(lambda_a, lambda_b) << name;
  }
}

TEST(ImpulseSolve, OtherSolversHaveNone) {
  const TreeCase c = sceneCase("chain_of_loops.yaml", 0.05);
  const ConstraintSet set(c.model, c.constraints);
  auto kkt = makeSolver("kkt", set, {});
  EXPECT_FALSE(kkt->supportsImpulseSolve());
  VectorX delta(c.model.nv);
  EXPECT_THROW(kkt->solveImpulse(c.q0, VectorX::Zero(set.dimension()), delta), std::logic_error);
  ConstraintProjector projector(set);
  EXPECT_THROW(projector.useImpulseSolver(kkt.get()), ModelError);
  ConstraintProjector holding(set, {1});
  auto lcaba = makeSolver("lcaba", set, tightSettings("lcaba"));
  EXPECT_THROW(holding.useImpulseSolver(lcaba.get()), ModelError);
}

TEST(ImpulseProjection, SimulationKeepsTheClosure) {
  const QuietLog quiet(spdlog::level::err);  // Digit's holding torques beyond the effort limits warn
  for (const std::string& file : kImpulseScenes) {
    for (const std::string& name : kImpulseSolvers) {
      Scene scene = loadScene(scenesDir() / file);
      scene.projection = true;
      scene.solver = name;
      Simulation sim(scene);
      ASSERT_TRUE(sim.solver().supportsImpulseSolve());
      double worst_phi = 0.0, worst_phidot = 0.0;
      const long steps = std::lround(1.0 / scene.dt);
      Data data(*scene.model);
      ConstraintData cdata(sim.constraints());
      for (long k = 0; k < steps; ++k) {
        ASSERT_TRUE(sim.step()) << name << ", " << file;
        computeConstraintTerms(sim.constraints(), data, sim.q(), sim.v(), cdata, kConstraintErrors);
        worst_phi = std::max(worst_phi, cdata.phi.lpNorm<Eigen::Infinity>());
        worst_phidot = std::max(worst_phidot, cdata.phidot.lpNorm<Eigen::Infinity>());
      }
      std::printf("[%s, %s, projection through the impulse solve, 1 s] max |phi| %.2e, max |J v| %.2e\n", name.c_str(),
                  file.c_str(), worst_phi, worst_phidot);
      EXPECT_LE(worst_phi, 1e-8) << name << ", " << file;
      EXPECT_LE(worst_phidot, 1e-8) << name << ", " << file;
    }
  }
}

TEST(ImpulseProjection, DoesNotAllocate) {
  const QuietLog quiet;
  for (const std::string& file : kImpulseScenes) {
    const TreeCase c = sceneCase(file, 0.05);
    std::mt19937 rng(9300);
    const TreeState s = sampleTreeState(c, rng);
    const ConstraintSet set(c.model, s.constraints);
    const int nv = c.model.nv;
    for (const std::string& name : kImpulseSolvers) {
      SolverSettings settings = tightSettings(name);
      settings.mu = name == "lcaba" ? 1e3 : 1e2;  // several iterations: the reduced sweeps run
      auto solver = makeSolver(name, set, settings);
      solver->setAddedInertia(VectorX::Constant(nv, 0.01));
      ConstraintProjector projector(set);
      projector.useImpulseSolver(solver.get());
      const VectorX r = randomVector(rng, set.dimension(), 0.1);
      VectorX delta(nv);
      solver->solveImpulse(s.q, r, delta);
      SolveStats stats;
      EXPECT_EQ(countHeapAllocations([&] { stats = solver->solveImpulse(s.q, r, delta); }), 0) << name << ", " << file;
      EXPECT_GT(stats.iterations, 1) << name << ", " << file << ": the reduced sweeps ran";
      // Off the manifold in q and v: both projections run.
      VectorX q(c.model.nq), v = s.v + randomVector(rng, nv, 0.5);
      integrate(c.model, s.q, randomVector(rng, nv, 1e-4), 1.0, q);
      VectorX q_work = q, v_work = v;
      projector.project(q_work, v_work, 3);
      q_work = q;
      v_work = v;
      ProjectionResult result;
      EXPECT_EQ(countHeapAllocations([&] { result = projector.project(q_work, v_work, 3); }), 0) << name << ", " << file;
      EXPECT_GT(result.iterations, 0) << name << ", " << file << ": the positions were projected";
      EXPECT_LE(result.velocity_residual, 1e-10) << name << ", " << file;
    }
  }
}

TEST(ImpulseProjection, RecordWithLcabaReplaysBitForBit) {
  const QuietLog quiet;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("loopsim_impulse_record_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Scene scene = loadScene(scenesDir() / "chain_of_loops.yaml");
  ASSERT_TRUE(scene.projection);
  scene.solver = "lcaba";
  Simulation sim(scene);
  ASSERT_TRUE(sim.solver().supportsImpulseSolve());
  const auto csv = dir / "run.csv";
  {
    SimulationRecorder recorder(sim, csv, false, {});
    for (int k = 0; k < 200; ++k) ASSERT_TRUE(recorder.step(sim));
    recorder.finish(sim, "test");
  }
  const ReplayReport report = replayRecord(csv, true);
  EXPECT_TRUE(report.verified) << report.mismatch;
  EXPECT_EQ(report.steps, 200);
  std::filesystem::remove_all(dir);
}
