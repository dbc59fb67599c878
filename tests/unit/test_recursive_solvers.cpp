// The recursive solvers on kinematic trees (papers 000, 001) against the dense
// `kkt` reference on random consistent states of every tree case
// (tree_test_cases.hpp): v̇ to 1e-9 relative (direct solvers), λ within
// 1e-12 × the Delassus condition estimate; ill-conditioned samples (estimate
// > 1e10) are skipped and counted. With and without a per-step added inertia.
// No allocation inside solve(). The registry refuses loops and couplings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <map>

#include "allocation_counter.hpp"
#include <loopsim/model/errors.hpp>
#include <loopsim/solvers/joint_space/kkt_solver.hpp>
#include <loopsim/solvers/joint_space/prox_ltl_solver.hpp>
#include <loopsim/solvers/recursive/constrained_aba_solver.hpp>
#include <loopsim/solvers/recursive/prox_pv_solver.hpp>
#include <loopsim/solvers/recursive/pv_early_solver.hpp>
#include <loopsim/solvers/recursive/pv_soft_solver.hpp>
#include <loopsim/solvers/recursive/pv_solver.hpp>
#include <loopsim/solvers/joint_space/soft_ltl_solver.hpp>
#include <loopsim/solvers/registry.hpp>
#include "tree_test_cases.hpp"

using namespace loopsim;
using namespace loopsim::test;

namespace {

struct Agreement {
  int compared = 0, skipped = 0;
  double max_vdot = 0.0, max_lambda_over_condition = 0.0, max_condition = 0.0, max_lambda_over_floor = 0.0;
  std::map<std::string, int> paths;
};

// Round-off bound of evaluating J v̇ - k (as in the joint-space solver tests).
double residualFloor(const ConstraintData& cdata, const VectorX& vdot) {
  const VectorX magnitude = cdata.J.cwiseAbs() * vdot.cwiseAbs() + cdata.k.cwiseAbs();
  return static_cast<double>(vdot.size()) * std::numeric_limits<double>::epsilon() *
         magnitude.lpNorm<Eigen::Infinity>();
}

// Compares `solver_name` with kkt on every tree case. Penalty-based iterative
// solvers (mu_floor = μ) update λ by μ (k - J v̇), so λ is only as precise as
// μ times the round-off floor of J v̇ - k, and their inner ABA solves carry
// the penalty's round-off, below ε κ² with κ = 1 + μ λ_max(J M⁻¹ Jᵀ) as
// measured for pv-soft: both floors join λ's tolerance.
template <class Check>
void compareOnTreeCases(const std::string& solver_name, const SolverSettings& settings, bool added_inertia,
                        double vdot_tolerance, double mu_floor, Agreement& agg, Check&& extra_check,
                        double lambda_factor = 1.0, int* beyond_direct = nullptr) {
  unsigned seed = added_inertia ? 9100 : 9000;
  for (const TreeCase& c : treeCases()) {
    std::mt19937 rng(seed++);
    for (int sample = 0; sample < 6; ++sample) {
      const TreeState s = sampleTreeState(c, rng);
      const ConstraintSet set(c.model, s.constraints);
      KktSolver kkt(set, {});
      auto solver = makeSolver(solver_name, set, settings);
      if (added_inertia) {
        const VectorX d = randomVector(rng, c.model.nv, 0.5).cwiseAbs();
        kkt.setAddedInertia(d);
        solver->setAddedInertia(d);
      }
      const int m = set.dimension();
      VectorX vdot_ref(c.model.nv), lambda_ref(m), vdot(c.model.nv), lambda(m);
      kkt.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
      const double condition = delassusCondition(kkt.delassus());
      const Eigen::SelfAdjointEigenSolver<MatrixX> eig(kkt.delassus(), Eigen::EigenvaluesOnly);
      const double kappa = 1.0 + mu_floor * eig.eigenvalues().maxCoeff();
      if (condition > 1e10) {
        ++agg.skipped;
        continue;
      }
      const SolveStats stats = solver->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
      const std::string where = solver_name + ", " + c.name + ", sample " + std::to_string(sample);
      const double e_vdot = relativeError(vdot, vdot_ref);
      const double e_lambda = relativeError(lambda, lambda_ref);
      EXPECT_LE(e_vdot, vdot_tolerance) << where;
      const double lambda_floor =
          mu_floor == 0.0 ? 0.0
                          : std::max(mu_floor * residualFloor(kkt.constraintData(), vdot_ref) /
                                         std::max(1.0, lambda_ref.lpNorm<Eigen::Infinity>()),
                                     std::numeric_limits<double>::epsilon() * kappa * kappa);
      EXPECT_LE(e_lambda, std::max(lambda_factor * 1e-12 * condition, lambda_floor))
          << where << ", condition " << condition << ", μ floor " << lambda_floor;
      if (beyond_direct != nullptr && (e_vdot > 1e-9 || e_lambda > 1e-12 * condition)) ++*beyond_direct;
      agg.max_lambda_over_floor =
          std::max(agg.max_lambda_over_floor, e_lambda / std::max(lambda_factor * 1e-12 * condition, lambda_floor));
      extra_check(c, set, stats, where);
      ++agg.compared;
      agg.max_vdot = std::max(agg.max_vdot, e_vdot);
      agg.max_lambda_over_condition = std::max(agg.max_lambda_over_condition, e_lambda / condition);
      agg.max_condition = std::max(agg.max_condition, condition);
      if (!stats.path.empty()) ++agg.paths[c.name + ": " + std::string(stats.path)];
    }
  }
}

void report(const std::string& what, const Agreement& agg) {
  std::printf("[%s vs kkt] %d samples compared, %d skipped (Delassus condition > 1e10), max condition %.3g\n"
              "  max rel. error v̇ %.3g, max rel. error λ / condition %.3g, λ error / its tolerance %.3g\n",
              what.c_str(), agg.compared, agg.skipped, agg.max_condition, agg.max_vdot,
              agg.max_lambda_over_condition, agg.max_lambda_over_floor);
  for (const auto& [key, count] : agg.paths) std::printf("  path %s: %d\n", key.c_str(), count);
}

}  // namespace

// ------------------------------------------------------------------------ pv

TEST(RecursiveSolvers, PvAgreesWithKktOnTrees) {
  for (bool added : {false, true}) {
    Agreement agg;
    compareOnTreeCases("pv", {}, added, 1e-9, 0.0, agg, [](const TreeCase& c, const ConstraintSet&, const SolveStats& stats,
                                                       const std::string& where) {
      // The run-time choice of paper 000 eq. 49 vs eqs. 47-48.
      if (!c.model.isFloatingBase()) {
        EXPECT_EQ(stats.path, "eq. 43") << where;
      } else if (c.name.find("base link") != std::string::npos || c.name.find("6-dof leg") != std::string::npos) {
        // A constraint on the base, or 9 rows on a 6-dof branch: L_b^A singular.
        EXPECT_EQ(stats.path, "eq. 47-48") << where;
      } else {
        EXPECT_EQ(stats.path, "eq. 49") << where;
      }
    });
    report(added ? "pv, added inertia" : "pv", agg);
    EXPECT_GT(agg.compared, 40);
  }
}

TEST(RecursiveSolvers, SolvesDoNotAllocate) {
  for (const TreeCase& c : treeCases()) {
    std::mt19937 rng(3);
    const TreeState s = sampleTreeState(c, rng);
    const ConstraintSet set(c.model, s.constraints);
    for (const std::string name : {"pv", "pv-early", "pv-soft", "constrained-aba", "prox-pv"}) {
      auto solver = makeSolver(name, set, {});
      solver->setAddedInertia(VectorX::Constant(c.model.nv, 0.01));
      VectorX vdot(c.model.nv), lambda(set.dimension());
      solver->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
      const long allocations = countHeapAllocations([&] { solver->solve(s.q, s.v, s.tau, s.fext, vdot, lambda); });
      EXPECT_EQ(allocations, 0) << name << ", " << c.name;
    }
  }
}

// ------------------------------------------------------------------- pv-soft

TEST(RecursiveSolvers, PvSoftEqualsSoftLtlAtEveryWeight) {
  double max_vdot = 0.0, max_lambda = 0.0, max_ratio = 0.0, max_vdot_below = 0.0, max_lambda_below = 0.0;
  int compared = 0, strict = 0;
  unsigned seed = 700;
  for (const TreeCase& c : treeCases()) {
    std::mt19937 rng(seed++);
    const TreeState s = sampleTreeState(c, rng);
    const ConstraintSet set(c.model, s.constraints);
    std::vector<SolverSettings> weightings;
    for (double w : {1e0, 1e2, 1e4, 1e6, 1e9}) {
      SolverSettings settings;
      settings.soft_weight = w;
      weightings.push_back(settings);
    }
    SolverSettings mixed;  // one weight per constraint, spread over decades
    for (int k = 0; k < set.size(); ++k) mixed.soft_weights.push_back(std::pow(10.0, 2 + 2 * (k % 4)));
    weightings.push_back(mixed);
    for (const SolverSettings& settings : weightings) {
      for (bool added : {false, true}) {
        SoftLtlSolver reference(set, settings);
        PvSoftSolver soft(set, settings);
        if (added) {
          const VectorX d = randomVector(rng, c.model.nv, 0.5).cwiseAbs();
          reference.setAddedInertia(d);
          soft.setAddedInertia(d);
        }
        const int m = set.dimension();
        VectorX vdot_ref(c.model.nv), lambda_ref(m), vdot(c.model.nv), lambda(m);
        reference.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
        soft.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
        const std::string where = c.name + ", weight " + std::to_string(settings.soft_weight) +
                                  (settings.soft_weights.empty() ? "" : " (per constraint)");
        // Eq. 52 adds W KᵀK to the link inertias: a point mass w at each
        // constrained point (3D) or a rigid body of inertia w (6D). ABA's
        // round-off grows with the inertia ratios it is given (Featherstone's
        // accuracy analyses of ABA); measured here it stays below ε κ², with
        // κ = 1 + w_max λ_max(J M⁻¹ Jᵀ) the penalty's stiffness relative to M.
        // soft-ltl works on Λ + W⁻¹ instead and has no such growth. The
        // tolerance is 1e-9, or ε κ² when that is higher (reported).
        const double w_max = settings.soft_weights.empty()
                                 ? settings.soft_weight
                                 : *std::max_element(settings.soft_weights.begin(), settings.soft_weights.end());
        const Eigen::SelfAdjointEigenSolver<MatrixX> eig(reference.terms().delassus(), Eigen::EigenvaluesOnly);
        const double kappa = 1.0 + w_max * eig.eigenvalues().maxCoeff();
        const double floor = std::numeric_limits<double>::epsilon() * kappa * kappa;
        const double e_vdot = relativeError(vdot, vdot_ref), e_lambda = relativeError(lambda, lambda_ref);
        EXPECT_LE(e_vdot, std::max(1e-9, floor)) << where << ", kappa " << kappa;
        EXPECT_LE(e_lambda, std::max(1e-9, floor)) << where << ", kappa " << kappa;
        max_vdot = std::max(max_vdot, e_vdot);
        max_lambda = std::max(max_lambda, e_lambda);
        max_ratio = std::max(max_ratio, std::max(e_vdot, e_lambda) / floor);
        if (floor <= 1e-9) {
          max_vdot_below = std::max(max_vdot_below, e_vdot);
          max_lambda_below = std::max(max_lambda_below, e_lambda);
          ++strict;
        }
        ++compared;
      }
    }
  }
  std::printf("[pv-soft vs soft-ltl] %d solves, weights 1 to 1e9 and per constraint: max rel. error v̇ %.3g, λ %.3g;\n"
              "  %d solves with ε κ² <= 1e-9 (tolerance 1e-9): max v̇ %.3g, λ %.3g; max error / (ε κ²) %.3g\n",
              compared, max_vdot, max_lambda, strict, max_vdot_below, max_lambda_below, max_ratio);
  EXPECT_GE(strict, 30);
}

TEST(RecursiveSolvers, PvSoftRefusesBadWeights) {
  GeneratedMechanism h = humanoidTree();
  const ConstraintSet set(h.model, h.constraints);
  SolverSettings settings;
  settings.soft_weights = {1.0};
  EXPECT_THROW(PvSoftSolver(set, settings), ModelError);
  settings.soft_weights = {1.0, -2.0};
  try {
    PvSoftSolver soft(set, settings);
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("right_foot_weld"), std::string::npos) << e.what();
  }
}

// ----------------------------------------------------------- constrained-aba

// The augmented Lagrangian puts μ K¹ᵀK¹ into the link inertias, so each inner
// ABA solve carries pv-soft's round-off (ε κ², κ = 1 + μ λ_max(J M⁻¹ Jᵀ)) and
// λ is only as precise as μ times the residual's round-off: a μ far beyond
// the constraint-space inertia (the settings' default 1e8) trades accuracy
// for iterations. The agreement is checked at μ = 1e4 (a few iterations to
// 1e-12); AccuracyAcrossMu reports the default.
TEST(RecursiveSolvers, ConstrainedAbaAgreesWithKktOnTrees) {
  SolverSettings tight;
  tight.tolerance = 1e-12;
  tight.warm_start = false;
  tight.mu = 1e4;
  for (bool added : {false, true}) {
    Agreement agg;
    int max_iterations = 0;
    compareOnTreeCases("constrained-aba", tight, added, 1e-7, tight.mu, agg,
                       [&](const TreeCase&, const ConstraintSet&, const SolveStats& stats, const std::string& where) {
                         EXPECT_LT(stats.iterations, 50) << where;
                         max_iterations = std::max(max_iterations, stats.iterations);
                       });
    report(added ? "constrained-aba (tolerance 1e-12), added inertia" : "constrained-aba (tolerance 1e-12)", agg);
    std::printf("  max iterations %d\n", max_iterations);
    EXPECT_GT(agg.compared, 40);
  }
}

// ------------------------------------------------------------------- prox-pv

TEST(RecursiveSolvers, ProxPvAgreesWithKktOnTrees) {
  SolverSettings tight;  // μ = 1e8 (the default): the proximal term is a damping, not a penalty
  tight.tolerance = 1e-12;
  tight.warm_start = false;
  for (bool added : {false, true}) {
    Agreement agg;
    int max_iterations = 0;
    compareOnTreeCases("prox-pv", tight, added, 1e-7, 0.0, agg,
                       [&](const TreeCase&, const ConstraintSet&, const SolveStats& stats, const std::string& where) {
                         EXPECT_LT(stats.iterations, 10) << where;
                         max_iterations = std::max(max_iterations, stats.iterations);
                       });
    report(added ? "prox-pv (tolerance 1e-12), added inertia" : "prox-pv (tolerance 1e-12)", agg);
    std::printf("  max iterations %d\n", max_iterations);
    EXPECT_GT(agg.compared, 40);
  }
}

TEST(RecursiveSolvers, ConstrainedAbaAccuracyAcrossMu) {
  // Reported, not asserted beyond convergence to a bounded error.
  for (const TreeCase& c : treeCases()) {
    std::mt19937 rng(31);
    const TreeState s = sampleTreeState(c, rng);
    const ConstraintSet set(c.model, s.constraints);
    KktSolver kkt(set, {});
    VectorX vdot_ref(c.model.nv), lambda_ref(set.dimension()), vdot(c.model.nv), lambda(set.dimension());
    kkt.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
    std::printf("[constrained-aba, %s] rel. error v̇ (iterations) at tolerance 1e-12:", c.name.c_str());
    for (double mu : {1e2, 1e4, 1e6, 1e8}) {
      SolverSettings settings;
      settings.mu = mu;
      settings.tolerance = 1e-12;
      settings.warm_start = false;
      ConstrainedAbaSolver aba(set, settings);
      const SolveStats stats = aba.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
      std::printf(" μ %.0e: %.2g (%d)", mu, relativeError(vdot, vdot_ref), stats.iterations);
      EXPECT_TRUE(vdot.allFinite());
    }
    std::printf("\n");
  }
}

TEST(RecursiveSolvers, ConstrainedAbaAndProxPvReachProxLtlOnRedundantSets) {
  std::vector<TreeCase> cases;
  cases.push_back(sceneCase("atlas_point_feet.yaml", 0.05));
  {
    GeneratedMechanism h = humanoidTree();
    auto c = h.constraints;
    Constraint copy = c.front();
    copy.name = "left_foot_weld_copy";
    c.push_back(copy);
    cases.push_back({"humanoid, left foot welded twice", h.model, c, h.q0, 0.3, {}});
  }
  SolverSettings tight;
  tight.tolerance = 1e-12;
  tight.warm_start = false;
  tight.mu = 1e4;
  double max_vdot = 0.0, max_force = 0.0;
  unsigned seed = 55;
  for (const TreeCase& c : cases) {
    std::mt19937 rng(seed++);
    for (int sample = 0; sample < 4; ++sample) {
      const TreeState s = sampleTreeState(c, rng);
      const ConstraintSet set(c.model, s.constraints);
      ProxLtlSolver prox(set, tight);
      const int m = set.dimension();
      VectorX vdot_ref(c.model.nv), lambda_ref(m), vdot(c.model.nv), lambda(m);
      prox.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
      const MatrixX& J = prox.terms().constraintData().J;
      for (const std::string name : {"constrained-aba", "prox-pv"}) {
        SolverSettings settings = tight;
        if (name == "prox-pv") settings.mu = 1e8;  // prox-ltl's and prox-pv's damping: the default
        if (name == "prox-pv") {
          ProxLtlSolver same_mu(set, settings);
          same_mu.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
        }
        auto solver = makeSolver(name, set, settings);
        const SolveStats stats = solver->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
        const VectorX force = J.transpose() * lambda, reference = J.transpose() * lambda_ref;
        const std::string where = name + ", " + c.name + ", sample " + std::to_string(sample);
        const double e_vdot = relativeError(vdot, vdot_ref), e_force = relativeError(force, reference);
        EXPECT_LE(e_vdot, 1e-7) << where << ", " << stats.iterations << " iterations";
        EXPECT_LE(e_force, 1e-7) << where;
        max_vdot = std::max(max_vdot, e_vdot);
        max_force = std::max(max_force, e_force);
      }
    }
  }
  std::printf("[constrained-aba (μ 1e4) and prox-pv (μ 1e8) vs prox-ltl, redundant sets] max rel. error v̇ %.3g, Jᵀλ %.3g\n",
              max_vdot, max_force);
}

TEST(RecursiveSolvers, ConstrainedAbaWarmStartAndIterationCap) {
  GeneratedMechanism h = humanoidTree();
  std::mt19937 rng(12);
  const TreeCase c{"humanoid", h.model, h.constraints, h.q0, 0.3, {}};
  const TreeState s = sampleTreeState(c, rng);
  const ConstraintSet set(h.model, s.constraints);
  SolverSettings settings;
  settings.tolerance = 1e-12;
  settings.mu = 1e4;
  ConstrainedAbaSolver aba(set, settings);
  VectorX vdot(h.model.nv), lambda(set.dimension());
  const SolveStats cold = aba.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
  const SolveStats warm = aba.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
  std::printf("[constrained-aba, humanoid feet, mu 1e4, tolerance 1e-12] cold %d iterations (residual %.2e), warm %d "
              "(%.2e)\n",
              cold.iterations, cold.residual, warm.iterations, warm.residual);
  EXPECT_LT(warm.iterations, cold.iterations);
  settings.max_iterations = 1;
  settings.warm_start = false;
  ConstrainedAbaSolver one(set, settings);
  const SolveStats capped = one.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
  EXPECT_EQ(capped.iterations, 1);
  EXPECT_FALSE(capped.converged);
  settings.mu = -1.0;
  EXPECT_THROW(ConstrainedAbaSolver(set, settings), ModelError);
}

// ------------------------------------------------------------------ pv-early

// Early elimination divides, at every joint, by the local Σ_i = R D⁻¹ Rᵀ of
// the directions that joint can move; its conditioning is not bounded by the
// Delassus matrix's, so a few samples lose more digits than pv: all must be
// within 1e-7 (v̇) and 1e-9 × condition (λ), and at most 1 in 20 beyond
// pv's 1e-9 / 1e-12 × condition (counted and reported).
TEST(RecursiveSolvers, PvEarlyAgreesWithKktOnTrees) {
  for (bool added : {false, true}) {
    Agreement agg;
    int beyond_direct = 0;
    compareOnTreeCases("pv-early", {}, added, 1e-7, 0.0, agg,
                       [](const TreeCase&, const ConstraintSet&, const SolveStats&, const std::string&) {},
                       1e3, &beyond_direct);
    report(added ? "pv-early, added inertia" : "pv-early", agg);
    std::printf("  samples beyond pv's tolerances (v̇ 1e-9, λ 1e-12 × condition): %d\n", beyond_direct);
    EXPECT_GT(agg.compared, 40);
    EXPECT_LE(beyond_direct * 20, agg.compared);
  }
}

TEST(RecursiveSolvers, PvWithoutConstraintsIsAba) {
  const TreeCase c = treeCases().front();
  std::mt19937 rng(4);
  const TreeState s = sampleTreeState(c, rng);
  const ConstraintSet empty(c.model, {});
  PvSolver pv(empty, {});
  KktSolver kkt(empty, {});
  VectorX vdot(c.model.nv), vdot_ref(c.model.nv), none(0);
  pv.solve(s.q, s.v, s.tau, s.fext, vdot, none);
  kkt.solve(s.q, s.v, s.tau, s.fext, vdot_ref, none);
  EXPECT_LE(relativeError(vdot, vdot_ref), 1e-12);
}

TEST(RecursiveSolvers, RankDeficientSetIsAClearError) {
  GeneratedMechanism h = humanoidTree();
  auto constraints = h.constraints;
  Constraint copy = constraints.front();
  copy.name = "left_foot_weld_copy";
  constraints.push_back(copy);
  const ConstraintSet set(h.model, constraints);
  VectorX vdot(h.model.nv), lambda(set.dimension());
  const VectorX v = VectorX::Zero(h.model.nv), tau = VectorX::Zero(h.model.nv);
  for (const std::string name : {"pv", "pv-early"}) {
    auto solver = makeSolver(name, set, {});
    try {
      solver->solve(h.q0, v, tau, {}, vdot, lambda);
      FAIL() << name << ": expected a ModelError";
    } catch (const ModelError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("rank deficient"), std::string::npos) << what;
      EXPECT_NE(what.find("left_foot_weld"), std::string::npos) << what;
      EXPECT_NE(what.find(name), std::string::npos) << what;
    }
  }
}

TEST(RecursiveSolvers, RegistryRefusesLoopsAndCouplingsWithTheReason) {
  GeneratedMechanism chain = spatialChain({});  // a loop closed to the world is fine...
  GeneratedMechanism four = fourBar();          // ...an internal loop is not
  const ConstraintSet loops(four.model, four.constraints);
  for (const std::string name : {"pv", "pv-early", "pv-soft", "constrained-aba", "prox-pv"}) {
    try {
      makeSolver(name, loops);
      FAIL() << name << ": expected a ModelError";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("internal loops"), std::string::npos) << e.what();
    }
    // Direct construction refuses too.
    EXPECT_THROW(PvSolver(loops, {}), ModelError);
    EXPECT_THROW(PvSoftSolver(loops, {}), ModelError);
    EXPECT_THROW(PvEarlySolver(loops, {}), ModelError);
    EXPECT_THROW(ProxPvSolver(loops, {}), ModelError);
    EXPECT_THROW(ConstrainedAbaSolver(loops, {}), ModelError);
    const ConstraintSet world(chain.model, chain.constraints);
    EXPECT_NO_THROW(makeSolver(name, world));
  }
}

// A solve must not leak into the next: the force change of the last
// multiplier update (Alg. 3 line 7), never swept once the iteration stops,
// is dropped. A reused cold solver returns what a fresh one does.
TEST(RecursiveSolvers, ConstrainedAbaSolvesAreIndependent) {
  const TreeCase c = sceneCase("atlas_standing.yaml", 0.05);
  std::mt19937 rng(21);
  const TreeState a = sampleTreeState(c, rng), b = sampleTreeState(c, rng);
  const ConstraintSet set_a(c.model, a.constraints), set_b(c.model, b.constraints);
  SolverSettings settings;
  settings.warm_start = false;
  // One solver bound to b's set solves a's state first (same structure, other targets).
  ConstrainedAbaSolver reused(set_b, settings), fresh(set_b, settings);
  VectorX vdot(c.model.nv), lambda(set_b.dimension()), vdot_ref(c.model.nv), lambda_ref(set_b.dimension());
  reused.solve(a.q, a.v, a.tau, a.fext, vdot, lambda);
  reused.solve(b.q, b.v, b.tau, b.fext, vdot, lambda);
  fresh.solve(b.q, b.v, b.tau, b.fext, vdot_ref, lambda_ref);
  EXPECT_EQ((lambda - lambda_ref).lpNorm<Eigen::Infinity>(), 0.0);
  EXPECT_EQ((vdot - vdot_ref).lpNorm<Eigen::Infinity>(), 0.0);
}
