// cluster-efpa (paper 004 §VIII) and its reference dense-closed, the Delassus
// matrix of the world constraints with the internal loops closed:
//   - dense-closed equals J_W N (Nᵀ M N)⁻¹ Nᵀ J_Wᵀ with N an orthonormal basis
//     of the loops' null space (computed here by SVD), loop rows 0;
//   - cluster-efpa equals dense-closed (relative 1e-9, max-norm) on random
//     consistent states (fixed seeds) of chain_of_loops_feet.yaml (three ring
//     clusters, two world constraints on different clusters) and of the geared
//     chain with its tip pinned (couplings as clusters, rotor armature in D);
//     on trees it is dense (test_delassus.cpp);
//   - on Digit standing (its internal_loops list: knee, springs, toe motors
//     and the rods' spins as single dofs; two loop clusters per leg, the foot
//     welds as Delassus rows) it equals dense-closed to 1e-9 too;
//   - no allocation in compute(), also on Digit;
//   - refusals: the internal loops' independent joints missing;
//   - the scene key `independent` may coordinate the internal loops alone,
//     which cluster-aba then refuses with the reason.
#include <gtest/gtest.h>

#include <Eigen/SVD>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <functional>

#include "model_error_message.hpp"
#include "allocation_counter.hpp"
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/bench/state_sampling.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/delassus/delassus.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/loops/cluster_structure.hpp>
#include <loopsim/solvers/registry.hpp>
#include "tree_test_cases.hpp"

using namespace loopsim;
using namespace loopsim::test;

namespace {

// The loops-closed Delassus by the projection method (paper 004 §II-E), with
// an SVD null-space basis: nothing shared with either algorithm under test.
MatrixX projectedDelassus(const ConstraintSet& set, const VectorX& q) {
  const Model& model = set.model();
  Data data(model);
  ConstraintData cdata(set);
  computeConstraintTerms(set, data, q, VectorX::Zero(model.nv), cdata, kConstraintErrors | kConstraintJacobian);
  crba(model, data, q);
  std::vector<int> world, loop;
  for (int c = 0; c < set.size(); ++c) {
    for (int r = 0; r < set[c].dimension(); ++r) (isWorldConstraint(set[c]) ? world : loop).push_back(set.rowOffset(c) + r);
  }
  MatrixX K(loop.size(), model.nv);
  for (std::size_t r = 0; r < loop.size(); ++r) K.row(r) = cdata.J.row(loop[r]);
  MatrixX N = MatrixX::Identity(model.nv, model.nv);
  if (!loop.empty()) {
    Eigen::JacobiSVD<MatrixX> svd(K, Eigen::ComputeFullV);
    N = svd.matrixV().rightCols(model.nv - static_cast<int>(loop.size()));
  }
  const MatrixX reduced = N.transpose() * data.M * N;
  const MatrixX P = N * reduced.ldlt().solve(N.transpose());
  MatrixX out = MatrixX::Zero(set.dimension(), set.dimension());
  for (int a : world) {
    for (int b : world) out(a, b) = cdata.J.row(a).dot(P * cdata.J.row(b).transpose());
  }
  return out;
}

// cluster-efpa, the projection algorithm and dense-closed against the
// null-space projection above (an SVD basis, no cluster) on `samples`
// random consistent states; the loop effect compares the open tree's Delassus
// with the projection's on the world rows (the loop rows are 0 in the latter).
struct DenseClosedComparison {
  std::size_t states = 0;
  double worst_reference = 0.0, worst_cluster = 0.0, worst_projection = 0.0, smallest_loop_effect = 1e300;
};

DenseClosedComparison compareWithDenseClosed(const Scene& scene, const ConstraintSet& set,
                                             const std::vector<int>& independent, int samples, unsigned seed) {
  const int m = set.dimension();
  auto reference = makeDelassusAlgorithm("dense-closed", set);
  auto cluster = makeDelassusAlgorithm("cluster-efpa", set, independent);
  auto projection = makeDelassusAlgorithm("projection", set, independent);
  std::vector<int> world;
  for (int c = 0; c < set.size(); ++c) {
    for (int r = 0; r < set[c].dimension(); ++r) {
      if (isWorldConstraint(set[c])) world.push_back(set.rowOffset(c) + r);
    }
  }
  DenseClosedComparison result;
  const std::vector<SampledState> states = sampleStates(scene, set, samples, seed);
  result.states = states.size();
  for (std::size_t sample = 0; sample < states.size(); ++sample) {
    const VectorX& q = states[sample].q;
    const MatrixX projected = projectedDelassus(set, q);
    const double scale = projected.lpNorm<Eigen::Infinity>();
    MatrixX dense_closed = MatrixX::Constant(m, m, 7.0), value = MatrixX::Constant(m, m, 7.0);  // all written
    MatrixX projection_value = MatrixX::Constant(m, m, 7.0);
    reference->compute(q, dense_closed);
    cluster->compute(q, value);
    projection->compute(q, projection_value);
    const double e_projection = (projection_value - dense_closed).lpNorm<Eigen::Infinity>() / scale;
    EXPECT_LE(e_projection, 1e-9) << "projection, sample " << sample;
    result.worst_projection = std::max(result.worst_projection, e_projection);
    const double e_reference = (dense_closed - projected).lpNorm<Eigen::Infinity>() / scale;
    const double e_cluster = (value - dense_closed).lpNorm<Eigen::Infinity>() / scale;
    EXPECT_LE(e_reference, 1e-9) << "dense-closed, sample " << sample;
    EXPECT_LE(e_cluster, 1e-9) << "cluster-efpa, sample " << sample;
    result.worst_reference = std::max(result.worst_reference, e_reference);
    result.worst_cluster = std::max(result.worst_cluster, e_cluster);
    const MatrixX open = computeDelassus(set, q, "dense");
    double loop_effect = 0.0;
    for (int a : world) {
      for (int b : world) loop_effect = std::max(loop_effect, std::abs(open(a, b) - projected(a, b)));
    }
    result.smallest_loop_effect = std::min(result.smallest_loop_effect, loop_effect / scale);
  }
  return result;
}

}  // namespace

TEST(ClusterEfpa, EqualsTheDenseReferenceWithLoopsClosed) {
  const Scene scene = loadScene(scenesDir() / "chain_of_loops_feet.yaml");
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  const ClusterStructure clusters(set, scene.solver_settings.independent_dofs, "test", ClusterScope::InternalLoops);
  EXPECT_EQ(clusters.largestCluster(), 7) << "one cluster per ring";
  const DenseClosedComparison r = compareWithDenseClosed(scene, set, scene.solver_settings.independent_dofs, 20, 1204);
  // Closing the loops matters: the world block differs from the open tree's.
  EXPECT_GT(r.smallest_loop_effect, 1e-3);
  std::printf("[cluster-efpa, chain_of_loops_feet] %zu states: dense-closed vs SVD projection %.2g, cluster-efpa vs "
              "dense-closed %.2g, projection vs dense-closed %.2g (max relative); loops change the world block by "
              ">= %.2g\n",
              r.states, r.worst_reference, r.worst_cluster, r.worst_projection, r.smallest_loop_effect);
}

TEST(ClusterEfpa, GearClustersWithATipOnTheWorld) {
  std::ifstream in(scenesDir() / "geared_chain.yaml");
  std::stringstream text;
  text << in.rdbuf() << "constraints:\n  - {name: tip, type: connect, body1: link_6, rows: [x, z]}\n";
  const Scene scene = loadSceneString(text.str(), "geared_chain_tip.yaml", scenesDir());
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  const int m = set.dimension();
  auto reference = makeDelassusAlgorithm("dense-closed", set);
  auto cluster = makeDelassusAlgorithm("cluster-efpa", set, scene.solver_settings.independent_dofs);
  auto projection = makeDelassusAlgorithm("projection", set, scene.solver_settings.independent_dofs);
  double worst = 0.0, worst_projection = 0.0;
  for (const SampledState& s : sampleStates(scene, set, 10, 1205)) {
    const MatrixX projected = projectedDelassus(set, s.q);
    MatrixX dense_closed(m, m), value(m, m), projection_value(m, m);
    reference->compute(s.q, dense_closed);
    cluster->compute(s.q, value);
    projection->compute(s.q, projection_value);
    const double scale = projected.lpNorm<Eigen::Infinity>();
    EXPECT_LE((dense_closed - projected).lpNorm<Eigen::Infinity>() / scale, 1e-9);
    worst = std::max(worst, (value - dense_closed).lpNorm<Eigen::Infinity>() / scale);
    worst_projection = std::max(worst_projection, (projection_value - dense_closed).lpNorm<Eigen::Infinity>() / scale);
  }
  EXPECT_LE(worst, 1e-9);
  EXPECT_LE(worst_projection, 1e-9);
  std::printf("[cluster-efpa, geared chain with its tip pinned] 10 states: max relative error %.2g\n", worst);
}

// Digit standing: the achilles cluster (rod, knee, shin, tarsus, heel spring)
// and the toe cluster (toe motors, their rods, toe pitch and roll) per leg, the
// rods' spins independent as single dofs; the feet welds are the 12 world rows.
// The scene gives it its own list (independent: internal_loops); cluster-aba's
// list (all_constraints) is refused here, with the reason.
TEST(ClusterEfpa, EqualsTheDenseReferenceOnDigit) {
  const Scene scene = loadScene(scenesDir() / "digit_standing.yaml");
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  const ClusterStructure clusters(set, scene.solver_settings.independent_dofs_internal_loops, "test",
                                  ClusterScope::InternalLoops);
  int loop_clusters = 0;
  for (const BodyCluster& cl : clusters.clusters()) loop_clusters += cl.rowCount() > 0 ? 1 : 0;
  EXPECT_EQ(loop_clusters, 4) << "an achilles and a toe cluster per leg";
  // cluster-aba's list (all_constraints) does not fit this view.
  const std::string msg = messageOf([&] { makeDelassusAlgorithm("cluster-efpa", set, scene.solver_settings.independent_dofs); });
  EXPECT_NE(msg.find("delassus algorithm 'cluster-efpa'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'base_joint' declared independent but close no loop"), std::string::npos) << msg;
  const DenseClosedComparison r =
      compareWithDenseClosed(scene, set, scene.solver_settings.independent_dofs_internal_loops, 10, 1206);
  EXPECT_GT(r.smallest_loop_effect, 1e-3) << "closing the leg loops changes the feet's Delassus";
  std::printf("[cluster-efpa, digit_standing] %zu states: dense-closed vs SVD projection %.2g, cluster-efpa vs "
              "dense-closed %.2g, projection vs dense-closed %.2g (max relative); loops change the feet block by "
              ">= %.2g\n",
              r.states, r.worst_reference, r.worst_cluster, r.worst_projection, r.smallest_loop_effect);
}

TEST(ClusterEfpa, ComputeDoesNotAllocate) {
  for (const char* file : {"chain_of_loops_feet.yaml", "digit_standing.yaml"}) {
    const Scene scene = loadScene(scenesDir() / file);
    const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
    MatrixX out = MatrixX::Zero(set.dimension(), set.dimension());
    for (const std::string name : {"cluster-efpa", "dense-closed", "projection"}) {
      auto algorithm = makeDelassusAlgorithm(name, set, scene.solver_settings.independent_dofs_internal_loops);
      algorithm->compute(scene.q0, out);
      EXPECT_EQ(countHeapAllocations([&] { algorithm->compute(scene.q0, out); }), 0) << name << ", " << file;
    }
  }
}

TEST(ClusterEfpa, RefusesLoopsWithoutTheirIndependentJoints) {
  const Scene scene = loadScene(scenesDir() / "chain_of_loops_feet.yaml");
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  const std::string msg = messageOf([&] { makeDelassusAlgorithm("cluster-efpa", set); });
  EXPECT_NE(msg.find("delassus algorithm 'cluster-efpa'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("loop1_weld"), std::string::npos) << msg;
  EXPECT_NE(msg.find("needs 1 independent dofs"), std::string::npos) << msg;
}

TEST(ClusterEfpa, IndependentMayCoordinateTheInternalLoopsAlone) {
  // chain_of_loops_feet declares one joint per ring: right for its internal
  // loops (cluster-efpa), wrong for cluster-aba, whose feet join everything
  // down to the root into one cluster. The scene loads; cluster-aba says why not.
  const Scene scene = loadScene(scenesDir() / "chain_of_loops_feet.yaml");
  const std::string msg = messageOf([&] { requireSolver(scene.solverProblem(), "cluster-aba"); });
  EXPECT_NE(msg.find("solver 'cluster-aba'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("low_foot"), std::string::npos) << msg;
  // A declaration that fits neither view is still an error, naming both.
  const std::string text = "name: t\nmodels:\n  - generator: chain_of_loops\n    params: {loops: 2, links_per_loop: 7}\n"
                           "constraints:\n  - {name: foot, type: connect, body1: loop2_link_4, rows: [x]}\n"
                           "independent: [loop1_link_1_joint]\n";
  const std::string neither = messageOf([&] { loadSceneString(text, "t.yaml"); });
  EXPECT_NE(neither.find("nor does it coordinate the internal loops alone"), std::string::npos) << neither;
}
