// The loop solvers lcaba (paper 001 §IV) and prox-bbo (§V) against the
// references, on random constraint-consistent states (fixed seeds) of every
// scene they support:
//   - each equals kkt on v̇ (relative error <= 1e-7 at tolerance 1e-12) and on
//     Jᵀλ, on the internal-loop scenes and the world-constraint robot scenes,
//     with and without a per-step added inertia; samples whose Delassus
//     condition estimate exceeds 1e10 are skipped and counted (few allowed).
//     Each compared sample must have constraints that matter (ABA without them
//     differs from kkt), so a solver that ignored them would fail.
//   - lcaba's minimum-degree ordering and prox-bbo's loop roots on paper 001's
//     Fig. 4 mechanism; prox-bbo's factor of the multipliers rooted at one
//     link (Fig. 9's hub, and a ring of loops that fills in).
//   - Near rest (the Digit scenes' own first steps, v̇ ≈ 0): both within 1e-8
//     of kkt in v̇, as evaluated in a step (the penalty must not cancel at μ g).
//   - Redundant sets: both reach prox-ltl's v̇ and Jᵀλ.
//   - lcaba on loops through prismatic and spherical joints (no scene has them).
//   - Warm start, the iteration cap, bad settings, couplings refused.
//   - (No allocation inside solve(): test_allocation.cpp.)
//   - Every scene they accept runs a second under the simulation without
//     diverging (the 10 s runs are `loopsim run SCENE --solver NAME`).
#include <gtest/gtest.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/model/model_builder.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/sim/state_evaluator.hpp>
#include <loopsim/solvers/joint_space/kkt_solver.hpp>
#include <loopsim/solvers/joint_space/prox_ltl_solver.hpp>
#include <loopsim/solvers/loops/lcaba_solver.hpp>
#include <loopsim/solvers/loops/prox_bbo_solver.hpp>
#include <loopsim/solvers/recursive/constrained_aba_solver.hpp>
#include <loopsim/solvers/registry.hpp>
#include "loop_solver_settings.hpp"
#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

using namespace loopsim;
using namespace loopsim::test;

namespace {

// Every scene lcaba and prox-bbo support: internal loops, then world constraints only.
const std::vector<std::pair<std::string, double>> kLoopScenes = {
    {"four_bar.yaml", 0.3},           {"cycle.yaml", 0.1},          {"chain_of_loops.yaml", 0.1},
    {"coupled_worst_case.yaml", 0.1}, {"favourable_branching.yaml", 0.1}, {"ladder.yaml", 0.1},
    {"spatial_chain.yaml", 0.1},      {"long_stem.yaml", 0.1},       {"digit_standing.yaml", 0.05},
    {"digit_box.yaml", 0.05},         {"two_digits_box.yaml", 0.05}, {"atlas_standing.yaml", 0.05},
    {"go1_standing.yaml", 0.05}};

// Quiet projections: makeConsistent logs every correction at info level.
// A consistent state near q0; samples the projection cannot close (off the
// assembly branch) are drawn again and counted.
TreeState sampleConsistent(const TreeCase& c, std::mt19937& rng, int& redrawn) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    try {
      return sampleTreeState(c, rng);
    } catch (const ModelError&) {
      ++redrawn;
    }
  }
  throw ModelError("", c.name, "no consistent state near q0 in 50 draws");
}

const std::vector<std::string> kLoopSolvers = {"lcaba", "prox-bbo"};

struct SceneAgreement {
  int compared = 0, skipped = 0, redrawn = 0, at_floor = 0, max_iterations = 0, min_iterations = 1 << 30;
  double max_vdot = 0.0, max_force = 0.0, max_residual = 0.0, min_constraint_effect = 1e300;
};

// ---------------------------------------------------------------- vs kkt

void agreeWithKktOnEveryLoopScene(const std::string& name) {
  const QuietLog quiet;
  unsigned seed = 12000;
  int total_compared = 0, total_skipped = 0;
  std::vector<TreeCase> cases;
  for (const auto& [file, noise] : kLoopScenes) cases.push_back(sceneCase(file, noise));
  // Fig. 9 with the hub fixed (bench --loop-scaling's grounded family): every
  // loop runs through the world, where lcaba's tips leave the graph.
  const GeneratedMechanism grounded = favourableBranching({5, 6, 0, {}});
  cases.push_back({"favourable branching, hub fixed", grounded.model, grounded.constraints, grounded.q0, 0.1, {}});
  for (const TreeCase& c : cases) {
    std::mt19937 rng(seed++);
    SceneAgreement agg;
    for (int sample = 0; sample < 6; ++sample) {
      const TreeState s = sampleConsistent(c, rng, agg.redrawn);
      const ConstraintSet set(c.model, s.constraints);
      KktSolver kkt(set, {});
      auto solver = makeSolver(name, set, tightSettings(agreementMu(name)));
      const bool added = sample % 2 == 1;
      if (added) {
        const VectorX d = randomVector(rng, c.model.nv, 0.5).cwiseAbs();
        kkt.setAddedInertia(d);
        solver->setAddedInertia(d);
      }
      const int m = set.dimension(), nv = c.model.nv;
      VectorX vdot_ref(nv), lambda_ref(m), vdot(nv), lambda(m);
      kkt.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
      if (delassusCondition(kkt.delassus()) > 1e10) {
        ++agg.skipped;
        continue;
      }
      const SolveStats stats = solver->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
      const std::string where = name + ", " + c.name + ", sample " + std::to_string(sample) + (added ? ", added inertia" : "");

      // The constraints must matter here: ABA alone is far from kkt.
      Data data(c.model);
      const double effect = relativeError(aba(c.model, data, s.q, s.v, s.tau, s.fext), vdot_ref);
      ASSERT_GT(lambda_ref.lpNorm<Eigen::Infinity>(), 1e-3) << where;
      if (!added) {
        EXPECT_GT(effect, 1e-3) << where << ": the constraints barely change v̇";
      }

      const MatrixX& J = kkt.constraintData().J;
      const double e_vdot = relativeError(vdot, vdot_ref);
      const double e_force = relativeError(J.transpose() * lambda, J.transpose() * lambda_ref);
      // ‖J v̇ - k‖∞ relative to the magnitude of its terms (|J||v̇| + |k|): the
      // dense product's own round-off is ~1e-16 of that.
      const VectorX& k = kkt.constraintData().k;
      const double scale = (J.cwiseAbs() * vdot.cwiseAbs() + k.cwiseAbs()).lpNorm<Eigen::Infinity>();
      const double residual = (J * vdot - k).lpNorm<Eigen::Infinity>() / std::max(1.0, scale);
      EXPECT_LE(e_vdot, 1e-7) << where << ", " << stats.iterations << " iterations";
      EXPECT_LE(e_force, 1e-6) << where;
      // 1e-12 is at the round-off floor of the Digits' residuals (targets of
      // order 1e2): a solve may stop there, its residual no longer decreasing,
      // reported not converged. Counted; the floor itself is bounded.
      if (!stats.converged) ++agg.at_floor;
      EXPECT_TRUE(stats.converged || stats.residual <= 1e-11) << where << ", residual " << stats.residual;
      EXPECT_LE(residual, 1e-11) << where;
      ++agg.compared;
      agg.max_vdot = std::max(agg.max_vdot, e_vdot);
      agg.max_force = std::max(agg.max_force, e_force);
      agg.max_residual = std::max(agg.max_residual, residual);
      agg.max_iterations = std::max(agg.max_iterations, stats.iterations);
      agg.min_iterations = std::min(agg.min_iterations, stats.iterations);
      if (!added) agg.min_constraint_effect = std::min(agg.min_constraint_effect, effect);
    }
    std::printf("[%s vs kkt, μ %.0e, %s] %d compared, %d skipped (condition > 1e10), %d redrawn off-branch, %d stopped at "
                "the round-off floor above 1e-12;\n"
                "  max rel. error v̇ %.3g, Jᵀλ %.3g, max relative ‖J v̇ - k‖∞ %.3g, iterations %d-%d, m_c %d, m_b %d;"
                " min rel. distance of ABA from kkt %.3g\n",
                name.c_str(), agreementMu(name), c.name.c_str(), agg.compared, agg.skipped, agg.redrawn, agg.at_floor, agg.max_vdot, agg.max_force,
                agg.max_residual, agg.min_iterations, agg.max_iterations,
                EliminationOrdering(ConstraintSet(c.model, c.constraints)).maxNeighbours(),
                MultiplierElimination(ConstraintSet(c.model, c.constraints)).maxSupported(),
                agg.min_constraint_effect);
    EXPECT_GE(agg.compared, 5) << c.name;
    EXPECT_LE(agg.at_floor, 2) << c.name;
    total_compared += agg.compared;
    total_skipped += agg.skipped;
  }
  EXPECT_LE(total_skipped * 10, total_compared);
}

}  // namespace

TEST(LoopSolvers, LcabaAgreesWithKktOnEveryLoopScene) { agreeWithKktOnEveryLoopScene("lcaba"); }
TEST(LoopSolvers, ProxBboAgreesWithKktOnEveryLoopScene) { agreeWithKktOnEveryLoopScene("prox-bbo"); }

// Random states have |v̇| of 1-100; a standing robot has v̇ ≈ 0 (here |v̇|∞
// ~1e-9) while every link's a_gf = a - X g is ≈ g. With gravity in a_gf,
// lcaba's μ KᵀK a_gf and μ Kᵀk cancelled at ~μ g and left v̇ 9.3e-8 off kkt on
// Digit (7.9e-8 on two Digits) at its auto μ; with gravity as bias forces
// (FirstPassGravity::AsBiasForce) 1.6e-9, as prox-bbo (1.7e-9). The states are
// each scene's first 50 kkt steps, evaluated as a step evaluates them
// (controller torque, passive forces, implicit damping; the scene's
// tolerance, μ: auto at q0), so the error is absolute: |Δv̇|∞ / max(1, |v̇|∞).
TEST(LoopSolvers, LcabaAndProxBboAgreeWithKktNearRest) {
  QuietLog quiet(spdlog::level::err);  // the Digits' hold warns of feed-forward beyond effort limits
  for (const char* file : {"digit_standing.yaml", "digit_box.yaml", "two_digits_box.yaml"}) {
    Scene scene = loadScene(scenesDir() / file);
    scene.solver = "kkt";
    // The states (q, v, applied τ) of one kkt run and kkt's v̇ there, shared by both solvers.
    Simulation run(scene);
    StateEvaluator kkt(scene, {.solver = "kkt"});
    const int nv = run.model().nv, m = run.constraints().dimension();
    std::vector<VectorX> qs, vs, taus, references;
    VectorX vdot(nv), lambda(m);
    double largest_vdot = 0.0;
    for (int step = 0; step < 50; ++step) {
      qs.push_back(run.q());
      vs.push_back(run.v());
      run.step();
      taus.push_back(run.appliedTorque());
      kkt.evaluate(qs.back(), vs.back(), taus.back(), vdot, lambda);
      references.push_back(vdot);
      largest_vdot = std::max(largest_vdot, vdot.lpNorm<Eigen::Infinity>());
    }
    for (const char* name : {"lcaba", "prox-bbo"}) {
      StateEvaluator solver(scene, {.solver = name});
      double worst = 0.0;
      for (std::size_t k = 0; k < qs.size(); ++k) {
        solver.evaluate(qs[k], vs[k], taus[k], vdot, lambda);
        worst = std::max(worst, (vdot - references[k]).lpNorm<Eigen::Infinity>() /
                                    std::max(1.0, references[k].lpNorm<Eigen::Infinity>()));
      }
      std::printf("  %s near rest on %s: |v̇ - v̇_kkt|∞ %.2g over 50 steps (|v̇_kkt|∞ <= %.2g)\n", name, file, worst,
                  largest_vdot);
      EXPECT_LE(worst, 1e-8) << name << " on " << file;
    }
    EXPECT_LE(largest_vdot, 1e-3) << file << ": not near rest, the test would not see the cancellation";
  }
}

// ------------------------------------------------------------ the ordering

namespace {

// Paper 001 Fig. 4: links 1-2-3, then three branches from 3 (4-5-6, 7-8,
// 9-10-11) and two cut joints, 6-8 and 8-11. Revolute joints on alternating
// axes, 0.3 m links; the connects are closed at q = 0.
GeneratedMechanism figure4Mechanism() {
  ModelBuilder builder("paper001_fig4");
  const Inertia link(1.0, Vector3(0.0, 0.0, 0.15), 0.01 * Matrix3::Identity());
  int body = 0;
  auto add = [&](int parent, int index) {
    JointSpec j;
    j.axis = index % 2 == 0 ? Vector3::UnitX() : Vector3::UnitY();
    const SE3 placement(Matrix3::Identity(), parent == 0 ? Vector3::Zero() : Vector3(0.05 * (index % 3), 0.0, 0.3));
    return builder.addBody(parent, "joint_" + std::to_string(index), j, placement, link, "link_" + std::to_string(index));
  };
  body = add(0, 1);
  body = add(body, 2);
  const int three = add(body, 3);
  const int six = add(add(add(three, 4), 5), 6);
  const int eight = add(add(three, 7), 8);
  const int eleven = add(add(add(three, 9), 10), 11);
  GeneratedMechanism mech;
  mech.model = std::move(builder).build();
  mech.q0 = VectorX::Zero(mech.model.nq);
  Data data(mech.model);
  forwardKinematics(mech.model, data, mech.q0);
  for (const auto& [a, b] : {std::pair{six, eight}, std::pair{eight, eleven}}) {
    Constraint c;
    c.name = "cut_" + std::to_string(a) + "_" + std::to_string(b);
    c.kind = ConstraintKind::Connect;
    c.body1 = a;
    c.placement1 = SE3(Matrix3::Identity(), Vector3(0.0, 0.0, 0.3));
    c.body2 = b;
    c.placement2 = data.oMi[b].inverse() * data.oMi[a] * c.placement1;
    mech.constraints.push_back(c);
  }
  return mech;
}

}  // namespace

TEST(LoopSolvers, MinimumDegreeOrderingOnPaperFigure4) {
  const GeneratedMechanism mech = figure4Mechanism();
  const ConstraintSet set(mech.model, mech.constraints);
  const EliminationOrdering ordering(set);
  std::vector<int> order;
  for (const EliminationStep& step : ordering.steps()) order.push_back(step.body);
  // Leaves 6 and 11 (one neighbour, 8) go before 8 (two): every link is then
  // eliminated with at most one neighbour (§IV-B); 8 before 7, and 7 meets
  // the coupling with its own parent 3 (eq. 34).
  ASSERT_EQ(order.size(), 11u);
  EXPECT_EQ(ordering.maxNeighbours(), 1);
  const auto position = [&](int body) { return std::find(order.begin(), order.end(), body) - order.begin(); };
  EXPECT_LT(position(6), position(8));
  EXPECT_LT(position(11), position(8));
  EXPECT_LT(position(8), position(7));
  EXPECT_EQ(std::vector<int>(order.end() - 3, order.end()), (std::vector<int>{3, 2, 1}));
  const EliminationStep& seven = ordering.steps()[position(7)];
  ASSERT_EQ(seven.neighbours.size(), 1u);
  EXPECT_EQ(seven.neighbours[0].body, seven.parent);
  // The roll-out's order: a permutation of the steps with every link after its
  // parent and its neighbours, grouped by depth, so not reversed 𝒮^E (which
  // runs each of link 3's branches to its end before the next).
  const std::vector<int>& forward = ordering.forwardOrder();
  ASSERT_EQ(forward.size(), order.size());
  std::vector<int> seen(mech.model.nbodies(), 0);
  std::vector<int> rolled;
  for (const int k : forward) {
    ASSERT_TRUE(k >= 0 && k < static_cast<int>(order.size()));
    const EliminationStep& step = ordering.steps()[k];
    EXPECT_EQ(seen[step.body]++, 0) << "link " << step.body << " twice";
    if (step.parent != 0) {
      EXPECT_EQ(seen[step.parent], 1) << "link " << step.body << " before its parent";
    }
    for (const CouplingRef& n : step.neighbours) EXPECT_EQ(seen[n.body], 1) << "link " << step.body << " before " << n.body;
    rolled.push_back(step.body);
  }
  EXPECT_NE(rolled, std::vector<int>(order.rbegin(), order.rend()));
  // A tree without internal loops is eliminated in ABA's order.
  const GeneratedMechanism humanoid = humanoidTree();
  const EliminationOrdering tree(ConstraintSet(humanoid.model, humanoid.constraints));
  for (std::size_t k = 0; k < tree.steps().size(); ++k) {
    EXPECT_EQ(tree.steps()[k].body, humanoid.model.nbodies() - 1 - static_cast<int>(k));
  }
  EXPECT_EQ(tree.maxNeighbours(), 0);

  // prox-bbo (Fig. 5): link 3 is the root of both loops, so both multipliers
  // are eliminated there; link 8 supports both (m_b = 2), nothing reaches the world.
  const MultiplierElimination graph(set);
  EXPECT_EQ(graph.link(3).rooted.size(), 2u);
  EXPECT_EQ(graph.link(8).carried.size(), 2u);
  EXPECT_EQ(graph.maxSupported(), 2);
  EXPECT_EQ(graph.worldRows(), 0);

  // And both solve it like kkt (eq. 34, the neighbour couplings, early elimination).
  for (const std::string& name : kLoopSolvers) {
    std::mt19937 rng(404);
    double worst = 0.0;
    for (int sample = 0; sample < 5; ++sample) {
      const TreeCase c{"fig. 4", mech.model, mech.constraints, mech.q0, 0.3, {}};
      int redrawn = 0;
      const QuietLog quiet;
      const TreeState s = sampleConsistent(c, rng, redrawn);
      const ConstraintSet state_set(mech.model, s.constraints);
      KktSolver kkt(state_set, {});
      auto solver = makeSolver(name, state_set, tightSettings(agreementMu(name)));
      VectorX vdot_ref(mech.model.nv), vdot(mech.model.nv), lambda_ref(6), lambda(6);
      kkt.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
      solver->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
      worst = std::max(worst, relativeError(vdot, vdot_ref));
    }
    std::printf("[%s vs kkt, paper 001 Fig. 4 mechanism] max rel. error v̇ %.3g; lcaba's order", name.c_str(), worst);
    for (int b : order) std::printf(" %d", b);
    std::printf("\n");
    EXPECT_LE(worst, 1e-7) << name;
  }
}

// ----------------------------------------- prox-bbo's rooted multipliers

namespace {

// A hub (links 1-2) with four branches of three links; Connects between the
// branch tips in a ring, 1-2, 2-3, 3-4, 4-1: all four loops are rooted at the
// hub and L_RR couples them in a cycle, so eliminating them one at a time
// fills in one block.
GeneratedMechanism ringOfBranches() {
  ModelBuilder builder("ring_of_branches");
  const Inertia link(1.0, Vector3(0.0, 0.0, 0.15), 0.01 * Matrix3::Identity());
  int index = 0;
  auto add = [&](int parent, const Vector3& offset) {
    ++index;
    JointSpec j;
    j.axis = index % 3 == 0 ? Vector3::UnitZ() : (index % 2 == 0 ? Vector3::UnitX() : Vector3::UnitY());
    return builder.addBody(parent, "joint_" + std::to_string(index), j, SE3(Matrix3::Identity(), offset), link,
                           "link_" + std::to_string(index));
  };
  const int hub = add(add(0, Vector3::Zero()), Vector3(0.0, 0.0, 0.3));
  std::vector<int> tips;
  for (int b = 0; b < 4; ++b) {
    const Vector3 out(std::cos(1.57 * b), std::sin(1.57 * b), 0.0);
    tips.push_back(add(add(add(hub, Vector3(0.0, 0.0, 0.3) + 0.1 * out), 0.3 * out), Vector3(0.0, 0.0, 0.3) - 0.05 * out));
  }
  GeneratedMechanism mech;
  mech.model = std::move(builder).build();
  mech.q0 = VectorX::Zero(mech.model.nq);
  Data data(mech.model);
  forwardKinematics(mech.model, data, mech.q0);
  for (int b = 0; b < 4; ++b) {
    Constraint c;
    c.name = "ring_" + std::to_string(b);
    c.kind = ConstraintKind::Connect;
    c.body1 = tips[b];
    c.placement1 = SE3(Matrix3::Identity(), Vector3(0.0, 0.0, 0.3));
    c.body2 = tips[(b + 1) % 4];
    c.placement2 = data.oMi[c.body2].inverse() * data.oMi[c.body1] * c.placement1;
    mech.constraints.push_back(c);
  }
  return mech;
}

// Blocks of L_RR's factor at a link: the diagonal and every `below` entry.
int factorBlocks(const LinkMultipliers& link) {
  int blocks = static_cast<int>(link.rooted.size());
  for (const auto& below : link.below) blocks += static_cast<int>(below.size());
  return blocks;
}

}  // namespace

TEST(LoopSolvers, FavourableBranchingKeepsOneNeighbourOnlyWithTheHubFixed) {
  // Paper 001 §VI-C, Fig. 9: "the neighbor count for a leaf link being
  // eliminated does not exceed one". With the branches on the world it does
  // not: each branch's last link passes its tip's weld to the world, where
  // it leaves the graph (§IV-A). On a moving hub that link's parent is the
  // hub, so once both end branches are gone (m_b >= 4) each next tip is
  // coupled to its own next tip and to the hub: two.
  for (const int branches : {4, 8, 20}) {
    const GeneratedMechanism grounded = favourableBranching({branches, 6, 0, {}});
    EXPECT_EQ(EliminationOrdering(ConstraintSet(grounded.model, grounded.constraints)).maxNeighbours(), 1) << branches;
    const GeneratedMechanism hub = favourableBranching({branches, 6, 1, {}});
    EXPECT_EQ(EliminationOrdering(ConstraintSet(hub.model, hub.constraints)).maxNeighbours(), 2) << branches;
  }
}

TEST(LoopSolvers, ProxBboFactorsRootedMultipliersOverTheirCouplings) {
  // Paper 001 Fig. 9: the m_b - 1 welds all close at the hub, each coupled in
  // L_RR only to its neighbours' (they share a branch): one multiplier at a
  // time in minimum degree order, the factor has 2(m_b - 1) - 1 blocks, not
  // (m_b - 1)², and no fill.
  const GeneratedMechanism fav = favourableBranching({12, 6, 1, {}});
  const MultiplierElimination fav_graph(ConstraintSet(fav.model, fav.constraints));
  const LinkMultipliers& hub = fav_graph.link(1);
  ASSERT_EQ(hub.rooted.size(), 11u);
  EXPECT_EQ(factorBlocks(hub), 2 * 11 - 1);
  for (const auto& below : hub.below) EXPECT_LE(below.size(), 1u);
  EXPECT_EQ(fav_graph.coupledPairs().size(), 11u + 10u);  // L_jj and the neighbours

  // A ring of four loops at one hub: minimum degree takes one (all have two
  // neighbours), which couples the two next to it: one fill block, 4 + 4 + 1.
  const GeneratedMechanism ring = ringOfBranches();
  const MultiplierElimination ring_graph(ConstraintSet(ring.model, ring.constraints));
  const LinkMultipliers& ring_hub = ring_graph.link(2);
  ASSERT_EQ(ring_hub.rooted.size(), 4u);
  EXPECT_EQ(factorBlocks(ring_hub), 9);
  EXPECT_EQ(ring_hub.below[0].size(), 2u);
  EXPECT_FALSE(hub.dense);
  EXPECT_FALSE(ring_hub.dense);

  // With the hub fixed the welds close at the world, factored the same way
  // (it was a dense (m_b - 1)² block); where all loops share the stem to the
  // world (Fig. 8) every block couples every later one: the dense path.
  const GeneratedMechanism grounded = favourableBranching({12, 6, 0, {}});
  const MultiplierElimination grounded_graph(ConstraintSet(grounded.model, grounded.constraints));
  ASSERT_EQ(grounded_graph.world().rooted.size(), 11u);
  EXPECT_EQ(grounded_graph.worldRows(), 66);
  EXPECT_EQ(factorBlocks(grounded_graph.world()), 2 * 11 - 1);
  EXPECT_FALSE(grounded_graph.world().dense);
  const GeneratedMechanism worst = coupledWorstCase({5, 3, 7, {}});
  const MultiplierElimination worst_graph(ConstraintSet(worst.model, worst.constraints));
  ASSERT_EQ(worst_graph.world().rooted.size(), 5u);
  EXPECT_EQ(factorBlocks(worst_graph.world()), 5 + 4 + 3 + 2 + 1);
  EXPECT_TRUE(worst_graph.world().dense);

  // All solve like kkt (the fill must be right for the ring).
  for (const GeneratedMechanism* mech : {&fav, &ring, &grounded, &worst}) {
    std::mt19937 rng(1212);
    double worst_vdot = 0.0, worst_force = 0.0;
    for (int sample = 0; sample < 5; ++sample) {
      const TreeCase c{mech->model.name, mech->model, mech->constraints, mech->q0, 0.2, {}};
      int redrawn = 0;
      const QuietLog quiet;
      const TreeState s = sampleConsistent(c, rng, redrawn);
      const ConstraintSet set(mech->model, s.constraints);
      KktSolver kkt(set, {});
      ProxBboSolver bbo(set, tightSettings(agreementMu("prox-bbo")));
      const int nv = mech->model.nv, m = set.dimension();
      VectorX vdot_ref(nv), vdot(nv), lambda_ref(m), lambda(m);
      kkt.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
      const SolveStats stats = bbo.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
      const MatrixX& J = kkt.constraintData().J;
      const std::string where = mech->model.name + ", sample " + std::to_string(sample);
      ASSERT_GT(lambda_ref.lpNorm<Eigen::Infinity>(), 1e-3) << where;
      EXPECT_TRUE(stats.converged) << where;
      worst_vdot = std::max(worst_vdot, relativeError(vdot, vdot_ref));
      worst_force = std::max(worst_force, relativeError(J.transpose() * lambda, J.transpose() * lambda_ref));
    }
    std::printf("[prox-bbo vs kkt, %s] max rel. error v̇ %.3g, Jᵀλ %.3g\n", mech->model.name.c_str(), worst_vdot,
                worst_force);
    EXPECT_LE(worst_vdot, 1e-7) << mech->model.name;
    EXPECT_LE(worst_force, 1e-6) << mech->model.name;
  }
}

// ----------------------------------------------------------- redundant sets

TEST(LoopSolvers, LcabaAndProxBboReachProxLtlOnRedundantSets) {
  const QuietLog quiet;
  std::map<std::string, double> max_vdot, max_force;
  std::map<std::string, int> max_iterations;
  std::vector<TreeCase> cases = {sceneCase("redundant_four_bar.yaml", 0.3), sceneCase("atlas_point_feet.yaml", 0.05)};
  {
    // Digit with one leg loop closed twice: a rank-deficient internal loop.
    TreeCase digit = sceneCase("digit_standing.yaml", 0.05);
    for (const Constraint& c : digit.constraints) {
      if (c.body2 != 0) {
        Constraint copy = c;
        copy.name += "_copy";
        digit.constraints.push_back(copy);
        break;
      }
    }
    digit.name += ", a loop closed twice";
    cases.push_back(digit);
  }
  unsigned seed = 77;
  for (const TreeCase& c : cases) {
    std::mt19937 rng(seed++);
    for (int sample = 0; sample < 4; ++sample) {
      int redrawn = 0;
      const TreeState s = sampleConsistent(c, rng, redrawn);
      const ConstraintSet set(c.model, s.constraints);
      const int m = set.dimension(), nv = c.model.nv;
      ProxLtlSolver prox(set, tightSettings(1e8));
      VectorX vdot_ref(nv), lambda_ref(m), vdot(nv), lambda(m);
      prox.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
      const MatrixX& J = prox.terms().constraintData().J;
      for (const std::string& name : kLoopSolvers) {
        auto solver = makeSolver(name, set, tightSettings(agreementMu(name)));
        const SolveStats stats = solver->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
        const std::string where = name + ", " + c.name + ", sample " + std::to_string(sample);
        const double e_vdot = relativeError(vdot, vdot_ref);
        const double e_force = relativeError(J.transpose() * lambda, J.transpose() * lambda_ref);
        EXPECT_LE(e_vdot, 1e-7) << where << ", " << stats.iterations << " iterations";
        EXPECT_LE(e_force, 1e-6) << where;
        EXPECT_TRUE(stats.converged || stats.residual <= 1e-11) << where;
        max_vdot[name] = std::max(max_vdot[name], e_vdot);
        max_force[name] = std::max(max_force[name], e_force);
        max_iterations[name] = std::max(max_iterations[name], stats.iterations);
      }
    }
  }
  for (const std::string& name : kLoopSolvers) {
    std::printf("[%s (μ %.0e) vs prox-ltl (μ 1e8), redundant sets] max rel. error v̇ %.3g, Jᵀλ %.3g, max iterations %d\n",
                name.c_str(), agreementMu(name), max_vdot[name], max_force[name], max_iterations[name]);
  }
}

// ------------------------------------------------------- μ, warm start, cap

TEST(LoopSolvers, LcabaAccuracyAndIterationsAcrossMu) {
  // Reported (the default μ = 1e8 included); asserted only finite and converged.
  const QuietLog quiet;
  for (const char* file : {"four_bar.yaml", "coupled_worst_case.yaml", "digit_standing.yaml", "two_digits_box.yaml"}) {
    const TreeCase c = sceneCase(file, 0.05);
    std::mt19937 rng(31);
    int redrawn = 0;
    const TreeState s = sampleConsistent(c, rng, redrawn);
    const ConstraintSet set(c.model, s.constraints);
    KktSolver kkt(set, {});
    const int m = set.dimension(), nv = c.model.nv;
    VectorX vdot_ref(nv), lambda_ref(m), vdot(nv), lambda(m);
    kkt.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
    std::printf("[lcaba, %s] rel. error v̇ (iterations) at tolerance 1e-12 / the default 1e-10:", c.name.c_str());
    for (double mu : {1e2, 1e4, 1e6, 1e8}) {
      SolverSettings tight = tightSettings(mu), standard;
      standard.mu = mu;
      standard.warm_start = false;
      LcabaSolver a(set, tight), b(set, standard);
      const SolveStats st = a.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
      const double e_tight = relativeError(vdot, vdot_ref);
      EXPECT_TRUE(vdot.allFinite());
      const SolveStats sd = b.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
      std::printf(" μ %.0e: %.2g (%d) / %.2g (%d)", mu, e_tight, st.iterations, relativeError(vdot, vdot_ref),
                  sd.iterations);
      EXPECT_TRUE(vdot.allFinite());
    }
    std::printf("\n");
  }
}

TEST(LoopSolvers, WarmStartIterationCapAndSettings) {
  const QuietLog quiet;
  const TreeCase c = sceneCase("digit_standing.yaml", 0.05);
  std::mt19937 rng(12);
  int redrawn = 0;
  const TreeState s = sampleConsistent(c, rng, redrawn);
  const ConstraintSet set(c.model, s.constraints);
  for (const std::string& name : kLoopSolvers) {
    SolverSettings settings = tightSettings(1e3);  // slow enough for the warm start to show
    settings.warm_start = true;
    auto solver = makeSolver(name, set, settings);
    VectorX vdot(c.model.nv), lambda(set.dimension());
    const SolveStats cold = solver->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
    const SolveStats warm = solver->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
    std::printf("[%s, digit standing, μ 1e3, tolerance 1e-12] cold %d iterations (residual %.2e), warm %d (%.2e)\n",
                name.c_str(), cold.iterations, cold.residual, warm.iterations, warm.residual);
    EXPECT_TRUE(cold.converged) << name;
    EXPECT_LT(warm.iterations, cold.iterations) << name;
    settings.max_iterations = 1;
    settings.warm_start = false;
    auto one = makeSolver(name, set, settings);
    const SolveStats capped = one->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
    EXPECT_EQ(capped.iterations, 1) << name;
    EXPECT_FALSE(capped.converged) << name;
    EXPECT_GT(capped.residual, 1e-12) << name;
    for (auto bad : {std::pair{"mu", -1.0}, std::pair{"tolerance", -1.0}, std::pair{"max_iterations", 0.0}}) {
      SolverSettings b;
      if (std::string(bad.first) == "mu") b.mu = bad.second;
      if (std::string(bad.first) == "tolerance") b.tolerance = bad.second;
      if (std::string(bad.first) == "max_iterations") b.max_iterations = static_cast<int>(bad.second);
      try {
        makeSolver(name, set, b);
        FAIL() << "expected a ModelError for " << bad.first;
      } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find(bad.first), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      }
    }
  }
}

// A spatial three-link arm whose tip is held by a point to the world, with a
// light two-link pendulum of 2 cm links hanging from its middle link: no
// force change reaches the pendulum, and its joint accelerations are ~50
// times the middle link's, so its part of ‖Δv̇‖∞ leads.
TreeCase armWithLightPendulum() {
  ModelBuilder b("arm_with_light_pendulum");
  auto joint = [](const Vector3& axis) {
    JointSpec j;
    j.axis = axis;
    return j;
  };
  auto link = [](double mass, const Vector3& com) {
    return Inertia(mass, com, mass * 1e-2 * com.squaredNorm() * Matrix3::Identity() + 1e-6 * Matrix3::Identity());
  };
  auto at = [](const Vector3& t) { return SE3(Matrix3::Identity(), t); };
  const int l1 = b.addBody(0, "j1", joint(Vector3::UnitZ()), at(Vector3::Zero()), link(2.0, Vector3(0.25, 0, 0)), "l1");
  const int l2 = b.addBody(l1, "j2", joint(Vector3::UnitY()), at(Vector3(0.5, 0, 0)), link(2.0, Vector3(0.2, 0, 0.1)), "l2");
  const int l3 = b.addBody(l2, "j3", joint(Vector3(1, 1, 0)), at(Vector3(0.4, 0, 0.2)), link(1.0, Vector3(0, 0.2, 0.1)), "l3");
  b.addFrame("tip", l3, at(Vector3(0.1, 0.4, 0.2)));
  const int p1 = b.addBody(l2, "p1", joint(Vector3::UnitX()), at(Vector3(0.2, 0, 0)), link(0.01, Vector3(0, 0, -0.02)), "p1");
  b.addBody(p1, "p2", joint(Vector3::UnitY()), at(Vector3(0, 0, -0.02)), link(0.01, Vector3(0, 0, -0.02)), "p2");
  TreeCase c;
  c.name = "arm_with_light_pendulum";
  c.model = std::move(b).build(true);
  c.q0 = VectorX::Constant(c.model.nq, 0.3);
  c.constraints = {worldConstraint(c.model, "tip_held", ConstraintKind::Connect, "tip")};
  return c;
}

TEST(LoopSolvers, LcabaStopsWhereAlgorithm3sTestOverAllLinksDoes) {
  // lcaba leaves the links no force change reaches (Digit's arms, Go1's free
  // leg, a light pendulum) out of the reduced sweeps and rolls them out once
  // at the end; line 9's ‖Δv̇‖∞ must still be over all links. Reference:
  // cold solves capped at k = 1, 2, ... iterations give v̇ᵏ and the residual
  // r_k the test reads; the solve at tolerance ε must stop at the first k
  // with min(‖v̇ᵏ - v̇ᵏ⁻¹‖∞, r_k) ≤ ε (or at the first rise of r_k), with v̇ᵏ
  // to the bit.
  const QuietLog quiet;
  int compared = 0, decided_by_free_links = 0, borderline = 0;
  constexpr int kMaxCap = 200;
  const std::vector<TreeCase> cases = {sceneCase("digit_standing.yaml", 0.05), sceneCase("go1_three_feet.yaml", 0.05),
                                       sceneCase("atlas_standing.yaml", 0.05), armWithLightPendulum()};
  for (const TreeCase& c : cases) {
    for (const double mu : {1e3, c.name == "arm_with_light_pendulum" ? 1e-1 : 3e1}) {
      std::mt19937 rng(31);
      int redrawn = 0;
      for (int sample = 0; sample < 4; ++sample) {
        const TreeState s = sampleConsistent(c, rng, redrawn);
        const ConstraintSet set(c.model, s.constraints);
        // μ 1e3: a few iterations; the smaller μ: many, with r_k no longer far
        // below ‖Δv̇ᵏ‖∞, so that on the light pendulum the free links' part is
        // what keeps some of them going (counted below).
        const SolverSettings settings = tightSettings(mu);
        std::vector<bool> free_dof(c.model.nv, false);
        const EliminationOrdering ordering(set);
        for (const EliminationStep& step : ordering.steps()) {
          if (step.carries_force_change) continue;
          for (int k = 0; k < c.model.joint_nv[step.body]; ++k) free_dof[c.model.idx_v[step.body] + k] = true;
        }
        ASSERT_TRUE(std::find(free_dof.begin(), free_dof.end(), true) != free_dof.end()) << c.name << " has free links";
        std::vector<VectorX> vdot_at(kMaxCap + 1);
        std::vector<double> residual_at(kMaxCap + 1, 0.0);
        for (int k = 1; k <= kMaxCap; ++k) {
          SolverSettings capped = settings;
          capped.tolerance = 0.0;  // runs k iterations unless r rises
          capped.max_iterations = k;
          LcabaSolver solver(set, capped);
          VectorX vdot(c.model.nv), lambda(set.dimension());
          const SolveStats st = solver.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
          if (st.iterations < k) break;  // r rose before k: the sequence ends there
          vdot_at[k] = vdot;
          residual_at[k] = st.residual;
        }
        // ‖v̇ᵏ - v̇ᵏ⁻¹‖∞ over all links and over the linked ones only (k ≥ 2).
        const auto stepNorms = [&](int k) {
          double all = 0.0, linked = 0.0;
          for (int d = 0; d < c.model.nv; ++d) {
            const double step = std::abs(vdot_at[k][d] - vdot_at[k - 1][d]);
            all = std::max(all, step);
            if (!free_dof[d]) linked = std::max(linked, step);
          }
          return std::pair{all, linked};
        };
        // Tolerances: fixed ones, and one inside each window where the linked
        // links' part of ‖Δv̇ᵏ‖∞ is below both the free links' part and r_k:
        // there Alg. 3 goes on, and a test that skipped the free links would stop.
        std::vector<double> tolerances = {1e-5, 1e-7, 1e-9, 1e-11};
        for (int k = 2; k <= kMaxCap && residual_at[k] > 0.0; ++k) {
          const auto [all, linked] = stepNorms(k);
          const double above = std::min(all, residual_at[k]);
          if (linked > 0.0 && above > 1.5 * linked) tolerances.push_back(std::sqrt(linked * above));
        }
        for (double eps : tolerances) {
          int expected = 0;
          bool near_tie = false, free_links_mattered = false;
          for (int k = 1; k <= kMaxCap && residual_at[k] > 0.0; ++k) {
            constexpr double kNone = std::numeric_limits<double>::infinity();  // no step before the first
            const auto [all, linked] = k > 1 ? stepNorms(k) : std::pair{kNone, kNone};
            // The solver's ‖Δv̇‖∞ is of the increments; the difference of the
            // capped solves' v̇ agrees with it to a few ulps of v̇.
            const double roundoff = 1e-14 * std::max(1.0, vdot_at[k].lpNorm<Eigen::Infinity>());
            near_tie = near_tie || (k > 1 && std::abs(all - eps) < roundoff);
            if (std::min(all, residual_at[k]) <= eps) {
              expected = k;
              break;
            }
            if (residual_at[k] > eps && linked <= eps) free_links_mattered = true;  // only their part went on
            if (k > 1 && residual_at[k] >= residual_at[k - 1]) {
              expected = k;
              break;
            }
          }
          if (expected == 0 || near_tie) {
            ++borderline;
            continue;
          }
          SolverSettings at_eps = settings;
          at_eps.tolerance = eps;
          LcabaSolver solver(set, at_eps);
          VectorX vdot(c.model.nv), lambda(set.dimension());
          const SolveStats st = solver.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
          EXPECT_EQ(st.iterations, expected) << c.name << ", sample " << sample << ", tolerance " << eps;
          EXPECT_EQ(vdot, vdot_at[expected]) << c.name << ", sample " << sample << ", tolerance " << eps;
          ++compared;
          decided_by_free_links += free_links_mattered;
        }
      }
    }
  }
  std::printf("[lcaba] %d stops compared with Alg. 3's test over all links (%d of them later than a test without "
              "the free links would stop), %d skipped (within round-off of ε, or no stop in %d iterations)\n",
              compared, decided_by_free_links, borderline, kMaxCap);
  EXPECT_GE(compared, 60);
  EXPECT_GE(decided_by_free_links, 5) << "the free links' part of the test must be exercised";
}

TEST(LoopSolvers, LoopThroughPrismaticAndSphericalJointsAgreesWithKkt) {
  // No loop scene has a prismatic joint: close two loops through the
  // branching tree's sliders and balls (tip_a, on a slider under a ball under
  // the trunk's slider, and tip_b both to tip_side on a ball), so lcaba's
  // couplings H_{j,i} S_i (paper 001 eq. 30d) pass through prismatic,
  // spherical and revolute subspaces, stored as H_{i,j} and as H_{j,i}.
  const QuietLog quiet;
  const Model tree = branchingTree();
  std::mt19937 rng(41);
  const VectorX q0 = randomConfiguration(tree, rng);
  Data data(tree);
  forwardKinematics(tree, data, q0);
  const Frame& side = tree.frames[tree.existingFrame("tip_side")];
  std::vector<Constraint> loops;
  for (const char* tip : {"tip_a", "tip_b"}) {
    Constraint loop = worldConstraint(tree, std::string(tip) + "_to_side", ConstraintKind::Connect, tip);
    loop.body2 = side.body;
    loop.placement2 = data.oMi[side.body].inverse() * data.oMi[loop.body1] * loop.placement1;
    loops.push_back(loop);
  }
  const ConstraintSet set(tree, loops);
  // The test covers what it says: prismatic links are eliminated with a
  // neighbour of higher and of lower index (the two storage orders).
  bool prismatic_before_neighbour = false, prismatic_after_neighbour = false;
  const EliminationOrdering ordering(set);
  for (const EliminationStep& step : ordering.steps()) {
    if (tree.joint_types[step.body] != JointType::Prismatic) continue;
    for (const CouplingRef& ref : step.neighbours) {
      (ref.body > step.body ? prismatic_before_neighbour : prismatic_after_neighbour) = true;
    }
  }
  ASSERT_TRUE(prismatic_before_neighbour);
  ASSERT_TRUE(prismatic_after_neighbour);
  LcabaSolver lcaba(set, tightSettings(1e2));
  KktSolver kkt(set, tightSettings(1e2));
  const int nv = tree.nv, m = set.dimension();
  for (int sample = 0; sample < 5; ++sample) {
    VectorX q(tree.nq);
    integrate(tree, q0, randomVector(rng, nv, 0.1), 1.0, q);
    const VectorX v = randomVector(rng, nv, 1.0), tau = randomVector(rng, nv, 1.0);
    VectorX vdot(nv), lambda(m), vdot_ref(nv), lambda_ref(m);
    const SolveStats stats = lcaba.solve(q, v, tau, {}, vdot, lambda);
    kkt.solve(q, v, tau, {}, vdot_ref, lambda_ref);
    EXPECT_TRUE(stats.converged) << sample;
    EXPECT_GT(lambda_ref.lpNorm<Eigen::Infinity>(), 1e-3) << sample << ": the loop must carry a force";
    EXPECT_LE(relativeError(vdot, vdot_ref), 1e-9) << sample << ", " << stats.iterations << " iterations";
  }
}

TEST(LoopSolvers, SolvesAreIndependent) {
  // Nothing of one solve leaks into the next (the unswept force change of the
  // last update, the reduced sweeps' workspaces): a reused cold solver
  // returns what a fresh one does, bit for bit (wherever each landed in
  // memory: test_solver_placement.cpp).
  const QuietLog quiet;
  const TreeCase c = sceneCase("digit_box.yaml", 0.05);
  std::mt19937 rng(23);
  int redrawn = 0;
  const TreeState a = sampleConsistent(c, rng, redrawn), b = sampleConsistent(c, rng, redrawn);
  const ConstraintSet set_b(c.model, b.constraints);
  for (const std::string& name : kLoopSolvers) {
    SolverSettings settings = tightSettings(agreementMu(name));
    auto reused = makeSolver(name, set_b, settings), fresh = makeSolver(name, set_b, settings);
    const int nv = c.model.nv, m = set_b.dimension();
    VectorX vdot(nv), lambda(m), vdot_ref(nv), lambda_ref(m);
    reused->solve(a.q, a.v, a.tau, a.fext, vdot, lambda);
    reused->solve(b.q, b.v, b.tau, b.fext, vdot, lambda);
    fresh->solve(b.q, b.v, b.tau, b.fext, vdot_ref, lambda_ref);
    EXPECT_EQ((lambda - lambda_ref).lpNorm<Eigen::Infinity>(), 0.0) << name;
    EXPECT_EQ((vdot - vdot_ref).lpNorm<Eigen::Infinity>(), 0.0) << name;
  }
}

TEST(LoopSolvers, OnWorldConstraintsTheyAreConstrainedAbaAndProxPv) {
  // Without internal loops LCABA is constrainedABA and proxBBO is proxPV
  // (§IV-A): the same iterates.
  const QuietLog quiet;
  for (const TreeCase& c : treeCases()) {
    std::mt19937 rng(8);
    const TreeState s = sampleTreeState(c, rng);
    const ConstraintSet set(c.model, s.constraints);
    const SolverSettings settings = tightSettings(agreementMu("lcaba"));
    LcabaSolver lcaba(set, settings);
    ConstrainedAbaSolver reference(set, settings);
    VectorX vdot(c.model.nv), vdot_ref(c.model.nv), lambda(set.dimension()), lambda_ref(set.dimension());
    const SolveStats a = lcaba.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
    const SolveStats b = reference.solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
    EXPECT_LE(relativeError(vdot, vdot_ref), 1e-9) << c.name;
    EXPECT_NEAR(a.iterations, b.iterations, 1) << c.name;
    const SolverSettings prox_settings = tightSettings(agreementMu("prox-bbo"));
    ProxBboSolver bbo(set, prox_settings);
    auto pv = makeSolver("prox-pv", set, prox_settings);
    bbo.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
    pv->solve(s.q, s.v, s.tau, s.fext, vdot_ref, lambda_ref);
    EXPECT_LE(relativeError(vdot, vdot_ref), 1e-9) << c.name << ", prox-bbo vs prox-pv";
  }
}

TEST(LoopSolvers, RegisteredAndRefuseCouplings) {
  const Scene geared = loadScene(scenesDir() / "geared_chain.yaml");
  const ConstraintSet set(*geared.model, geared.constraints);
  for (const std::string& name : kLoopSolvers) {
    const SolverInfo* info = findSolver(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_TRUE(info->capabilities.internal_loops);
    EXPECT_TRUE(info->capabilities.world_constraints);
    EXPECT_TRUE(info->capabilities.redundant);
    EXPECT_TRUE(info->capabilities.iterative);
    EXPECT_FALSE(info->capabilities.couplings);
    try {
      makeSolver(name, set);
      FAIL() << "expected a ModelError";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("joint couplings"), std::string::npos) << e.what();
    }
    try {
      info->make(set, {});  // direct construction refuses too, naming the constraint
      FAIL() << "expected a ModelError";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(geared.constraints.front().name), std::string::npos) << e.what();
    }
  }
}

// ------------------------------------------------------------- simulation

TEST(LoopSolvers, EverySceneRunsASecond) {
  const QuietLog quiet(spdlog::level::err);  // the Digits' holding torques beyond effort limits are known (scenes/README)
  for (const std::string& name : kLoopSolvers) {
    for (const auto& [file, noise] : kLoopScenes) {
      Scene scene = loadScene(scenesDir() / file);
      scene.solver = name;
      requireSolver(scene.solverProblem(), scene.solver);
      Simulation sim(scene);
      const long steps = std::lround(1.0 / scene.dt);
      for (long k = 0; k < steps && sim.step(); ++k) {
      }
      ASSERT_FALSE(sim.diverged()) << name << ", " << file << ": " << sim.divergence()->message();
      const RunSummary s = sim.summary();
      std::printf("[%s, %s, 1 s] max |φ| %.2e, max |J v| %.2e, mean iterations %.2f, unconverged %ld\n", name.c_str(),
                  scene.name.c_str(), s.max_position_violation, s.max_velocity_violation, s.mean_iterations,
                  s.unconverged_solves);
      EXPECT_LT(s.max_position_violation, scene.projection ? 1e-8 : 1e-2) << name << ", " << file;
    }
  }
}
