// The solver a scene gets when it names none fits the scene's cost
// (default_solver.hpp): kkt for small models, ltl for wide trees and
// couplings, prox-bbo or lcaba for deep chains and big loops; and such a
// scene steps as kkt does.
#include <gtest/gtest.h>

#include <string>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/model_builder.hpp>
#include <loopsim/solvers/selection/default_solver.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>

using namespace loopsim;

namespace {

Scene generated(const std::string& generator, const std::string& params, const std::string& extra = "") {
  return loadSceneString("models:\n  - generator: " + generator + "\n    params: " + params + "\n" + extra +
                             "dt: 0.001\nduration: 0.003\n",
                         "default_solver.yaml", ".");
}

}  // namespace

TEST(DefaultSolver, LtlWorkEstimateCountsThePathsToTheRoot) {
  // world - a - b (revolute) and a - c (spherical): paths of 1, 2 and 4 dofs.
  ModelBuilder builder("t");
  const Inertia rod(1.0, Vector3(0, 0, -0.5), Matrix3::Identity() * 0.1);
  JointSpec ball;
  ball.type = JointType::Spherical;
  const int a = builder.addBody(0, "a", JointSpec{}, SE3::Identity(), rod, "A");
  builder.addBody(a, "b", JointSpec{}, SE3::Identity(), rod, "B");
  builder.addBody(a, "c", ball, SE3::Identity(), rod, "C");
  const Model m = std::move(builder).build();
  // factor 1·1² + 1·2² + 3·4² = 53; nonzeros 1 + 2 + 12 = 15; with m = 3: 53 + 2·3·15 + 27/3.
  EXPECT_DOUBLE_EQ(ltlSolveFlops(m, 0), 53.0);
  EXPECT_DOUBLE_EQ(ltlSolveFlops(m, 3), 53.0 + 90.0 + 9.0);
}

TEST(DefaultSolver, FitsTheScene) {
  // Small: the dense reference.
  EXPECT_EQ(generated("cycle", "{links: 20}").solver, "kkt");
  // A wide tree of 2000 links: the sparse factorisation is cheap.
  EXPECT_EQ(generated("random_tree", "{links: 2000, branching: 8, welds: 2}").solver, "ltl");
  // A ring of 1000 links: a deep chain (ltl ~n³/3), one internal loop: prox-bbo, O(n).
  const Scene ring = generated("cycle", "{links: 1000}");
  EXPECT_GT(ltlSolveFlops(*ring.model, 6), kDefaultDirectSolverFlops);
  EXPECT_EQ(ring.solver, "prox-bbo");
  // A deep chain welded to the world every 20 links (300 world rows, which
  // prox-bbo would solve densely at the world): lcaba, O(n + m).
  const Scene welded = generated("chain_6d_every_k", "{links: 1000, every: 20}");
  EXPECT_EQ(worldConstraintRows(welded.constraints), 300);
  EXPECT_EQ(welded.solver, "lcaba");
  EXPECT_FALSE(welded.solver_settings.mu_auto);
  // Joint couplings (the loop solvers have none): ltl.
  EXPECT_EQ(generated("geared_chain", "{links: 400}").solver, "ltl");
}

TEST(DefaultSolver, ADeepRingStepsWithItsDefaultSolverAsKktDoes) {
  const Scene ring = generated("cycle", "{links: 1000}");
  Simulation fast(ring);
  Scene dense_scene = ring;
  dense_scene.solver = "kkt";
  Simulation dense(dense_scene);
  for (int k = 0; k < 2; ++k) {
    ASSERT_TRUE(fast.step());
    ASSERT_TRUE(dense.step());
    // M's condition number grows with the chain (λ_max(M) ~1e9 here): agreement to ~1e-7 of the scale.
    const double scale = dense.vdot().lpNorm<Eigen::Infinity>();
    EXPECT_LT((fast.vdot() - dense.vdot()).lpNorm<Eigen::Infinity>(), 1e-6 * scale) << "step " << k;
  }
  EXPECT_LT(fast.positionViolation(), 1e-6);
}

TEST(DefaultSolver, AScaleBeyondTheRankCheckBudgetLoadsAndSaysTheRankIsNotChecked) {
  // 2,000 links welded every link: 12,000 rows on 2,000 dofs, nv·m² = 2.9e11 flops of dense QR.
  const Scene s = generated("chain_6d_every_k", "{links: 2000, every: 1}");
  EXPECT_FALSE(rankCheckAffordable(*s.model, 12000));
  EXPECT_TRUE(rankCheckAffordable(*s.model, 3000));  // 1.8e10
  bool warned = false;
  for (const std::string& w : s.warnings) {
    warned = warned || w.find("constraints: rank not checked at load (12000 rows on 2000 dofs: the dense check "
                              "would cost ~2.9e+11 flops)") != std::string::npos;
  }
  EXPECT_TRUE(warned);
  EXPECT_EQ(s.solver, "lcaba");
}

TEST(DefaultSolver, Chain6dEveryKIsCappedWhereItStillFitsInMemory) {
  try {
    generated("chain_6d_every_k", "{links: 2001}");
    FAIL() << "2001 links accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("params.links (line 3): must be in [1, 2000], got 2001"), std::string::npos)
        << e.what();
  }
}

TEST(DefaultSolver, LoopGeneratorsWhoseSizesMultiplyPastTheMaximumAreRefusedWithTheCount) {
  // 20,001 links: each parameter in its range, the product out of memory (it ended in std::bad_alloc).
  try {
    generated("chain_of_loops", "{loops: 200, links_per_loop: 100}");
    FAIL() << "20,001 links accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("default_solver.yaml: models[0].params (line 3): generator 'chain_of_loops': 1 "
                                         "+ loops x links_per_loop = 1 + 200 x 100 = 20001 links; at most 2000 are "
                                         "allowed"),
              std::string::npos)
        << e.what();
  }
}
