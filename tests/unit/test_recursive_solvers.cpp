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
#include <tuple>

#include "allocation_counter.hpp"
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>
#include <loopsim/solvers/joint_space/kkt_solver.hpp>
#include <loopsim/solvers/joint_space/prox_ltl_solver.hpp>
#include <loopsim/solvers/recursive/constrained_aba_solver.hpp>
#include <loopsim/solvers/recursive/prox_pv_solver.hpp>
#include <loopsim/solvers/recursive/pv_early_recursion.hpp>
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

// The soft Gauss problem solved densely in long double, in its compliance
// form: (J M⁻¹ Jᵀ + W⁻¹) λ = k - J M⁻¹ b, v̇ = M⁻¹ (b + Jᵀ λ), b = τ - h + Σ Jᵀ f_ext.
// M, b, J and k are evaluated in double (the problem's data); the solve in
// long double has no cancellation at any weight (W⁻¹ only adds to an SPD
// matrix), so it is the reference both soft solvers are judged by.
struct SoftReference {
  VectorX vdot, lambda;
};
SoftReference softReferenceLongDouble(const ConstraintSet& set, const TreeState& s, const VectorX& added,
                                      const VectorX& compliance) {
  using MatrixL = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;
  using VectorL = Eigen::Matrix<long double, Eigen::Dynamic, 1>;
  const Model& model = set.model();
  Data data(model);
  MatrixX M = crba(model, data, s.q);
  M.diagonal() += added;
  const VectorX b = s.tau - rnea(model, data, s.q, s.v, VectorX::Zero(model.nv), s.fext);
  ConstraintData cdata(set);
  computeConstraintTerms(set, data, s.q, s.v, cdata, kConstraintErrors | kConstraintJacobian);
  const MatrixL Ml = M.cast<long double>(), Jl = cdata.J.cast<long double>();
  const Eigen::LLT<MatrixL> mass(Ml);
  const VectorL free = mass.solve(b.cast<long double>());
  MatrixL soft = Jl * mass.solve(MatrixL(Jl.transpose()));
  soft.diagonal() += compliance.cast<long double>();
  const VectorL lambda = soft.llt().solve(cdata.k.cast<long double>() - Jl * free);
  const VectorL vdot = free + mass.solve(VectorL(Jl.transpose() * lambda));
  return {vdot.cast<double>(), lambda.cast<double>()};
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

// Both soft solvers against each other and against the soft problem solved
// densely in long double (softReferenceLongDouble), from very soft weights
// (W⁻¹ far above J M⁻¹ Jᵀ) to 1e12 (nearly hard), uniform and per constraint:
// relative 1e-9 on v̇ and λ, unscaled. The soft problem's own conditioning
// does not grow with W (as W → ∞ it tends to the hard problem, and every
// sample here has a Delassus condition below 1e10 times 1e-12's head room),
// so no weight-dependent tolerance is justified: a solver that loses digits
// with W is wrong. Eq. 52 did (ε κ, 1e-5 at W = 1e12); pv-soft now uses it
// only while its bound on κ allows and its compliance form beyond (both
// paths are exercised and counted).
TEST(RecursiveSolvers, PvSoftEqualsSoftLtlAtEveryWeight) {
  const std::vector<double> uniform = {1e-3, 1e-1, 1e0, 1e2, 1e4, 1e6, 1e9, 1e12};
  double max_vdot = 0.0, max_lambda = 0.0, max_reference = 0.0, max_early = 0.0;
  int compared = 0;
  std::map<std::string, int> paths;
  unsigned seed = 700;
  for (const TreeCase& c : treeCases()) {
    std::mt19937 rng(seed++);
    const TreeState s = sampleTreeState(c, rng);
    const ConstraintSet set(c.model, s.constraints);
    std::vector<SolverSettings> weightings;
    for (double w : uniform) {
      SolverSettings settings;
      settings.soft_weight = w;
      weightings.push_back(settings);
    }
    SolverSettings mixed;  // one weight per constraint, spread over decades
    for (int k = 0; k < set.size(); ++k) mixed.soft_weights.push_back(std::pow(10.0, -2 + 5 * (k % 3)));
    weightings.push_back(mixed);
    for (const SolverSettings& settings : weightings) {
      for (bool added : {false, true}) {
        SoftLtlSolver reference(set, settings);
        PvSoftSolver soft(set, settings);
        VectorX d = VectorX::Zero(c.model.nv);
        if (added) {
          d = randomVector(rng, c.model.nv, 0.5).cwiseAbs();
          reference.setAddedInertia(d);
          soft.setAddedInertia(d);
        }
        const int m = set.dimension();
        VectorX vdot_ref(c.model.nv), lambda_ref(m), vdot(c.model.nv), lambda(m);
        reference.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
        const SolveStats stats = soft.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
        const std::string where = c.name + ", weight " + std::to_string(settings.soft_weight) +
                                  (settings.soft_weights.empty() ? "" : " (per constraint)") +
                                  (added ? ", added inertia" : "") + ", path " + std::string(stats.path);
        const double e_vdot = relativeError(vdot, vdot_ref), e_lambda = relativeError(lambda, lambda_ref);
        EXPECT_LE(e_vdot, 1e-9) << where;
        EXPECT_LE(e_lambda, 1e-9) << where;
        // Which of the two is right: the long-double solve of the same problem.
        const SoftReference exact = softReferenceLongDouble(set, s, d, reference.rowCompliance());
        for (const auto& [name, v_err, l_err] :
             {std::tuple{"pv-soft", relativeError(vdot, exact.vdot), relativeError(lambda, exact.lambda)},
              std::tuple{"soft-ltl", relativeError(vdot_ref, exact.vdot), relativeError(lambda_ref, exact.lambda)}}) {
          EXPECT_LE(v_err, 1e-9) << name << " vs long double, " << where;
          EXPECT_LE(l_err, 1e-9) << name << " vs long double, " << where;
          max_reference = std::max({max_reference, v_err, l_err});
        }
        // Both compliance forms, whichever pv-soft chose here: early
        // elimination with W⁻¹ (the ladder's) on every case and weight too.
        PvEarlyRecursion early(set, d, "test");
        early.setCompliance(reference.rowCompliance());
        VectorX vdot_early(c.model.nv), lambda_early(m);
        SolveStats early_stats;
        ASSERT_TRUE(early.solve(s.q, s.v, s.tau, s.fext, vdot_early, lambda_early, early_stats)) << where;
        EXPECT_LE(relativeError(vdot_early, exact.vdot), 1e-9) << "early elimination + W⁻¹, " << where;
        EXPECT_LE(relativeError(lambda_early, exact.lambda), 1e-9) << "early elimination + W⁻¹, " << where;
        max_early = std::max({max_early, relativeError(vdot_early, exact.vdot), relativeError(lambda_early, exact.lambda)});
        max_vdot = std::max(max_vdot, e_vdot);
        max_lambda = std::max(max_lambda, e_lambda);
        ++paths[std::string(stats.path == "eq. 52" ? "eq. 52" : "compliance form")];
        ++compared;
      }
    }
  }
  std::printf("[pv-soft vs soft-ltl] %d solves, weights 1e-3 to 1e12 and per constraint: max rel. error v̇ %.3g, "
              "λ %.3g; both vs long double: max %.3g; paths: eq. 52 %d, compliance form %d; early elimination + W⁻¹ "
              "vs long double: max %.3g\n",
              compared, max_vdot, max_lambda, max_reference, paths["eq. 52"], paths["compliance form"], max_early);
  EXPECT_GE(paths["eq. 52"], 10);
  EXPECT_GE(paths["compliance form"], 10);
}

// Eq. 52 on its own loses digits like ε κ as the weight grows: the reason
// pv-soft switches to its compliance form. Its bind-time bound on κ must be
// a bound: at a weight where eq. 52 is chosen the error is below 1e-11, and
// the bound grows with the weight (so a stiff weight never takes eq. 52).
TEST(RecursiveSolvers, PvSoftChoosesEq52OnlyWhereItIsAccurate) {
  const TreeCase c = sceneCase("atlas_standing.yaml", 0.05);
  std::mt19937 rng(17);
  const TreeState s = sampleTreeState(c, rng);
  const ConstraintSet set(c.model, s.constraints);
  double previous_bound = 0.0;
  for (double w : {1e-3, 1e-1, 1e0, 1e3, 1e6, 1e9}) {
    SolverSettings settings;
    settings.soft_weight = w;
    PvSoftSolver soft(set, settings);
    EXPECT_GT(soft.stiffnessBound(), previous_bound) << w;
    previous_bound = soft.stiffnessBound();
    VectorX vdot(c.model.nv), lambda(set.dimension());
    const SolveStats stats = soft.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
    const bool eq52 = soft.stiffnessBound() <= PvSoftSolver::kMaxEq52Stiffness;
    EXPECT_EQ(stats.path == "eq. 52", eq52) << w << ": " << stats.path;
    if (eq52) {
      const SoftReference exact =
          softReferenceLongDouble(set, s, VectorX::Zero(c.model.nv), VectorX::Constant(set.dimension(), 1.0 / w));
      EXPECT_LE(relativeError(vdot, exact.vdot), 1e-11) << w;
      EXPECT_LE(relativeError(lambda, exact.lambda), 1e-11) << w;
    }
  }
  SolverSettings stiff;
  stiff.soft_weight = 1e12;
  EXPECT_GT(PvSoftSolver(set, stiff).stiffnessBound(), PvSoftSolver::kMaxEq52Stiffness);
}

// The compliance form's recursion follows the structure: PV on the
// humanoid (each foot its own branch from the base), early elimination on a
// long ladder (paper 000 Fig. 4b: every rung's rows would travel down the
// rail), where it must still equal soft-ltl at a stiff weight.
TEST(RecursiveSolvers, PvSoftTakesEarlyEliminationWhereRowsWouldAccumulate) {
  SolverSettings stiff;
  stiff.soft_weight = 1e8;
  const TreeCase atlas = sceneCase("atlas_standing.yaml", 0.05);
  std::mt19937 rng(23);
  const TreeState s = sampleTreeState(atlas, rng);
  EXPECT_FALSE(PvSoftSolver(ConstraintSet(atlas.model, s.constraints), stiff).usesEarlyElimination());
  for (int rungs : {2, 16}) {
    LadderParams params;
    params.rungs = rungs;
    const GeneratedMechanism ladder = ladderMechanism(params);
    const ConstraintSet set(ladder.model, ladder.constraints);
    PvSoftSolver soft(set, stiff);
    SoftLtlSolver reference(set, stiff);
    EXPECT_EQ(soft.usesEarlyElimination(), rungs == 16) << rungs << " rungs";
    const int nv = ladder.model.nv, m = set.dimension();
    const VectorX v = randomVector(rng, nv, 1.0), tau = randomVector(rng, nv, 1.0);
    const std::vector<Force> fext(ladder.model.nbodies(), Force::Zero());
    VectorX vdot(nv), lambda(m), vdot_ref(nv), lambda_ref(m);
    const SolveStats stats = soft.solve(ladder.q0, v, tau, fext, vdot, lambda);
    reference.solve(ladder.q0, v, tau, fext, vdot_ref, lambda_ref);
    EXPECT_EQ(countHeapAllocations([&] { soft.solve(ladder.q0, v, tau, fext, vdot, lambda); }), 0) << rungs;
    EXPECT_EQ(stats.path, rungs == 16 ? "early elimination + W⁻¹" : "eq. 43 + W⁻¹");
    EXPECT_LE(relativeError(vdot, vdot_ref), 1e-9) << rungs << " rungs";
    EXPECT_LE(relativeError(lambda, lambda_ref), 1e-9) << rungs << " rungs";
    std::printf("[pv-soft, ladder of %d rungs, W 1e8] %s: rel. error vs soft-ltl v̇ %.3g, λ %.3g\n", rungs,
                std::string(stats.path).c_str(), relativeError(vdot, vdot_ref), relativeError(lambda, lambda_ref));
  }
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
    compareOnTreeCases("constrained-aba", tight, added, 1e-7, tight.muValue(), agg,
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
