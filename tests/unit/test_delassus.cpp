// The Delassus algorithms (engine/delassus) against the dense J M⁻¹ Jᵀ:
// relative 1e-9 (max-norm) on random configurations of every tree case and
// of the papers' scaling mechanisms long_stem (floating, 1 and 3 branches per
// end), chain_6d_every_k (including a redundant k < 6) and the ladder.
// Joint-space algorithms also on a mechanism with internal loops and
// couplings, which the recursive ones refuse. No allocation in compute().
// The damped inverse (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹ by every algorithm and by
// pv-osim-fast equals the dense one to 1e-9 relative, including on the sets
// the undamped pv-osim-fast refuses.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <map>

#include "allocation_counter.hpp"
#include <loopsim/delassus/damped_delassus.hpp>
#include <loopsim/delassus/delassus.hpp>
#include <loopsim/delassus/pv_osim_fast.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>
#include "tree_test_cases.hpp"

using namespace loopsim;
using namespace loopsim::test;

namespace {

std::vector<TreeCase> delassusCases() {
  std::vector<TreeCase> cases = treeCases();
  auto add = [&](const std::string& name, const GeneratedMechanism& g) {
    cases.push_back({name, g.model, g.constraints, g.q0, 0.2, {}});
  };
  add("long_stem (floating, 1 branch per end)", longStem({}));
  LongStemParams three;
  three.branches = 3;
  three.stem_links = 10;
  add("long_stem (floating, 3 branches per end, stem 10)", longStem(three));
  add("chain_6d_every_k (14 links, k 7)", chain6dEveryK({}));
  Chain6dEveryKParams every3;
  every3.links = 12;
  every3.every = 3;
  add("chain_6d_every_k (12 links, k 3: redundant)", chain6dEveryK(every3));
  add("ladder (3 rungs)", ladderMechanism({}));
  return cases;
}

}  // namespace

TEST(Delassus, EveryAlgorithmEqualsDense) {
  int compared = 0;
  std::map<std::string, double> worst;
  unsigned seed = 404;
  for (const TreeCase& c : delassusCases()) {
    const ConstraintSet set(c.model, c.constraints);
    const int m = set.dimension();
    auto dense = makeDelassusAlgorithm("dense", set);
    std::mt19937 rng(seed++);
    for (int sample = 0; sample < 4; ++sample) {
      VectorX q(c.model.nq);
      integrate(c.model, c.q0, randomVector(rng, c.model.nv, c.q_noise), 1.0, q);
      MatrixX reference = MatrixX::Zero(m, m);
      dense->compute(q, reference);
      const double scale = reference.lpNorm<Eigen::Infinity>();
      for (const DelassusAlgorithmInfo& info : delassusAlgorithms()) {
        if (info.name == "dense") continue;
        auto algorithm = makeDelassusAlgorithm(info.name, set);
        MatrixX value = MatrixX::Constant(m, m, 7.0);  // every entry must be written
        algorithm->compute(q, value);
        const double error = (value - reference).lpNorm<Eigen::Infinity>() / scale;
        EXPECT_LE(error, 1e-9) << info.name << ", " << c.name << ", sample " << sample;
        worst[info.name] = std::max(worst[info.name], error);
      }
      ++compared;
    }
  }
  std::printf("[Delassus vs dense] %d configurations;", compared);
  for (const auto& [name, error] : worst) std::printf(" %s %.2g;", name.c_str(), error);
  std::printf(" (max relative error)\n");
}

TEST(Delassus, ComputeDoesNotAllocate) {
  for (const TreeCase& c : delassusCases()) {
    const ConstraintSet set(c.model, c.constraints);
    MatrixX out = MatrixX::Zero(set.dimension(), set.dimension());
    for (const DelassusAlgorithmInfo& info : delassusAlgorithms()) {
      auto algorithm = makeDelassusAlgorithm(info.name, set);
      algorithm->compute(c.q0, out);
      const long allocations = countHeapAllocations([&] { algorithm->compute(c.q0, out); });
      EXPECT_EQ(allocations, 0) << info.name << ", " << c.name;
    }
  }
}

TEST(Delassus, JointSpaceAlgorithmsTakeLoopsRecursiveOnesRefuseThem) {
  GeneratedMechanism four = fourBar();
  const ConstraintSet set(four.model, four.constraints);
  const MatrixX reference = computeDelassus(set, four.q0, "dense");
  EXPECT_LE((computeDelassus(set, four.q0, "ltl-osim") - reference).lpNorm<Eigen::Infinity>(),
            1e-12 * reference.lpNorm<Eigen::Infinity>());
  for (const DelassusAlgorithmInfo& info : delassusAlgorithms()) {
    if (!info.trees_with_world_constraints_only) continue;
    try {
      makeDelassusAlgorithm(info.name, set);
      FAIL() << info.name << ": expected a ModelError";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("internal loops"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(info.name), std::string::npos) << e.what();
    }
  }
}

TEST(Delassus, UnknownAlgorithmSuggestsTheNearestName) {
  GeneratedMechanism h = humanoidTree();
  const ConstraintSet set(h.model, h.constraints);
  try {
    makeDelassusAlgorithm("pv-osin", set);
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("pv-osim"), std::string::npos) << e.what();
  }
}

TEST(Delassus, PvOsimFastSolvesEqualADenseLdltSolve) {
  double worst = 0.0;
  int solved = 0;
  unsigned seed = 77;
  for (const TreeCase& c : delassusCases()) {
    if (!c.model.isFloatingBase()) continue;
    if (c.name.find("base link") != std::string::npos || c.name.find("6-dof leg") != std::string::npos) continue;
    const ConstraintSet set(c.model, c.constraints);
    PvOsimFast fast(set);
    std::mt19937 rng(seed++);
    for (int sample = 0; sample < 3; ++sample) {
      VectorX q(c.model.nq);
      integrate(c.model, c.q0, randomVector(rng, c.model.nv, c.q_noise), 1.0, q);
      const MatrixX delassus = computeDelassus(set, q, "dense");
      const VectorX b = randomVector(rng, set.dimension(), 1.0);
      const VectorX reference = delassus.ldlt().solve(b);
      VectorX x = b;
      fast.factor(q);
      fast.solveInPlace(x);
      const double condition = delassusCondition(delassus);
      const double error = relativeError(x, reference);
      EXPECT_LE(error, 1e-12 * condition) << c.name << ", sample " << sample << ", condition " << condition;
      worst = std::max(worst, error / condition);
      ++solved;
      const long allocations = countHeapAllocations([&] {
        fast.factor(q);
        fast.solveInPlace(x);
      });
      EXPECT_EQ(allocations, 0) << c.name;
    }
  }
  std::printf("[pv-osim-fast vs dense LDLT solve] %d solves, max rel. error / Delassus condition %.3g\n", solved, worst);
  EXPECT_GT(solved, 15);
}

TEST(Delassus, PvOsimFastRefusesSingularBaseTermsWithTheReason) {
  auto expect_refusal = [](const ConstraintSet& set, const VectorX& q, const std::string& reason) {
    try {
      PvOsimFast fast(set);
      fast.factor(q);
      FAIL() << "expected a ModelError mentioning " << reason;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  };
  const TreeCase point_feet = sceneCase("atlas_point_feet.yaml", 0.0);  // 12 rows per 6-dof leg
  expect_refusal(ConstraintSet(point_feet.model, point_feet.constraints), point_feet.q0, "L_b^A is singular");
  GeneratedMechanism h = humanoidTree();
  auto on_base = h.constraints;
  on_base.push_back(worldConstraint(h.model, "pelvis_weld", ConstraintKind::Weld, "", 1));
  expect_refusal(ConstraintSet(h.model, on_base), h.q0, "constraint on the base link");
  GeneratedMechanism chain = pendulumChain();
  expect_refusal(ConstraintSet(chain.model, chain.constraints), chain.q0, "needs a floating base");
}

TEST(Delassus, DampedInverseEqualsTheDenseDampedInverse) {
  std::vector<TreeCase> cases = delassusCases();
  cases.push_back(sceneCase("atlas_point_feet.yaml", 0.02));  // rank 12 of 24: only the damped matrix inverts
  std::vector<std::string> algorithms = {"pv-osim-fast"};
  for (const DelassusAlgorithmInfo& info : delassusAlgorithms()) {
    if (!info.loops_closed) algorithms.push_back(info.name);  // refused: see the next test
  }
  std::map<std::string, double> worst;
  int compared = 0, fast_on_refused_sets = 0;
  unsigned seed = 505;
  for (const TreeCase& c : cases) {
    const ConstraintSet set(c.model, c.constraints);
    const int m = set.dimension();
    std::mt19937 rng(seed++);
    VectorX q(c.model.nq);
    integrate(c.model, c.q0, randomVector(rng, c.model.nv, c.q_noise), 1.0, q);
    const MatrixX delassus = computeDelassus(set, q, "dense");
    // μ relative to the matrix's scale: cond(Λ_μ) ≤ 1 + μ λ_max stays ≤ ~1e5.
    for (const double factor : {1e-1, 1e2, 1e5}) {
      const double mu = factor / delassus.lpNorm<Eigen::Infinity>();
      const MatrixX damped = delassus + MatrixX::Identity(m, m) / mu;
      const MatrixX reference = damped.llt().solve(MatrixX::Identity(m, m));
      for (const std::string& name : algorithms) {
        std::unique_ptr<DampedDelassusInverse> inverse;
        try {
          inverse = std::make_unique<DampedDelassusInverse>(set, name, mu);
        } catch (const ModelError& e) {  // pv-osim-fast: only a floating base with one root
          EXPECT_EQ(name, "pv-osim-fast") << c.name << ": " << e.what();
          EXPECT_NE(std::string(e.what()).find("needs a floating base"), std::string::npos) << e.what();
          continue;
        }
        MatrixX value = MatrixX::Constant(m, m, 7.0);  // every entry must be written
        inverse->compute(q, value);
        const double error = (value - reference).lpNorm<Eigen::Infinity>() / reference.lpNorm<Eigen::Infinity>();
        EXPECT_LE(error, 1e-9) << name << ", " << c.name << ", mu " << mu;
        worst[name] = std::max(worst[name], error);
        ++compared;
        const bool undamped_refuses = c.name.find("base link") != std::string::npos ||
                                      c.name.find("6-dof leg") != std::string::npos ||
                                      c.name.find("point_feet") != std::string::npos;
        if (name == "pv-osim-fast" && undamped_refuses) ++fast_on_refused_sets;
        const long allocations = countHeapAllocations([&] { inverse->compute(q, value); });
        EXPECT_EQ(allocations, 0) << name << ", " << c.name;
      }
    }
  }
  std::printf("[damped Delassus inverse vs dense] %d comparisons (%d by pv-osim-fast on sets it refuses undamped);",
              compared, fast_on_refused_sets);
  for (const auto& [name, error] : worst) std::printf(" %s %.2g;", name.c_str(), error);
  std::printf(" (max relative error)\n");
  EXPECT_GE(fast_on_refused_sets, 9);  // 3 sets x 3 damping values
}

TEST(Delassus, DampingMustBePositiveAndFinite) {
  GeneratedMechanism h = humanoidTree();
  const ConstraintSet set(h.model, h.constraints);
  for (const std::string algorithm : {"dense", "pv-osim-fast"}) {
    for (const double mu : {0.0, -1.0, std::numeric_limits<double>::infinity()}) {
      try {
        DampedDelassusInverse inverse(set, algorithm, mu);
        FAIL() << algorithm << ", mu " << mu << ": expected a ModelError";
      } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("mu must be positive and finite"), std::string::npos) << e.what();
      }
    }
  }
}

TEST(Delassus, DampedInverseRefusesTheLoopsClosedAlgorithms) {
  GeneratedMechanism chain = pendulumChain();
  const ConstraintSet set(chain.model, chain.constraints);
  for (const DelassusAlgorithmInfo& info : delassusAlgorithms()) {
    if (!info.loops_closed) continue;
    try {
      DampedDelassusInverse inverse(set, info.name, 1e3);
      ADD_FAILURE() << info.name << " accepted";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("closes the internal loops"), std::string::npos) << e.what();
    }
  }
}
