// PlanarLoop (planar_loop.hpp): the four-bar's rows in closed form.
//   - recognised on the four-bar (alone and with its geared rotor), not on
//     loops closed by welds or 3D connects;
//   - on random states across the joint ranges (not on the manifold): K
//     equals the central difference of φ (1e-6 relative, h = 1e-5), K̇q̇
//     the second difference along q + t v (1e-4), and the set's own rows
//     are Q times the loop's: J_A = Q K to 1e-12 (its root is the world, so
//     the relative velocity is the same in both axes) and φ_A = Q φ;
//   - on consistent states k_A = Q k (1e-9 relative): the same constraint;
//   - on a floating base cluster-aba (the loop in closed form) equals kkt.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/bench/state_sampling.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/loops/planar_loop.hpp>
#include <loopsim/solvers/registry.hpp>
#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

using namespace loopsim;
using namespace loopsim::test;

namespace {

std::filesystem::path scenePath(const char* file) {
  return std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / file;
}

struct LoopCase {
  Scene scene;
  ConstraintSet set;
  ClusterStructure structure;
  int cluster = -1;
  std::optional<PlanarLoop> loop;
  explicit LoopCase(const char* file)
      : scene(loadScene(scenePath(file))),
        set(*scene.model, scene.constraints, scene.time_constant),
        structure(set, scene.solver_settings.independent_dofs, "test") {
    for (std::size_t k = 0; k < structure.clusters().size(); ++k) {
      if (structure.clusters()[k].rowCount() > 0 && !structure.clusters()[k].constant_jacobian) cluster = static_cast<int>(k);
    }
    if (cluster >= 0) loop = PlanarLoop::recognise(set, structure.clusters()[cluster]);
  }
  const BodyCluster& cl() const { return structure.clusters()[cluster]; }
};

// The loop's K (rows x cluster dofs), k and Q at (q, v).
struct LoopTerms {
  MatrixX K;
  VectorX k;
  Eigen::Matrix2d Q;
};
LoopTerms terms(const LoopCase& c, const VectorX& q, const VectorX& v) {
  Data data(*c.scene.model);
  forwardKinematics(*c.scene.model, data, q);
  LoopTerms t{MatrixX::Zero(c.cl().rowCount(), c.cl().dofCount()), VectorX::Zero(c.cl().rowCount()), {}};
  c.loop->evaluate(data, v, c.set.gains(c.loop->constraint()), t.K, t.k.data(), t.Q);
  return t;
}
// φ in the root's axes: k = -k_p φ at v = 0.
Eigen::Vector2d phi(const LoopCase& c, const VectorX& q) {
  const LoopTerms t = terms(c, q, VectorX::Zero(c.scene.model->nv));
  const double kp = c.set.gains(c.loop->constraint()).kp;
  return -Eigen::Vector2d(t.k[c.loop->rowPosition(0)], t.k[c.loop->rowPosition(1)]) / kp;
}
Eigen::Vector2d rows(const LoopCase& c, const VectorX& x) { return {x[c.loop->rowPosition(0)], x[c.loop->rowPosition(1)]}; }
Eigen::Matrix<double, 2, Eigen::Dynamic> rows(const LoopCase& c, const MatrixX& K) {
  Eigen::Matrix<double, 2, Eigen::Dynamic> out(2, K.cols());
  out << K.row(c.loop->rowPosition(0)), K.row(c.loop->rowPosition(1));
  return out;
}

}  // namespace

TEST(PlanarLoop, RecognisesTheFourBarAloneAndGeared) {
  QuietLog quiet;
  for (const char* file : {"four_bar.yaml", "geared_four_bar.yaml"}) {
    const LoopCase c(file);
    ASSERT_GE(c.cluster, 0) << file;
    EXPECT_TRUE(c.loop.has_value()) << file;
  }
  for (const char* file : {"chain_of_loops.yaml", "cycle.yaml", "digit_standing.yaml"}) {
    const LoopCase c(file);
    EXPECT_FALSE(c.loop.has_value()) << file << ": welds or 3D loops are no planar loop";
  }
}

TEST(PlanarLoop, RowsAreTheDerivativesOfPhiAndTheSetsRowsRotated) {
  QuietLog quiet;
  std::mt19937 rng(20261205);
  for (const char* file : {"four_bar.yaml", "geared_four_bar.yaml"}) {
    const LoopCase c(file);
    ASSERT_TRUE(c.loop.has_value()) << file;
    const Model& m = *c.scene.model;
    const int nv = m.nv;
    for (int sample = 0; sample < 20; ++sample) {
      const VectorX q = randomConfiguration(m, rng);  // across the joint ranges: off the manifold
      const VectorX v = randomVector(rng, nv, 1.0);
      const LoopTerms t = terms(c, q, v);
      const auto K = rows(c, t.K);
      // K = ∂φ/∂q by central differences (revolute joints: q and v alike).
      const double h = 1e-5;
      for (int d = 0; d < c.cl().dofCount(); ++d) {
        VectorX dq = VectorX::Zero(nv);
        dq[c.cl().dofs[d]] = h;
        const Eigen::Vector2d numeric = (phi(c, q + dq) - phi(c, q - dq)) / (2 * h);
        EXPECT_LE((K.col(d) - numeric).norm(), 1e-6 * std::max(1.0, numeric.norm())) << file << " dof " << d;
      }
      // K̇q̇ = d²/dt² φ(q + t v) at t = 0; k = -K̇q̇ - k_d K v - k_p φ.
      VectorX v_cluster = VectorX::Zero(nv);
      for (int d : c.cl().dofs) v_cluster[d] = v[d];
      const double ht = 1e-4;
      const Eigen::Vector2d second = (phi(c, q + ht * v_cluster) - 2 * phi(c, q) + phi(c, q - ht * v_cluster)) / (ht * ht);
      const BaumgarteGains& g = c.set.gains(c.loop->constraint());
      VectorX v_dofs(c.cl().dofCount());
      for (int d = 0; d < c.cl().dofCount(); ++d) v_dofs[d] = v[c.cl().dofs[d]];
      const Eigen::Vector2d bias = -rows(c, t.k) - g.kd * (K * v_dofs) - g.kp * phi(c, q);
      EXPECT_LE((bias - second).norm(), 1e-4 * std::max(1.0, second.norm())) << file << " sample " << sample;
      // The set's rows: J_A = Q K on the cluster's dofs, φ_A = Q φ.
      Data data(m);
      ConstraintData cdata(c.set);
      computeConstraintTerms(c.set, data, q, v, cdata, kConstraintErrors | kConstraintJacobian);
      const int row0 = c.set.rowOffset(c.loop->constraint());
      Eigen::Matrix<double, 2, Eigen::Dynamic> JA(2, c.cl().dofCount());
      for (int d = 0; d < c.cl().dofCount(); ++d) JA.col(d) = cdata.J.block(row0, c.cl().dofs[d], 2, 1);
      EXPECT_LE((JA - t.Q * K).lpNorm<Eigen::Infinity>(), 1e-12 * std::max(1.0, JA.lpNorm<Eigen::Infinity>())) << file;
      EXPECT_LE((cdata.phi.segment<2>(row0) - t.Q * phi(c, q)).norm(), 1e-12) << file;
      EXPECT_NEAR((t.Q.transpose() * t.Q - Eigen::Matrix2d::Identity()).norm(), 0.0, 1e-14) << file << ": Q is a rotation";
    }
    // On the manifold the targets agree: the same constraint.
    for (const SampledState& s : sampleStates(c.scene, c.set, 10, 7)) {
      const LoopTerms t = terms(c, s.q, s.v);
      Data data(m);
      ConstraintData cdata(c.set);
      computeConstraintTerms(c.set, data, s.q, s.v, cdata, kConstraintErrors | kConstraintJacobian);
      const Eigen::Vector2d kA = cdata.k.segment<2>(c.set.rowOffset(c.loop->constraint()));
      EXPECT_LE((kA - t.Q * rows(c, t.k)).norm(), 1e-9 * std::max(1.0, kA.norm())) << file;
    }
  }
}

// The loop's rows in its root's axes do not depend on what the root does:
// on a floating base (tumbling in 3D) cluster-aba, with the four-bar in
// closed form, equals kkt (v̇ 1e-9, Jᵀλ 1e-8 relative) on consistent states.
TEST(PlanarLoop, ClusterAbaEqualsKktWithTheLoopsRootMoving) {
  QuietLog quiet;
  const Scene scene = loadSceneString(R"(
name: floating_four_bar
models:
  - generator: four_bar
    params: {ground: 0.9, crank: 0.3, coupler: 1.0, rocker: 0.8, crank_angle: 1.0}
    base: floating
    base_body: {shape: box, size: [0.3, 0.3, 0.1], mass: 5}
    pose: {position: [0, 0, 1.0], rpy: [1.2, 0.3, -0.4]}
independent: [crank_joint]
gravity: [0, 0, -9.81]
)",
                                      "floating four-bar");
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  auto cluster = makeSolver("cluster-aba", set, scene.solver_settings);
  auto kkt = makeSolver("kkt", set, scene.solver_settings);
  // The closed form is in use: no constraint terms evaluated.
  EXPECT_EQ(cluster->solvedConstraintTerms(), nullptr);
  const int nv = scene.model->nv, m = set.dimension();
  std::mt19937 rng(5);
  int compared = 0;
  for (const SampledState& s : sampleStates(scene, set, 20, 11)) {
    VectorX v = s.v;
    v.head(6) += randomVector(rng, 6, 2.0);  // the base turning fast in 3D (the loop's own v stays consistent)
    VectorX vdot_ref(nv), lambda_ref(m), vdot(nv), lambda(m);
    kkt->solve(s.q, v, s.tau, {}, vdot_ref, lambda_ref);
    const SolveStats stats = cluster->solve(s.q, v, s.tau, {}, vdot, lambda);
    ASSERT_TRUE(stats.converged);
    const MatrixX& J = kkt->solvedConstraintTerms()->J;
    EXPECT_LE((vdot - vdot_ref).norm(), 1e-9 * std::max(1.0, vdot_ref.norm()));
    EXPECT_LE((J.transpose() * (lambda - lambda_ref)).norm(), 1e-8 * std::max(1.0, (J.transpose() * lambda_ref).norm()));
    EXPECT_LE((lambda - lambda_ref).norm(), 1e-8 * std::max(1.0, lambda_ref.norm())) << "λ in the set's rows";
    ++compared;
  }
  EXPECT_GE(compared, 15);
}
