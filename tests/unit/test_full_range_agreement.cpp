// Every exact solver against the dense KKT reference on random states drawn
// across the joint ranges (randomConfiguration: uniform within limits,
// unlimited revolute joints in [-π, π], random base orientations), not only
// near a scene's start: limbs near singular poses are where an elimination
// with a small pivot loses its digits (pv-early once lost up to 1e-6 relative
// on Atlas 2F+2H here while pv kept 1e-13; cluster-aba's λ 2e-3 on Digit's
// leg loops before its least squares and refinement). Scenes with internal loops or
// couplings get the random q projected onto their constraints.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/solvers/registry.hpp>
#include <loopsim/solvers/selection/solver_check.hpp>

#include "quiet_log.hpp"

using namespace loopsim;
namespace fs = std::filesystem;

namespace {

constexpr int kStatesPerScene = 150;
constexpr double kTolerance = 1e-9;  // relative, ‖Δ‖∞ / ‖reference‖∞

double relativeError(const VectorX& value, const VectorX& reference) {
  return (value - reference).lpNorm<Eigen::Infinity>() / std::max(1e-300, reference.lpNorm<Eigen::Infinity>());
}

bool onlyWorldConstraints(const Scene& scene) {
  return std::all_of(scene.constraints.begin(), scene.constraints.end(),
                     [](const Constraint& c) { return c.kind != ConstraintKind::Coupling && c.body2 == 0; });
}

// The exact direct solvers: neither iterative (to a tolerance) nor soft.
std::vector<const SolverInfo*> exactSolvers() {
  std::vector<const SolverInfo*> out;
  for (const SolverInfo& info : solverRegistry()) {
    if (info.name != "kkt" && !info.capabilities.iterative && !info.capabilities.soft) out.push_back(&info);
  }
  return out;
}

std::vector<fs::path> sceneFiles() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST(FullRangeAgreement, EveryExactSolverAgreesWithKktAcrossTheJointRanges) {
  const test::QuietLog quiet;
  int compared_pairs = 0;
  for (const fs::path& file : sceneFiles()) {
    const Scene scene = loadScene(file);
    const Model& model = *scene.model;
    const ConstraintSet set(model, scene.constraints, scene.time_constant);
    if (set.dimension() == 0) continue;
    std::vector<std::pair<const SolverInfo*, std::unique_ptr<ConstrainedSolver>>> solvers;
    for (const SolverInfo* info : exactSolvers()) {
      if (refuseSolver(scene.solverProblem(), info->name)) continue;  // the scene's own check
      solvers.emplace_back(info, makeSolver(info->name, set, scene.solver_settings));
    }
    if (solvers.empty()) continue;
    const auto kkt = makeSolver("kkt", set, scene.solver_settings);
    const bool project = !onlyWorldConstraints(scene);
    std::mt19937 rng(20261204);
    std::normal_distribution<double> normal(0.0, 1.0);
    VectorX vdot(model.nv), lambda(set.dimension()), vdot_ref(model.nv), lambda_ref(set.dimension());
    std::vector<double> worst(solvers.size(), 0.0);
    std::vector<int> flagged(solvers.size(), 0);
    int states = 0, drawn = 0;
    while (states < kStatesPerScene && drawn < 4 * kStatesPerScene) {
      ++drawn;
      VectorX q = randomConfiguration(model, rng), v(model.nv), tau(model.nv);
      for (int k = 0; k < model.nv; ++k) v[k] = normal(rng), tau[k] = normal(rng);
      // A closed mechanism projects from a random pose only when the loops can
      // close near it: else from the way back to the start (half, a quarter).
      bool have_reference = false;
      for (double share = 1.0; share > 0.2 && !have_reference; share *= 0.5) {
        VectorX tried = q, tried_v = v;
        if (share < 1.0) {
          VectorX dq(model.nv);
          difference(model, scene.q0, q, dq);
          integrate(model, scene.q0, dq, share, tried);
        }
        try {
          if (project) makeConsistent(set, tried, tried_v, scene.held_joints);
          kkt->solve(tried, tried_v, tau, {}, vdot_ref, lambda_ref);
          q = tried, v = tried_v, have_reference = true;
        } catch (const ModelError&) {
          if (!project) break;  // a rank-deficient pose of a tree: no reference there
        }
      }
      if (!have_reference) continue;
      ++states;
      for (std::size_t s = 0; s < solvers.size(); ++s) {
        SolveStats stats;
        try {
          stats = solvers[s].second->solve(q, v, tau, {}, vdot, lambda);
        } catch (const ModelError& e) {
          ADD_FAILURE() << file.filename() << " " << solvers[s].first->name << " state " << drawn
                        << ": refused a state kkt solves: " << e.what();
          continue;
        }
        const double error = std::max(relativeError(vdot, vdot_ref), relativeError(lambda, lambda_ref));
        if (!stats.converged) {  // the solver says this state is singular for it
          ++flagged[s];
          continue;
        }
        worst[s] = std::max(worst[s], error);
        EXPECT_LT(error, kTolerance)
            << file.filename() << " " << solvers[s].first->name << " state " << drawn;
      }
    }
    // Every scene that has an exact solver is sampled: a scene whose states all
    // fail would otherwise pass unchecked.
    EXPECT_GE(states, kStatesPerScene / 3) << file.filename() << ": only " << states << " of " << drawn
                                           << " drawn states had a reference";
    for (std::size_t s = 0; s < solvers.size(); ++s) {
      // Flagging is allowed, not a way out: most states are compared.
      EXPECT_LE(flagged[s], states / 10) << file.filename() << " " << solvers[s].first->name;
      std::printf("  %-28s %-16s %3d states (%d flagged singular), worst relative error %.2e\n", file.stem().c_str(),
                  solvers[s].first->name.c_str(), states, flagged[s], worst[s]);
      ++compared_pairs;
    }
  }
  EXPECT_GE(compared_pairs, 30);  // the scenes and solvers are all found
}
