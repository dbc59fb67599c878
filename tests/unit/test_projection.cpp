// Consistent-start and post-step projection onto {φ(q) = 0, J(q) v = 0}.
#include <gtest/gtest.h>

#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/solvers/registry.hpp>
#include <loopsim/solvers/solver.hpp>
#include "sim_test_scenes.hpp"

using namespace loopsim;

namespace {

VectorX randomVector(std::mt19937& rng, int n, double scale) {
  std::normal_distribution<double> g(0.0, scale);
  return VectorX::NullaryExpr(n, [&](Eigen::Index) { return g(rng); });
}

struct Evaluated {
  VectorX phi, phidot;
  MatrixX J, M;
};

Evaluated evaluate(const ConstraintSet& set, const VectorX& q, const VectorX& v) {
  Data data(set.model());
  ConstraintData cdata(set);
  computeConstraintTerms(set, data, q, v, cdata, kConstraintErrors | kConstraintJacobian);
  crba(set.model(), data, q);
  return {cdata.phi, cdata.phidot, cdata.J, data.M};
}

// q ⊕ noise: a state off the manifold.
VectorX perturbed(const Model& model, const VectorX& q, std::mt19937& rng, double scale) {
  VectorX out(model.nq);
  integrate(model, q, randomVector(rng, model.nv, scale), 1.0, out);
  return out;
}

}  // namespace

TEST(Projection, FourBarHoldsTheCrankAndClosesTheLoop) {
  GeneratedMechanism mech = fourBar();
  const ConstraintSet set(mech.model, mech.constraints);
  std::mt19937 rng(3);
  for (int sample = 0; sample < 10; ++sample) {
    VectorX q = perturbed(mech.model, mech.q0, rng, 0.05);
    VectorX v = randomVector(rng, mech.model.nv, 2.0);
    const double crank = q[0], crank_rate = v[0];
    const ProjectionResult r = makeConsistent(set, q, v, {1});
    const Evaluated e = evaluate(set, q, v);
    EXPECT_LE(e.phi.lpNorm<Eigen::Infinity>(), 1e-12);
    EXPECT_LE(e.phidot.lpNorm<Eigen::Infinity>(), 1e-10 * std::max(1.0, v.norm()));
    EXPECT_EQ(q[0], crank) << "held joint moved";
    EXPECT_EQ(v[0], crank_rate) << "held joint velocity changed";
    EXPECT_GT(r.position_correction, 0.0);
    EXPECT_LE(r.iterations, 10);
  }
}

TEST(Projection, FloatingHumanoidKeepsUnitQuaternionsAndIsMOrthogonal) {
  GeneratedMechanism mech = humanoidTree();
  const ConstraintSet set(mech.model, mech.constraints);
  const Model& model = mech.model;
  std::mt19937 rng(5);
  for (int sample = 0; sample < 5; ++sample) {
    VectorX q = perturbed(model, mech.q0, rng, 0.02);
    const VectorX v_in = randomVector(rng, model.nv, 1.0);
    VectorX v = v_in;
    ConstraintProjector projector(set);
    const ProjectionResult r = projector.project(q, v);
    EXPECT_TRUE(r.converged) << "residual " << r.position_residual;
    EXPECT_NEAR(q.segment<4>(3).norm(), 1.0, 1e-14);
    const Evaluated e = evaluate(set, q, v);
    EXPECT_LE(e.phi.lpNorm<Eigen::Infinity>(), 1e-12);
    EXPECT_LE(e.phidot.lpNorm<Eigen::Infinity>(), 1e-10);
    // M-norm projection: M (v - v_in) lies in range(Jᵀ), i.e. v - v_in = M⁻¹ Jᵀ μ.
    const VectorX Mdv = e.M * (v - v_in);
    const VectorX mu = e.J.transpose().colPivHouseholderQr().solve(Mdv);
    EXPECT_LE((e.J.transpose() * mu - Mdv).norm(), 1e-9 * std::max(1.0, Mdv.norm()));
    EXPECT_GT(r.velocity_correction, 0.0);
  }
}

TEST(Projection, RankDeficientSetIsHandledByDamping) {
  // Planar four-bar closed by a full 3D connect: the z row is identically zero.
  GeneratedMechanism mech = redundantMechanism({RedundantMechanismParams::Variant::PlanarConnect});
  const ConstraintSet set(mech.model, mech.constraints);
  std::mt19937 rng(7);
  VectorX q = perturbed(mech.model, mech.q0, rng, 0.05);
  VectorX v = randomVector(rng, mech.model.nv, 1.0);
  const ProjectionResult r = makeConsistent(set, q, v);
  EXPECT_LE(r.position_residual, 1e-12);
  EXPECT_LE(r.velocity_residual, 1e-10);
  // Duplicate connects on the spatial chain: dimension 6, rank 3.
  GeneratedMechanism dup = redundantMechanism({RedundantMechanismParams::Variant::DuplicateConnect});
  const ConstraintSet dup_set(dup.model, dup.constraints);
  VectorX qd = perturbed(dup.model, dup.q0, rng, 0.02);
  VectorX vd = randomVector(rng, dup.model.nv, 1.0);
  const ProjectionResult rd = makeConsistent(dup_set, qd, vd);
  EXPECT_LE(rd.position_residual, 1e-12);
  EXPECT_LE(rd.velocity_residual, 1e-10);
}

TEST(Projection, UnreachableTargetIsRefusedWithTheResidual) {
  // The pendulum chain's tip welded 10 m away from anything it can reach.
  GeneratedMechanism mech = pendulumChain();
  mech.constraints[0].placement2.t += Vector3(10.0, 0.0, 0.0);
  const ConstraintSet set(mech.model, mech.constraints);
  VectorX q = mech.q0;
  VectorX v = VectorX::Zero(mech.model.nv);
  try {
    makeConsistent(set, q, v);
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("consistent start did not converge"), std::string::npos) << what;
    EXPECT_NE(what.find("|phi|inf = "), std::string::npos) << what;
    EXPECT_NE(what.find("weld '" + mech.constraints[0].name + "' row"), std::string::npos) << what;
    EXPECT_EQ(e.element(), "initial state");
  }
}

TEST(Projection, HeldJointVelocityIncompatibleWithTheLoopIsRefused) {
  // Pendulum chain welded at the tip: hold every joint but one. A single
  // free joint cannot absorb the held joints' velocities.
  GeneratedMechanism mech = pendulumChain();
  const ConstraintSet set(mech.model, mech.constraints);
  VectorX q = mech.q0;
  VectorX v = VectorX::Zero(mech.model.nv);
  v[0] = 1.0;
  try {
    makeConsistent(set, q, v, {1, 2, 3, 4, 5, 6});
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("velocit"), std::string::npos) << e.what();
  }
}

TEST(Projection, BadHeldJointIsNamed) {
  GeneratedMechanism mech = fourBar();
  const ConstraintSet set(mech.model, mech.constraints);
  EXPECT_THROW(
      {
        try {
          ConstraintProjector projector(set, {7});
        } catch (const ModelError& e) {
          EXPECT_NE(std::string(e.what()).find("joint index 7 out of range"), std::string::npos) << e.what();
          throw;
        }
      },
      ModelError);
}

TEST(Projection, OnASolversTermsTheNextSolveEqualsAFreshSolveBitForBit) {
  // A step projects v at q on the solver's own terms; the next solve at that
  // q keeps the placements, M and J, and M's factors and Λ as well when the
  // projection's metric is the solver's M + dt·D (otherwise it refactors). It
  // must give what a solver that never saw the projection gives, to the bit,
  // and what one built for that state alone gives.
  GeneratedMechanism mech = humanoidTree();
  const ConstraintSet set(mech.model, mech.constraints);
  const Model& model = mech.model;
  std::mt19937 rng(11);
  for (const std::string name : {"kkt", "ltl", "prox-ltl", "soft-ltl"}) {
    auto shared = makeSolver(name, set, {});
    auto fresh = makeSolver(name, set, {});
    ASSERT_NE(shared->sharedProjectionTerms(), nullptr) << name;
    ConstraintProjector projector(set);
    projector.shareTerms(shared->sharedProjectionTerms());
    for (int sample = 0; sample < 8; ++sample) {
      const VectorX added = (sample % 2 == 0 ? 0.0 : 0.5) * VectorX::Ones(model.nv);  // dt·D, or none
      shared->setAddedInertia(added);
      fresh->setAddedInertia(added);
      // W = M + dt·D (the simulation's metric: factors kept) or W = M.
      const bool step_metric = sample % 4 < 2;
      projector.setMetricDiagonal(step_metric ? &shared->addedInertia() : nullptr);
      VectorX q = perturbed(model, mech.q0, rng, 0.01);
      VectorX v = randomVector(rng, model.nv, 1.0);
      projector.project(q, v);
      const VectorX tau = randomVector(rng, model.nv, 10.0);
      VectorX vdot_shared(model.nv), lambda_shared(set.dimension()), vdot_fresh(model.nv), lambda_fresh(set.dimension());
      shared->solve(q, v, tau, {}, vdot_shared, lambda_shared);
      fresh->solve(q, v, tau, {}, vdot_fresh, lambda_fresh);
      EXPECT_TRUE(vdot_shared == vdot_fresh) << name << " sample " << sample << ": |Δv̇| "
                                             << (vdot_shared - vdot_fresh).lpNorm<Eigen::Infinity>();
      EXPECT_TRUE(lambda_shared == lambda_fresh) << name << " sample " << sample;
      // A solver built for this state alone holds nothing from earlier states
      // (Λ's factors, which the projection and the solve share, included).
      // Not for prox-ltl: it warm-starts from the previous λ, a pristine one cold.
      if (!shared->capabilities().iterative) {
        auto pristine = makeSolver(name, set, {});
        pristine->setAddedInertia(added);
        VectorX vdot_pristine(model.nv), lambda_pristine(set.dimension());
        pristine->solve(q, v, tau, {}, vdot_pristine, lambda_pristine);
        EXPECT_TRUE(vdot_shared == vdot_pristine) << name << " sample " << sample << ": |Δv̇| "
                                                  << (vdot_shared - vdot_pristine).lpNorm<Eigen::Infinity>();
        EXPECT_TRUE(lambda_shared == lambda_pristine) << name << " sample " << sample;
      }
      // And a second solve at the same q with another v (the held factors path).
      const VectorX v2 = randomVector(rng, model.nv, 1.0);
      shared->solve(q, v2, tau, {}, vdot_shared, lambda_shared);
      fresh->solve(q, v2, tau, {}, vdot_fresh, lambda_fresh);
      EXPECT_TRUE(vdot_shared == vdot_fresh) << name << " sample " << sample << " (second v)";
    }
  }
}

TEST(Projection, TheStepMetricProjectsInTheImplicitStepsInertia) {
  // With W = M + diag(d) the correction is Δv = -W⁻¹ Jᵀ p for some p, and
  // J v = 0 after: check both against a dense solve of the same problem.
  GeneratedMechanism mech = humanoidTree();
  const ConstraintSet set(mech.model, mech.constraints);
  const Model& model = mech.model;
  std::mt19937 rng(5);
  const VectorX d = VectorX::LinSpaced(model.nv, 0.1, 2.0);
  for (const bool with_metric : {false, true}) {
    ConstraintProjector projector(set);
    if (with_metric) projector.setMetricDiagonal(&d);
    VectorX q = mech.q0;
    ConstraintProjector(set).projectPositions(q);
    VectorX v = randomVector(rng, model.nv, 1.0);
    const VectorX v_in = v;
    projector.projectVelocities(q, v);
    Data data(model);
    ConstraintData cdata(set);
    computeConstraintTerms(set, data, q, v_in, cdata, kConstraintErrors | kConstraintJacobian);
    crba(model, data, q);
    MatrixX W = data.M;
    if (with_metric) W.diagonal() += d;
    const MatrixX& J = cdata.J;
    // Dense expected: v_in - W⁻¹Jᵀ (J W⁻¹ Jᵀ)⁻¹ J v_in.
    const MatrixX winv_jt = W.llt().solve(J.transpose());
    const VectorX p = (J * winv_jt).llt().solve(J * v_in);
    const VectorX expected = v_in - winv_jt * p;
    EXPECT_LT((v - expected).lpNorm<Eigen::Infinity>(), 1e-10 * (1.0 + v_in.lpNorm<Eigen::Infinity>()))
        << (with_metric ? "W = M + diag(d)" : "W = M");
    EXPECT_LT((J * v).lpNorm<Eigen::Infinity>(), 1e-10);
  }
}
