// The public API of <loopsim/loopsim.hpp> (docs/library.md): constraints on
// named frames, StateEvaluator (a step's dynamics without the step) and its
// workers, sampled states, lifetimes, rank-deficient states.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/loopsim.hpp>

#include "allocation_counter.hpp"

using namespace loopsim;

namespace {

const std::filesystem::path kScenes = std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes";

}  // namespace

// The builder is what the scene loader runs for `{type: weld, frame1: l_foot_sole}`.
TEST(PublicApi, WeldWhereItStandsIsTheSceneLoadersWeld) {
  const Scene scene = loadScene(kScenes / "atlas_standing.yaml");
  const Model& model = *scene.model;
  const Constraint built = weldWhereItStands(model, scene.q0, "left_foot_weld", "l_foot_sole");
  const Constraint& loaded = scene.constraints.at(0);
  ASSERT_EQ(loaded.name, "left_foot_weld");
  EXPECT_EQ(built.kind, ConstraintKind::Weld);
  EXPECT_EQ(built.body1, loaded.body1);
  EXPECT_EQ(built.body2, 0);
  EXPECT_TRUE(built.placement1.isApprox(loaded.placement1, 0.0));
  EXPECT_TRUE(built.placement2.isApprox(loaded.placement2, 0.0));
}

TEST(PublicApi, ConnectWhereItStandsJoinsCoincidentPoints) {
  const Scene scene = loadScene(kScenes / "atlas_standing.yaml");
  const Model& model = *scene.model;
  const Vector3 point(0.1, -0.02, 0.03);
  const Constraint c = connectWhereItStands(model, scene.q0, "hands", "l_hand_mount", point, "r_hand_mount");
  EXPECT_EQ(c.kind, ConstraintKind::Connect);
  EXPECT_NE(c.body2, 0);
  Data data(model);
  forwardKinematics(model, data, scene.q0);
  const Vector3 a = (data.oMi[c.body1] * c.placement1).t, b = (data.oMi[c.body2] * c.placement2).t;
  EXPECT_LT((a - b).norm(), 1e-12);
  // The point is where asked on the first frame.
  const Frame& hand = model.frames[static_cast<std::size_t>(model.frameId("l_hand_mount"))];
  EXPECT_LT((c.placement1.t - hand.placement.actPoint(point)).norm(), 1e-15);
  const ConstraintSet set(model, {c}, 0.1);
  EXPECT_EQ(set.dimension(), 3);
}

TEST(PublicApi, FrameConstraintErrorsNameTheConstraintAndFrame) {
  const Scene scene = loadScene(kScenes / "atlas_standing.yaml");
  const Model& model = *scene.model;
  try {
    weldWhereItStands(model, scene.q0, "w", "l_foot_sol");
    FAIL() << "an unknown frame must throw";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.element(), "constraint 'w'");
    EXPECT_NE(e.message().find("no frame 'l_foot_sol'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(weldWhereItStands(model, scene.q0, "w", "world", "l_foot_sole"), ModelError);
  EXPECT_THROW(weldWhereItStands(model, scene.q0, "w", "l_foot_sole", "l_foot_sole"), ModelError);
  EXPECT_THROW(weldWhereItStands(model, VectorX::Zero(3), "w", "l_foot_sole"), ModelError);
}

// "Passive forces handled as in a step": the evaluator at a step's start
// state and applied torque gives that step's v̇ and λ bit for bit (direct
// solver; joint damping and the PD's kd integrated implicitly). The
// evaluator gives the equality dynamics: a step that reaches a joint limit
// differs from it (Atlas's elbows rest on their lower bound 0), so the limits
// are off here.
TEST(PublicApi, StateEvaluatorReproducesASimulationStep) {
  Scene scene = loadScene(kScenes / "atlas_standing.yaml");
  scene.joint_limits.enabled = false;
  ASSERT_EQ(scene.solver, "kkt");
  Simulation simulation(scene);
  for (int k = 0; k < 5; ++k) ASSERT_TRUE(simulation.step());
  const VectorX q = simulation.q(), v = simulation.v();
  ASSERT_TRUE(simulation.step());
  StateEvaluator evaluator(scene);
  ASSERT_GT(evaluator.addedInertia().maxCoeff(), 0.0);
  VectorX vdot(scene.model->nv), lambda(evaluator.constraints().dimension());
  const SolveStats stats = evaluator.evaluate(q, v, simulation.appliedTorque(), vdot, lambda);
  EXPECT_EQ(vdot, simulation.vdot());
  EXPECT_EQ(lambda, simulation.lambda());
  EXPECT_LT(stats.residual, 1e-8);

  // A worker shares the setup and gives the same result.
  StateEvaluator worker = evaluator.worker();
  VectorX vdot2(vdot.size()), lambda2(lambda.size());
  worker.evaluate(q, v, simulation.appliedTorque(), vdot2, lambda2);
  EXPECT_EQ(vdot2, vdot);
  EXPECT_EQ(&worker.model(), &evaluator.model());

  // No heap allocation per state.
  EXPECT_EQ(test::countHeapAllocations([&] { evaluator.evaluate(q, v, simulation.appliedTorque(), vdot, lambda); }), 0);
}

TEST(PublicApi, StateEvaluatorOptions) {
  const Scene scene = loadScene(kScenes / "atlas_standing.yaml");
  EXPECT_THROW(StateEvaluator(scene, {.solver = "auto"}), ModelError);
  EXPECT_THROW(StateEvaluator(scene, {.solver = "kkk"}), ModelError);
  const StateEvaluator pv(scene, {.solver = "pv", .stabilization = false});
  EXPECT_EQ(pv.solverName(), "pv");
  EXPECT_LE(pv.constraints().timeConstant(), 0.0);  // Baumgarte off
  EXPECT_FALSE(pv.settings().warm_start);
  const StateEvaluator kkt(scene);
  EXPECT_EQ(kkt.constraints().timeConstant(), scene.time_constant);
  // The evaluator shares the Model: its Scene may go away (the sanitizer
  // build would see a dangling Model).
  std::unique_ptr<StateEvaluator> kept;
  {
    const Scene local = loadScene(kScenes / "atlas_standing.yaml");
    kept = std::make_unique<StateEvaluator>(local);
  }
  const int nv = kept->model().nv;
  VectorX vdot(nv), lambda(kept->constraints().dimension());
  kept->evaluate(scene.q0, VectorX::Zero(nv), VectorX::Zero(nv), vdot, lambda);
  EXPECT_TRUE(vdot.allFinite());
}

// Near-singular states: an exact solver refuses dependent rows with the
// documented ModelError (the batch evaluation names the state), a proximal
// solver answers and reports its residual in SolveStats.
TEST(PublicApi, RankDeficientStatesAreADocumentedErrorOrAResidual) {
  Scene scene = loadScene(kScenes / "atlas_standing.yaml");
  scene.constraints.push_back(weldWhereItStands(*scene.model, scene.q0, "left_foot_again", "l_foot_sole"));
  const int nv = scene.model->nv;
  const VectorX v = VectorX::Zero(nv), tau = VectorX::Zero(nv);
  for (const char* exact : {"kkt", "pv"}) {
    StateEvaluator evaluator(scene, {.solver = exact});
    VectorX vdot(nv), lambda(evaluator.constraints().dimension());
    try {
      evaluator.evaluate(scene.q0, v, tau, vdot, lambda);
      FAIL() << exact << ": a rank-deficient set must throw";
    } catch (const ModelError& e) {
      EXPECT_NE(e.message().find("rank deficient"), std::string::npos) << e.what();
    }
    std::string where = "row 3";
    const std::string message = evaluateBatchState(evaluator, scene.q0, v, tau, vdot, lambda, where);
    EXPECT_NE(message.find("rank deficient"), std::string::npos) << message;
  }
  StateEvaluator prox(scene, {.solver = "prox-ltl"});
  VectorX vdot(nv), lambda(prox.constraints().dimension());
  const SolveStats stats = prox.evaluate(scene.q0, v, tau, vdot, lambda);
  EXPECT_TRUE(vdot.allFinite());
  EXPECT_TRUE(stats.converged);
  EXPECT_LT(stats.residual, 1e-6);
}

// "Sample constraint-consistent states": φ(q) = 0 (to 1e-10) and J v = 0,
// unit quaternions, the same states for a seed and others for another seed.
TEST(PublicApi, SampledStatesAreConstraintConsistentAndSeeded) {
  for (const char* file : {"atlas_standing.yaml", "four_bar.yaml"}) {
    const Scene scene = loadScene(kScenes / file);
    const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
    const std::vector<SampledState> states = sampleStates(scene, set, 6, 11);
    ASSERT_EQ(states.size(), 6u) << file;
    Data data(*scene.model);
    ConstraintData cdata(set);
    for (const SampledState& s : states) {
      computeConstraintTerms(set, data, s.q, s.v, cdata);
      EXPECT_LT(cdata.phi.lpNorm<Eigen::Infinity>(), 1e-10) << file;
      EXPECT_LT(cdata.phidot.lpNorm<Eigen::Infinity>(), 1e-10) << file;
      std::string where = file;
      EXPECT_EQ(nonUnitQuaternion(*scene.model, s.q, where), "") << where;
      EXPECT_GT((s.q - scene.q0).norm(), 1e-3) << file;  // random, not the start
    }
    EXPECT_EQ(sampleStates(scene, set, 6, 11).back().q, states.back().q) << file;
    EXPECT_NE(sampleStates(scene, set, 6, 12).back().q, states.back().q) << file;
  }
}

// Lifetimes: a Simulation copies its Scene (shares the Model) and owns its
// constraint set and solver, so it outlives the Scene it was built from.
TEST(PublicApi, SimulationOutlivesItsScene) {
  std::unique_ptr<Simulation> simulation;
  VectorX expected;
  {
    const Scene scene = loadScene(kScenes / "four_bar.yaml");
    simulation = std::make_unique<Simulation>(scene);
    Simulation twin(scene);
    for (int k = 0; k < 10; ++k) ASSERT_TRUE(twin.step());
    expected = twin.q();
  }
  for (int k = 0; k < 10; ++k) ASSERT_TRUE(simulation->step());
  EXPECT_EQ(simulation->q(), expected);
}
