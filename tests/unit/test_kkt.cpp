// The dense `kkt` reference: on random constraint-consistent states (docs/conventions.md:
// world targets at the current frame pose; loops projected from the reference
// assembly) its v̇ and λ satisfy M v̇ + h = τ + Jᵀλ and J v̇ = k to round-off.
#include <gtest/gtest.h>

#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/model/errors.hpp>
#include "sim_test_scenes.hpp"
#include <loopsim/solvers/joint_space/kkt_solver.hpp>
#include <loopsim/solvers/registry.hpp>

using namespace loopsim;

namespace {

VectorX randomVector(std::mt19937& rng, int n, double scale) {
  std::normal_distribution<double> g(0.0, scale);
  return VectorX::NullaryExpr(n, [&](Eigen::Index) { return g(rng); });
}

struct Residuals {
  double dynamics = 0.0;    // ‖M v̇ + h - τ - Jᵀλ‖ / scale
  double constraint = 0.0;  // ‖J v̇ - k‖ / scale
};

Residuals kktResiduals(const ConstraintSet& set, const VectorX& q, const VectorX& v, const VectorX& tau,
                       const VectorX& vdot, const VectorX& lambda) {
  const Model& model = set.model();
  Data data(model);
  ConstraintData cdata(set);
  computeConstraintTerms(set, data, q, v, cdata, kConstraintErrors | kConstraintJacobian);
  const MatrixX M = crba(model, data, q);
  const VectorX h = nonLinearEffects(model, data, q, v);
  const VectorX Mvdot = M * vdot;
  const VectorX JtLambda = cdata.J.transpose() * lambda;
  const double dyn_scale = std::max({1.0, Mvdot.norm(), h.norm(), tau.norm(), JtLambda.norm()});
  const VectorX Jvdot = cdata.J * vdot;
  const double con_scale = std::max({1.0, Jvdot.norm(), cdata.k.norm()});
  return {(Mvdot + h - tau - JtLambda).norm() / dyn_scale, (Jvdot - cdata.k).norm() / con_scale};
}

// Re-targets every world constraint at the current pose of its first frame
// (docs/conventions.md, "Constraint-consistent states").
std::vector<Constraint> retargetWorldConstraints(const Model& model, std::vector<Constraint> constraints,
                                                 const VectorX& q) {
  Data data(model);
  forwardKinematics(model, data, q);
  for (Constraint& c : constraints) {
    if (c.kind != ConstraintKind::Coupling && c.body2 == 0) c.placement2 = data.oMi[c.body1] * c.placement1;
  }
  return constraints;
}

constexpr double kRoundOff = 1e-9;

void checkRandomStates(const GeneratedMechanism& mech, bool world_targets, const std::vector<int>& held,
                       double q_noise, unsigned seed) {
  const Model& model = mech.model;
  std::mt19937 rng(seed);
  for (int sample = 0; sample < 8; ++sample) {
    VectorX q(model.nq);
    integrate(model, mech.q0, randomVector(rng, model.nv, q_noise), 1.0, q);
    const std::vector<Constraint> constraints =
        world_targets ? retargetWorldConstraints(model, mech.constraints, q) : mech.constraints;
    const ConstraintSet set(model, constraints);
    VectorX v = randomVector(rng, model.nv, 1.0);
    makeConsistent(set, q, v, held);
    const VectorX tau = randomVector(rng, model.nv, 5.0);
    KktSolver solver(set, {});
    VectorX vdot(model.nv), lambda(set.dimension());
    const SolveStats stats = solver.solve(q, v, tau, {}, vdot, lambda);
    const Residuals r = kktResiduals(set, q, v, tau, vdot, lambda);
    EXPECT_LE(r.dynamics, kRoundOff) << model.name << " sample " << sample;
    EXPECT_LE(r.constraint, kRoundOff) << model.name << " sample " << sample;
    EXPECT_LE(stats.residual, 1e-9 * std::max(1.0, solver.constraintData().k.norm()));
    EXPECT_TRUE(stats.converged);
  }
}

}  // namespace

TEST(Kkt, FourBarRandomConsistentStates) {
  // Crank sampled (held), coupler and rocker solved from the reference assembly.
  checkRandomStates(fourBar(), false, {1}, 0.4, 11);
}

TEST(Kkt, SpatialChainConnectAndRevoluteClosures) {
  checkRandomStates(spatialChain({}), false, {}, 0.05, 12);
  SpatialChainParams revolute;
  revolute.links = 8;
  revolute.revolute_closure = true;
  checkRandomStates(spatialChain(revolute), false, {}, 0.05, 13);
}

TEST(Kkt, PendulumChainWeldedTip) { checkRandomStates(pendulumChain(), true, {}, 0.8, 14); }

TEST(Kkt, FloatingHumanoidOnWeldedFeet) { checkRandomStates(humanoidTree(), true, {}, 0.3, 15); }

TEST(Kkt, RankDeficientSetNamesTheDependentRowsAndSuggestsAProximalSolver) {
  GeneratedMechanism mech = redundantMechanism({RedundantMechanismParams::Variant::DuplicateConnect});
  const ConstraintSet set(mech.model, mech.constraints);
  auto solver = makeSolver("kkt", set);
  const VectorX q = mech.q0;
  const VectorX v = VectorX::Zero(mech.model.nv);
  const VectorX tau = VectorX::Zero(mech.model.nv);
  VectorX vdot(mech.model.nv), lambda(set.dimension());
  try {
    solver->solve(q, v, tau, {}, vdot, lambda);
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("rank deficient (rank 3 of 6 rows)"), std::string::npos) << what;
    EXPECT_NE(what.find("dependent rows: connect '"), std::string::npos) << what;
    // Three of the six rows are dependent: three row descriptions follow.
    std::size_t rows = 0;
    for (std::size_t at = what.find("connect '"); at != std::string::npos; at = what.find("connect '", at + 1)) ++rows;
    EXPECT_EQ(rows, 3u) << what;
    EXPECT_NE(what.find("proximal solver"), std::string::npos) << what;
    EXPECT_NE(what.find("redundant: true"), std::string::npos) << what;
  }
}
