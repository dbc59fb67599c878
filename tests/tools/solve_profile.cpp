// Runs one solver (or bare ABA) many times on consistent states of a scene,
// for a profiler: the per-solve instruction counts by function come from
//   valgrind --tool=callgrind --toggle-collect='loopsim::PvSolver::solve*'
//       build/tests/loopsim_solve_profile SCENE.yaml SOLVER [SOLVES]
// (SOLVER "aba" for the floor: toggle on 'loopsim::aba*'; "crba": the symmetric
// M alone, toggle on 'loopsim::crba*'). The states are
// bench's (engine/bench/state_sampling), 20 of them, cycled. Valgrind cannot
// run AVX-512 code: profile a -DLOOPSIM_NATIVE=OFF build.
// SOLVER "step:NAME" times Simulation::step (projection off, then on)
// against NAME's solve on the simulation's own states, interleaved in each
// of 41 rounds: medians and the median per-round ratios (docs/performance.md).
// SOLVER "phases" instead times the shared tree recursion's passes
// (tree_recursion.hpp) cumulatively against ABA, natively: ns per solve,
// median of 15 interleaved rounds; "crba-phases" the same for CRBA's passes
// (placements, world inertias and subspaces, the sweep). Solvers run cold at
// bench's μ (resolveAutoMu at q0 for M without a simulation's implicit-damping
// diagonal); natively, profile with
//   perf record -e cpu-clock --call-graph dwarf,16384 build/tests/loopsim_solve_profile ...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>
#include <cstdlib>
#include <string>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/joint_motion.hpp>
#include <loopsim/bench/state_sampling.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/solvers/selection/auto_mu.hpp>
#include <loopsim/solvers/common/tree_recursion.hpp>
#include <loopsim/solvers/registry.hpp>
#include <loopsim/sim/simulation.hpp>
#include "trajectory_states.hpp"

namespace {

double medianOf(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x[x.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace loopsim;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SCENE.yaml SOLVER|aba|crba|phases|crba-phases|step:SOLVER [SOLVES]\n", argv[0]);
    return 2;
  }
  try {
    const Scene scene = loadScene(argv[1]);
    const std::string solver_name = argv[2];
    const int solves = argc > 3 ? std::atoi(argv[3]) : 1000;
    const Model& model = *scene.model;
    const ConstraintSet set(model, scene.constraints, scene.time_constant);
    const auto states = sampleStates(scene, set, 20, 1);
    Data data(model);
    VectorX vdot(model.nv), lambda(set.dimension());
    double checksum = 0.0;
    // Each phase run over the states once per round, 15 rounds, the phases in
    // turn within a round: median ns per solve, and its ratio to the first.
    auto timePhases = [&](const std::vector<std::pair<const char*, std::function<void(const SampledState&)>>>& phases) {
      std::vector<std::vector<double>> ns(phases.size());
      for (int round = 0; round < 15; ++round) {
        for (std::size_t p = 0; p < phases.size(); ++p) {
          const auto start = std::chrono::steady_clock::now();
          for (int k = 0; k < solves; ++k) phases[p].second(states[static_cast<std::size_t>(k) % states.size()]);
          ns[p].push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
                          solves);
        }
      }
      double first_ns = 0.0;
      for (std::size_t p = 0; p < phases.size(); ++p) {
        const double median = medianOf(ns[p]);
        if (p == 0) first_ns = median;
        std::printf("%-36s %8.0f ns  %.2fx %s\n", phases[p].first, median, median / first_ns, phases[0].first);
      }
    };
    if (solver_name == "crba-phases") {
      // CRBA's passes cumulatively (crba.cpp): its placements (with the
      // unit-axis products ABA's placements skip), the world inertias and
      // subspaces (here the public pass, which also keeps the body inertias
      // for the world-frame RNEA), then the whole CRBA.
      timePhases({
          {"aba", [&](const SampledState& s) { aba(model, data, s.q, s.v, s.tau); }},
          {"placements", [&](const SampledState& s) { detail::setPlacements<true>(model, data, s.q); }},
          {"+ world inertias and subspaces", [&](const SampledState& s) {
             detail::setPlacements<true>(model, data, s.q);
             worldInertiasAndSubspaces(model, data);
           }},
          {"crba, lower triangle", [&](const SampledState& s) { crba(model, data, s.q, MassMatrixFill::LowerTriangle); }},
          {"crba, symmetric", [&](const SampledState& s) { crba(model, data, s.q); }},
      });
      return 0;
    }
    if (solver_name.rfind("step:", 0) == 0) {
      // Two simulations of the scene with NAME, projection off and on; the
      // solve alone is timed as a step calls it (its solver, with the step's
      // implicit-damping diagonal) on a cycle of 64 consecutive states of the
      // first, never twice in a row at one q (the joint-space solvers keep
      // their terms when q repeats).
      Scene off_scene = scene, on_scene = scene;
      off_scene.solver = on_scene.solver = solver_name.substr(5);
      off_scene.projection = false;
      on_scene.projection = true;
      off_scene.duration = on_scene.duration = 1e6;
      SimulationOptions options;
      options.timing_samples = 1 << 16;
      Simulation off(off_scene, options), on(on_scene, options);
      const test::TrajectoryStates states = test::nextTrajectoryStates(off, 64);
      if (states.q.size() < 64) throw ModelError(argv[1], "step", "the simulation diverged");
      VectorX sim_vdot(model.nv), sim_lambda(off.constraints().dimension());
      auto perCall = [&](auto&& body) {
        const auto start = std::chrono::steady_clock::now();
        for (int k = 0; k < solves; ++k) body(k);
        return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / solves;
      };
      auto steps = [&](Simulation& sim) {
        return perCall([&](int) {
          if (!sim.step()) throw ModelError(argv[1], "step", "the simulation diverged");
        });
      };
      auto solvesAlone = [&] {
        return perCall([&](int k) {
          const std::size_t i = static_cast<std::size_t>(k) % states.q.size();
          off.solver().solve(states.q[i], states.v[i], states.tau[i], {}, sim_vdot, sim_lambda);
          checksum += sim_vdot[0];
        });
      };
      // 41 short rounds, the three in rotated order: on a shared machine a
      // slow period then lands on all three alike, and the ratio survives it.
      std::vector<double> step_off, step_on, solve, off_ratio, on_ratio;
      for (int round = 0; round < 41; ++round) {
        double ns[3];  // off, on, solve
        for (int turn = 0; turn < 3; ++turn) {
          const int which = (round + turn) % 3;
          ns[which] = which == 0 ? steps(off) : which == 1 ? steps(on) : solvesAlone();
        }
        step_off.push_back(ns[0]);
        step_on.push_back(ns[1]);
        solve.push_back(ns[2]);
        off_ratio.push_back(ns[0] / ns[2]);
        on_ratio.push_back(ns[1] / ns[2]);
      }
      auto spread = [](std::vector<double> x) {
        std::sort(x.begin(), x.end());
        return x[x.size() * 3 / 4] - x[x.size() / 4];
      };
      std::printf("%s, %s: solve %.0f ns, step %.0f ns (projection off) = %.3fx solve (IQR %.3f), %.0f ns (on) = "
                  "%.3fx (IQR %.3f); checksum %.6g\n",
                  argv[1], off_scene.solver.c_str(), medianOf(solve), medianOf(step_off), medianOf(off_ratio),
                  spread(off_ratio), medianOf(step_on), medianOf(on_ratio), spread(on_ratio), checksum);
      return 0;
    }
    if (solver_name == "phases") {
      const VectorX no_added = VectorX::Zero(model.nv);
      TreeRecursion tree(set, no_added, "phases");
      auto backward = [&](bool rows) {
        if (rows) tree.clearL();
        for (int i = model.nbodies() - 1; i >= 1; --i) tree.eliminateJoint(i, rows);
      };
      auto pv = makeSolver("pv", set, scene.solver_settings);
      const std::vector<std::pair<const char*, std::function<void(const SampledState&)>>> phases = {
          {"aba", [&](const SampledState& s) { aba(model, data, s.q, s.v, s.tau); }},
          {"first pass only", [&](const SampledState& s) { articulatedFirstPass(model, tree.data, s.q, s.v, s.tau, {}); }},
          {"forward sweep (+ constraint rows)", [&](const SampledState& s) { tree.forwardSweep(s.q, s.v, s.tau, {}); }},
          {"+ backward, no rows", [&](const SampledState& s) {
             tree.forwardSweep(s.q, s.v, s.tau, {});
             backward(false);
           }},
          {"+ backward, no rows, + rollout", [&](const SampledState& s) {
             tree.forwardSweep(s.q, s.v, s.tau, {});
             backward(false);
             tree.rollout(tree.l, false, vdot);
           }},
          {"forward + backward carrying rows", [&](const SampledState& s) {
             tree.forwardSweep(s.q, s.v, s.tau, {});
             backward(true);
           }},
          {"pv solve", [&](const SampledState& s) { pv->solve(s.q, s.v, s.tau, {}, vdot, lambda); }},
      };
      timePhases(phases);
      return 0;
    }
    if (solver_name == "aba") {
      for (int k = 0; k < solves; ++k) {
        const auto& s = states[static_cast<std::size_t>(k) % states.size()];
        checksum += aba(model, data, s.q, s.v, s.tau)[0];
      }
    } else if (solver_name == "crba") {
      for (int k = 0; k < solves; ++k) {
        const auto& s = states[static_cast<std::size_t>(k) % states.size()];
        checksum += crba(model, data, s.q)(model.nv - 1, 0);
      }
    } else {
      // bench's setting: cold, μ auto at q0 (lcaba's default) for M without dt·D (its "μ as run").
      const SolverInfo* info = findSolver(solver_name);
      SolverSettings settings = resolveAutoMu(scene.solver_settings, info != nullptr ? info->capabilities : SolverCapabilities{},
                                              set, scene.q0.size() == model.nq ? scene.q0 : neutral(model), VectorX());
      settings.warm_start = false;
      auto solver = makeSolver(solver_name, set, settings);
      long iterations = 0;
      for (int k = 0; k < solves; ++k) {
        const auto& s = states[static_cast<std::size_t>(k) % states.size()];
        iterations += solver->solve(s.q, s.v, s.tau, {}, vdot, lambda).iterations;
        checksum += vdot[0];
      }
      std::printf("mu %.3g, cold, %.2f iterations per solve\n", settings.muValue(),
                  static_cast<double>(iterations) / std::max(solves, 1));
    }
    std::printf("%d solves by %s, checksum %.17g\n", solves, solver_name.c_str(), checksum);
  } catch (const ModelError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
