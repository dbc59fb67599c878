// The cluster-based algorithms of paper 004 (cluster-aba) against the references:
//   - cluster construction: gears make clusters of two bodies, parallel belts
//     of four, a four-bar one of three (paper 004 Fig. 3, 8e-f);
//   - cluster-aba equals kkt (v̇ relative 1e-9, Jᵀλ relative 1e-8) on random
//     consistent states (fixed seeds) of every scene it runs, with and
//     without added inertia: the geared and belt chains' couplings, the
//     four-bar's, the cycle's and the chain of loops' welds, Digit's leg loops and feet welds, as kkt solves them. Samples where K_d is singular for
//     the declared joints (pivot ratio < 1e-6), or the Delassus condition exceeds 1e10, are
//     skipped and counted (few allowed). Each compared sample must have
//     constraints that matter (ABA without them differs).
//   - on a tree without constraints it is ABA;
//   - refusals: undeclared or insufficient independent joints, a declared
//     joint outside every loop, a redundant set, an unknown joint name in the
//     scene key (with "did you mean");
//   - every scene it accepts runs 10 s without divergence, closure <= 1e-8
//     with projection on.
//   - (No allocation inside solve(): test_allocation.cpp.)
#include <gtest/gtest.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <functional>
#include <unistd.h>
#include <map>
#include <optional>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/bench/state_sampling.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/record/csv_reader.hpp>
#include <loopsim/record/inverse_evaluation.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/solvers/joint_space/kkt_solver.hpp>
#include <loopsim/solvers/loops/cluster_aba_solver.hpp>
#include <loopsim/solvers/loops/cluster_rnea.hpp>
#include <loopsim/solvers/loops/projected_rnea.hpp>
#include <loopsim/solvers/registry.hpp>
#include "model_error_message.hpp"
#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

using namespace loopsim;
using namespace loopsim::test;

namespace {

// Every scene whose declared independent coordinates (scene key `independent`)
// coordinate every constraint; Digit's include its rods' spins as single dofs.
const std::vector<std::string> kClusterScenes = {"four_bar.yaml", "geared_chain.yaml", "belt_chain.yaml", "chain_of_loops.yaml",
                                                  "cycle.yaml", "digit_standing.yaml", "digit_box.yaml", "two_digits_box.yaml"};

SolverSettings clusterSettings(const Scene& scene) {
  SolverSettings s;
  s.independent_dofs = scene.solver_settings.independent_dofs;
  return s;
}

TEST(ClusterSolvers, ClustersOfGearsBeltsAndFourBar) {
  const std::map<std::string, std::vector<int>> expected = {
      {"four_bar.yaml", {3}}, {"geared_chain.yaml", {2, 2, 2, 2, 2, 2}}, {"belt_chain.yaml", {4, 4, 4}}};
  for (const auto& [file, sizes] : expected) {
    const Scene scene = loadScene(scenesDir() / file);
    const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
    const ClusterStructure clusters(set, scene.solver_settings.independent_dofs, "test");
    std::vector<int> loop_sizes;
    for (const BodyCluster& cl : clusters.clusters()) {
      if (cl.rowCount() > 0) loop_sizes.push_back(cl.bodyCount());
      if (cl.parent >= 0) {
        EXPECT_LT(cl.parent, &cl - clusters.clusters().data()) << file << ": parents come first";
      }
      EXPECT_EQ(static_cast<int>(cl.dependent.size()), cl.rowCount()) << file;
    }
    EXPECT_EQ(loop_sizes, sizes) << file;
    EXPECT_EQ(clusters.independentDofs(), scene.model->nv - set.dimension()) << file;
  }
}

TEST(ClusterSolvers, ClusterAbaAgreesWithKkt) {
  const QuietLog quiet;
  unsigned seed = 4000;
  int total_compared = 0, total_skipped = 0;
  for (const std::string& file : kClusterScenes) {
    const Scene scene = loadScene(scenesDir() / file);
    const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
    const int nv = scene.model->nv, m = set.dimension();
    KktSolver kkt(set, {});
    ClusterAbaSolver cluster(set, clusterSettings(scene));
    std::mt19937 rng(seed);
    const std::vector<SampledState> states = sampleStates(scene, set, 12, seed++);
    int compared = 0, skipped = 0;
    double max_vdot = 0.0, max_force = 0.0, min_effect = 1e300;
    for (std::size_t sample = 0; sample < states.size(); ++sample) {
      const SampledState& s = states[sample];
      const bool added = sample % 2 == 1;
      const VectorX d = added ? VectorX(randomVector(rng, nv, 0.5).cwiseAbs()) : VectorX(VectorX::Zero(nv));
      kkt.setAddedInertia(d);
      cluster.setAddedInertia(d);
      std::vector<Force> fext(scene.model->nbodies(), Force(Vector6::Zero()));
      for (int b = 1; b < scene.model->nbodies(); ++b) fext[b] = Force(Vector6(randomVector(rng, 6, 1.0)));
      VectorX vdot_ref(nv), lambda_ref(m), vdot(nv), lambda(m);
      kkt.solve(s.q, s.v, s.tau, fext, vdot_ref, lambda_ref);
      const SolveStats stats = cluster.solve(s.q, s.v, s.tau, fext, vdot, lambda);
      // Ill-conditioned: K_d nearly singular for the declared joints (pivot
      // ratio below 1e-6; its round-off reaches v̇ through G = -K_d⁻¹ K_y),
      // or the Delassus matrix (kkt's own round-off).
      if (!stats.converged || cluster.lastPivotRatio() < 1e-6 || delassusCondition(kkt.delassus()) > 1e10) {
        ++skipped;
        continue;
      }
      const std::string where = file + ", sample " + std::to_string(sample) + (added ? ", added inertia" : "");
      Data data(*scene.model);
      const double effect = relativeError(aba(*scene.model, data, s.q, s.v, s.tau, fext), vdot_ref);
      if (!added) {
        EXPECT_GT(effect, 1e-3) << where << ": the constraints barely change v̇";
      }
      const MatrixX& J = kkt.constraintData().J;
      const double e_vdot = relativeError(vdot, vdot_ref);
      const double e_force = relativeError(J.transpose() * lambda, J.transpose() * lambda_ref);
      EXPECT_LE(e_vdot, 1e-9) << where;
      EXPECT_LE(e_force, 1e-8) << where;
      EXPECT_LE(stats.residual, 1e-9 * std::max(1.0, kkt.constraintData().k.lpNorm<Eigen::Infinity>())) << where;
      ++compared;
      max_vdot = std::max(max_vdot, e_vdot);
      max_force = std::max(max_force, e_force);
      if (!added) min_effect = std::min(min_effect, effect);
    }
    std::printf("[cluster-aba vs kkt, %s] %d compared, %d skipped (K_d pivot ratio < 1e-6 or condition > 1e10); max rel. error "
                "v̇ %.3g, Jᵀλ %.3g; min rel. distance of ABA from kkt %.3g\n",
                file.c_str(), compared, skipped, max_vdot, max_force, min_effect);
    EXPECT_GE(compared, 9) << file;
    total_compared += compared;
    total_skipped += skipped;
  }
  EXPECT_LE(total_skipped * 10, total_compared);
}

// cluster-rnea(q, v, cluster-aba(q, v, τ)) = Gᵀτ on the independent
// coordinates: with τ on the independent joints only (Gᵀτ = τ_y, G's y rows
// being the identity), the torques come back; with τ on every joint, Gᵀτ.
// Projected RNEA (paper 004 §II-C) gives the same τ_y by the spanning tree.
TEST(ClusterSolvers, ClusterRneaInvertsClusterAba) {
  unsigned seed = 4100;
  for (const std::string& file : kClusterScenes) {
    const Scene scene = loadScene(scenesDir() / file);
    const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
    const int nv = scene.model->nv, m = set.dimension();
    ClusterAbaSolver aba_solver(set, clusterSettings(scene));
    ClusterRnea rnea(set, scene.solver_settings.independent_dofs);
    ProjectedRnea projected(set, scene.solver_settings.independent_dofs);
    const std::vector<int>& y = rnea.structure().independentDofIndices();
    const int ny = static_cast<int>(y.size());
    std::mt19937 rng(seed);
    int compared = 0;
    double worst = 0.0;
    for (const SampledState& s : sampleStates(scene, set, 8, seed++)) {
      std::vector<Force> fext(scene.model->nbodies(), Force(Vector6::Zero()));
      for (int b = 1; b < scene.model->nbodies(); ++b) fext[b] = Force(Vector6(randomVector(rng, 6, 1.0)));
      VectorX tau = VectorX::Zero(nv);
      for (int i : y) tau[i] = s.tau[i];
      VectorX vdot(nv), lambda(m), ydd(ny), tau_y(ny);
      if (!aba_solver.solve(s.q, s.v, tau, fext, vdot, lambda).converged) continue;
      for (int i = 0; i < ny; ++i) ydd[i] = vdot[y[i]];
      ASSERT_TRUE(rnea.compute(s.q, s.v, ydd, fext, tau_y)) << file;
      VectorX expected(ny);
      for (int i = 0; i < ny; ++i) expected[i] = tau[y[i]];
      EXPECT_LE(relativeError(tau_y, expected), 1e-9) << file;
      EXPECT_LE(relativeError(rnea.spanningAcceleration(), vdot), 1e-9) << file;
      VectorX tau_projected(ny);
      ASSERT_TRUE(projected.compute(s.q, s.v, ydd, fext, tau_projected)) << file;
      EXPECT_LE(relativeError(tau_projected, expected), 1e-9) << file << ": projected RNEA";
      worst = std::max({worst, relativeError(tau_y, expected), relativeError(tau_projected, expected)});
      ++compared;
    }
    std::printf("[cluster-rnea and projected RNEA of cluster-aba(τ) = τ_y, %s] %d states, max rel. error %.3g\n", file.c_str(), compared,
                worst);
    EXPECT_GE(compared, 6) << file;
  }
}

// eval --inverse on the four-bar: the crank torque that cluster-aba turned
// into the given accelerations comes back; bad columns are refused by name.
TEST(ClusterSolvers, EvalInverseGivesTheIndependentTorques) {
  const Scene scene = loadScene(scenesDir() / "four_bar.yaml");
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  ClusterAbaSolver solver(set, clusterSettings(scene));
  const auto dir = std::filesystem::temp_directory_path() / ("loopsim_inverse_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& header, const std::vector<SampledState>& states,
                   std::vector<double>* crank_tau) {
    std::ofstream out(dir / name);
    out << header << "\n";
    for (std::size_t i = 0; i < states.size(); ++i) {
      const SampledState& s = states[i];
      VectorX tau = VectorX::Zero(3), vdot(3), lambda(set.dimension());
      tau[0] = s.tau[0];
      solver.solve(s.q, s.v, tau, {}, vdot, lambda);
      if (crank_tau != nullptr) crank_tau->push_back(tau[0]);
      out.precision(17);
      out << 0.1 * static_cast<double>(i) << "," << s.q[0] << "," << s.q[1] << "," << s.q[2] << "," << s.v[0] << ","
          << s.v[1] << "," << s.v[2] << "," << vdot[0] << "\n";
    }
  };
  const std::vector<SampledState> states = sampleStates(scene, set, 5, 4200);
  std::vector<double> crank_tau;
  write("in.csv", "t,q:crank_joint,q:coupler_joint,q:rocker_joint,v:crank_joint,v:coupler_joint,v:rocker_joint,"
                  "vdot:crank_joint", states, &crank_tau);
  // A stop request (the CLI's SIGINT/SIGTERM) leaves no output and no temporary file.
  EXPECT_EQ(evaluateInverseDynamics(scene, dir / "in.csv", dir / "stopped.csv", true, true, [] { return true; }),
            std::nullopt);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find("stopped.csv"), std::string::npos) << entry.path();
  }
  EXPECT_EQ(evaluateInverseDynamics(scene, dir / "in.csv", dir / "out.csv", true), 5);
  const CsvTable out = readCsv(dir / "out.csv");
  ASSERT_EQ(out.columns, (std::vector<std::string>{"t", "tau:crank_joint"}));
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    EXPECT_NEAR(out.rows[i][1], crank_tau[i], 1e-9 * std::max(1.0, std::abs(crank_tau[i]))) << "row " << i;
  }
  write("dependent.csv", "t,q:crank_joint,q:coupler_joint,q:rocker_joint,v:crank_joint,v:coupler_joint,v:rocker_joint,"
                         "vdot:coupler_joint", states, nullptr);
  std::string msg = messageOf([&] { evaluateInverseDynamics(scene, dir / "dependent.csv", dir / "o.csv", true); });
  EXPECT_NE(msg.find("vdot:crank_joint"), std::string::npos) << msg;  // missing
  write("unknown.csv", "t,q:crank_joint,q:coupler_joint,q:rocker_joint,v:crank_joint,v:coupler_joint,v:rocker_joint,"
                       "vdot:crank_jiont", states, nullptr);
  msg = messageOf([&] { evaluateInverseDynamics(scene, dir / "unknown.csv", dir / "o.csv", true); });
  EXPECT_NE(msg.find("vdot:crank_joint"), std::string::npos) << msg;
  {
    std::ofstream extra(dir / "extra.csv");
    std::ifstream in(dir / "in.csv");
    std::string line;
    for (bool first = true; std::getline(in, line); first = false) extra << line << (first ? ",vdot:rocker_joint" : ",0") << "\n";
  }
  msg = messageOf([&] { evaluateInverseDynamics(scene, dir / "extra.csv", dir / "o.csv", true); });
  EXPECT_NE(msg.find("dependent coordinate"), std::string::npos) << msg;
  std::filesystem::remove_all(dir);
}

TEST(ClusterSolvers, OnATreeItIsAba) {
  const Scene scene = loadScene(scenesDir() / "geared_chain.yaml");
  const ConstraintSet set(*scene.model, {}, scene.time_constant);
  ClusterAbaSolver cluster(set, {});
  std::mt19937 rng(7);
  const int nv = scene.model->nv;
  const VectorX q = randomVector(rng, nv, 1.0), v = randomVector(rng, nv, 1.0), tau = randomVector(rng, nv, 1.0);
  VectorX vdot(nv), lambda(0);
  const SolveStats stats = cluster.solve(q, v, tau, {}, vdot, lambda);
  Data data(*scene.model);
  EXPECT_TRUE(stats.converged);
  EXPECT_LE(relativeError(vdot, aba(*scene.model, data, q, v, tau)), 1e-12);
  EXPECT_EQ(ClusterStructure(set, {}, "test").largestCluster(), 1);
}

TEST(ClusterSolvers, RefusesLoopsTheDeclaredJointsCannotCoordinate) {
  const Scene four_bar = loadScene(scenesDir() / "four_bar.yaml");
  const ConstraintSet set(*four_bar.model, four_bar.constraints, four_bar.time_constant);
  const Model& m = *four_bar.model;
  auto dof = [&](const std::string& joint) { return m.idx_v[m.jointId(joint)]; };
  // None declared: the cluster needs one independent dof.
  std::string msg = messageOf([&] { ClusterAbaSolver solver(set, {}); });
  EXPECT_NE(msg.find("solver 'cluster-aba'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("needs 1 independent dofs"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'crank_joint', 'coupler_joint', 'rocker_joint'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(four_bar.constraints.front().name), std::string::npos) << msg;
  // Too many: a planar loop of 2 rows leaves one.
  SolverSettings two;
  two.independent_dofs = {dof("crank_joint"), dof("rocker_joint")};
  msg = messageOf([&] { ClusterAbaSolver solver(set, two); });
  EXPECT_NE(msg.find("declares 'crank_joint', 'rocker_joint'"), std::string::npos) << msg;

  // A declared joint outside every loop.
  const Scene geared = loadScene(scenesDir() / "geared_chain.yaml");
  SolverSettings extra;
  extra.independent_dofs = geared.solver_settings.independent_dofs;
  const ConstraintSet first_gear_only(*geared.model, {geared.constraints.front()}, geared.time_constant);
  msg = messageOf([&] { ClusterAbaSolver solver(first_gear_only, extra); });
  EXPECT_NE(msg.find("close no loop or coupling"), std::string::npos) << msg;

  // The scene checks say the same at load time, and `auto` leaves cluster-aba out.
  Scene undeclared = four_bar;
  undeclared.solver_settings.independent_dofs.clear();
  msg = messageOf([&] { requireSolver(undeclared.solverProblem(), "cluster-aba"); });
  EXPECT_NE(msg.find("needs 1 independent dofs"), std::string::npos) << msg;
  EXPECT_NO_THROW(requireSolver(four_bar.solverProblem(), "cluster-aba"));
  // The rocker coordinates the loop too at q0 (crank and coupler not aligned).
  Scene rocker = four_bar;
  rocker.solver_settings.independent_dofs = {dof("rocker_joint")};
  EXPECT_NO_THROW(requireSolver(rocker.solverProblem(), "cluster-aba"));
}

TEST(ClusterSolvers, SceneKeyIndependent) {
  const std::string base = R"(
name: k
models:
  - generator: four_bar
    params: {ground: 0.9, crank: 0.3, coupler: 1.0, rocker: 0.8, crank_angle: 1.0}
)";
  const Scene ok = loadSceneString(base + "independent: [crank_joint]\nsolver: cluster-aba\n", "k.yaml");
  EXPECT_EQ(ok.solver, "cluster-aba");
  EXPECT_EQ(ok.solver_settings.independent_dofs, std::vector<int>{0});  // crank_joint's dof
  std::string msg = messageOf([&] { loadSceneString(base + "independent: [crank_jiont]\n", "k.yaml"); });
  EXPECT_NE(msg.find("crank_joint"), std::string::npos) << msg;  // did you mean
  msg = messageOf([&] { loadSceneString(base + "independent: [crank_joint, crank_joint]\n", "k.yaml"); });
  EXPECT_NE(msg.find("listed twice"), std::string::npos) << msg;
  msg = messageOf([&] { loadSceneString(base + "solver: cluster-aba\n", "k.yaml"); });
  EXPECT_NE(msg.find("needs 1 independent dofs"), std::string::npos) << msg;
  msg = messageOf([&] { loadSceneString(base + "independant: [crank_joint]\n", "k.yaml"); });
  EXPECT_NE(msg.find("independent"), std::string::npos) << msg;  // did you mean
}

TEST(ClusterSolvers, EverySceneRunsTenSeconds) {
  const QuietLog quiet(spdlog::level::err);
  for (const std::string& file : kClusterScenes) {
    // Two Digits with the box take 7 s of wall time per run (one 114-dof cluster): checked by hand with
    // `loopsim run scenes/two_digits_box.yaml --solver cluster-aba` (max |φ| 1.8e-15 with projection on).
    if (file == "two_digits_box.yaml") continue;
    for (bool projection : {false, true}) {
      Scene scene = loadScene(scenesDir() / file);
      scene.solver = "cluster-aba";
      scene.projection = projection;
      requireSolver(scene.solverProblem(), scene.solver);
      Simulation sim(scene);
      const long steps = std::lround(10.0 / scene.dt);
      for (long k = 0; k < steps && sim.step(); ++k) {
      }
      ASSERT_FALSE(sim.diverged()) << file << ": " << sim.divergence()->message();
      const RunSummary s = sim.summary();
      std::printf("[cluster-aba, %s, 10 s, projection %s] max |φ| %.2e, max |J v| %.2e, unconverged %ld\n",
                  scene.name.c_str(), projection ? "on" : "off", s.max_position_violation, s.max_velocity_violation,
                  s.unconverged_solves);
      EXPECT_EQ(s.unconverged_solves, 0) << file;
      EXPECT_LT(s.max_position_violation, projection ? 1e-8 : 1e-2) << file;
    }
  }
}

}  // namespace
