// Conservation laws as checks of the dynamics (instantaneous, to round-off
// plus finite-difference error) and of the integrator (over 10 s, within
// bounds stated per test).
#include <gtest/gtest.h>

#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/energy.hpp>
#include <loopsim/algorithms/integrator.hpp>
#include "test_models.hpp"

using namespace loopsim;

namespace {

VectorX randomVector(std::mt19937& rng, int n, double scale) {
  std::normal_distribution<double> g(0.0, scale);
  return VectorX::NullaryExpr(n, [&](Eigen::Index) { return g(rng); });
}

// A free-floating, unactuated humanoid in zero gravity, no armature/damping/springs:
// no external wrench, so its spatial momentum about the world origin is constant.
Model freeFloatingHumanoid() {
  Model model = test::floatingHumanoid(test::Passive::Off);
  model.gravity.setZero();
  return model;
}

// State on the path q ⊕ (t v + ½ t² a), v + t a (see test_kinematics.cpp).
struct Shifted {
  VectorX q, v;
};
Shifted shift(const Model& model, const VectorX& q, const VectorX& v, const VectorX& a, double t) {
  Shifted s{VectorX(model.nq), v + t * a};
  integrate(model, q, t * v + 0.5 * t * t * a, 1.0, s.q);
  return s;
}

double totalEnergy(const Model& model, Data& data, const VectorX& q, const VectorX& v) {
  return kineticEnergy(model, data, q, v) + potentialEnergy(model, data, q);
}

struct Drift {
  double momentum = 0.0;  // max |h(t) - h(0)| / |h(0)|
  double energy = 0.0;    // max |E(t) - E(0)| / (KE(0) + m_total |g| · 1 m)
};

// Semi-implicit Euler with τ = 0 for `seconds`; returns the largest drifts.
Drift simulate(const Model& model, VectorX q, VectorX v, double dt, double seconds) {
  Data data(model);
  const VectorX zero = VectorX::Zero(model.nv);
  const Vector6 h0 = computeMomentum(model, data, q, v).toVector();
  const double e0 = totalEnergy(model, data, q, v);
  // Potential energy has an arbitrary zero: scale drifts by the initial kinetic
  // energy plus the work of lifting the whole model by one metre.
  const double energy_scale = kineticEnergy(model, data, q, v) + model.totalMass() * model.gravity.norm() * 1.0;
  Drift drift;
  const int steps = static_cast<int>(std::lround(seconds / dt));
  for (int k = 0; k < steps; ++k) {
    const VectorX& vdot = forwardDynamics(model, data, q, v, zero);
    semiImplicitEulerStep(model, q, v, vdot, dt);
    const Vector6 h = computeMomentum(model, data, q, v).toVector();
    drift.momentum = std::max(drift.momentum, (h - h0).norm() / h0.norm());
    drift.energy = std::max(drift.energy, std::abs(totalEnergy(model, data, q, v) - e0) / energy_scale);
  }
  return drift;
}

}  // namespace

TEST(Conservation, MomentumDerivativeVanishesForFreeFloatingTree) {
  // M v̇ + h = 0 with no external force implies d/dt h_world = 0: checked by
  // central differences along the trajectory (FD error O(ε²) ~ 1e-10 relative).
  const Model model = freeFloatingHumanoid();
  Data data(model);
  std::mt19937 rng(401);
  for (int s = 0; s < 5; ++s) {
    const VectorX q = randomConfiguration(model, rng);
    const VectorX v = randomVector(rng, model.nv, 1.0);
    const VectorX a = aba(model, data, q, v, VectorX::Zero(model.nv));
    const double eps = 1e-5;
    const Shifted plus = shift(model, q, v, a, eps), minus = shift(model, q, v, a, -eps);
    const Vector6 h_plus = computeMomentum(model, data, plus.q, plus.v).toVector();
    const Vector6 h_minus = computeMomentum(model, data, minus.q, minus.v).toVector();
    const Vector6 h = computeMomentum(model, data, q, v).toVector();
    const Vector6 dh_dt = (h_plus - h_minus) / (2 * eps);
    EXPECT_LT(dh_dt.norm(), 1e-7 * h.norm()) << "sample " << s;
    // Sanity: a wrong acceleration (here 0) breaks it by orders of magnitude.
    const Shifted wrong = shift(model, q, v, VectorX::Zero(model.nv), eps);
    const Shifted wrong_minus = shift(model, q, v, VectorX::Zero(model.nv), -eps);
    const Vector6 dh_wrong = (computeMomentum(model, data, wrong.q, wrong.v).toVector() -
                              computeMomentum(model, data, wrong_minus.q, wrong_minus.v).toVector()) /
                             (2 * eps);
    EXPECT_GT(dh_wrong.norm(), 1e-3 * h.norm()) << "sample " << s;
  }
}

TEST(Conservation, EnergyDerivativeMatchesPassivePower) {
  // dE/dt = vᵀ τ_passive,damping: zero without damping (springs and gravity are
  // conservative, the armature's ½ a v² is in E), -vᵀ D v with it.
  std::mt19937 rng(402);
  for (const bool damped : {false, true}) {
    Model model = test::fixedChain7(test::Passive::On);
    if (!damped) model.damping.setZero();
    Data data(model);
    ASSERT_GT(model.stiffness.maxCoeff(), 0.0);
    ASSERT_GT(model.armature.maxCoeff(), 0.0);
    for (int s = 0; s < 5; ++s) {
      const VectorX q = randomConfiguration(model, rng);
      const VectorX v = randomVector(rng, model.nv, 1.0);
      const VectorX a = forwardDynamics(model, data, q, v, VectorX::Zero(model.nv));
      const double eps = 1e-5;
      const Shifted plus = shift(model, q, v, a, eps), minus = shift(model, q, v, a, -eps);
      const double dE_dt = (totalEnergy(model, data, plus.q, plus.v) - totalEnergy(model, data, minus.q, minus.v)) / (2 * eps);
      const double expected = -v.dot(model.damping.cwiseProduct(v));
      const double scale = std::abs(totalEnergy(model, data, q, v)) + 1.0;
      EXPECT_NEAR(dE_dt, expected, 1e-7 * scale) << (damped ? "damped" : "undamped") << " sample " << s;
    }
  }
}

TEST(Conservation, FreeFloatingTreeOverTenSeconds) {
  // Semi-implicit Euler is first order and the light distal links spin fast,
  // so over 10 s the momentum and energy drifts are integration error O(dt),
  // not dynamics error (the dynamics conserve momentum to round-off, see
  // above). Stated bounds at dt = 1 ms: both drifts < 5e-2 relative;
  // halving dt must at least shrink them by 0.6 (first-order convergence).
  const Model model = freeFloatingHumanoid();
  std::mt19937 rng(403);
  const VectorX q = randomConfiguration(model, rng);
  const VectorX v = randomVector(rng, model.nv, 0.5);
  const Drift coarse = simulate(model, q, v, 1e-3, 10.0);
  const Drift fine = simulate(model, q, v, 5e-4, 10.0);
  std::printf("free floating, semi-implicit Euler: momentum drift %.3e / %.3e, energy drift %.3e / %.3e (dt 1e-3 / 5e-4)\n",
              coarse.momentum, fine.momentum, coarse.energy, fine.energy);
  EXPECT_LT(coarse.momentum, 5e-2);
  EXPECT_LT(coarse.energy, 5e-2);
  EXPECT_LT(fine.momentum, 0.6 * coarse.momentum);
  EXPECT_LT(fine.energy, 0.6 * coarse.energy);
}

TEST(Conservation, PendulumChainEnergyOverTenSeconds) {
  // 7-link chain under gravity, no damping/springs/armature, revolute joints
  // only (q is a vector space, so classical RK4 applies exactly). Stated
  // bounds over 10 s: RK4 at dt = 1 ms keeps the energy within 1e-6 of
  // (KE(0) + m |g| · 1 m); semi-implicit Euler drifts at first order (its
  // drift shrinks by 0.6 or more when dt halves).
  const Model model = test::fixedChain7(test::Passive::Off);
  Data data(model);
  std::mt19937 rng(404);
  const VectorX q0 = randomConfiguration(model, rng);
  const VectorX v0 = randomVector(rng, model.nv, 0.5);

  const VectorX zero = VectorX::Zero(model.nv);
  const double e0 = totalEnergy(model, data, q0, v0);
  const double scale = kineticEnergy(model, data, q0, v0) + model.totalMass() * model.gravity.norm();
  VectorX q = q0, v = v0;
  double rk4_drift = 0.0;
  const double dt = 1e-3;
  for (int k = 0; k < 10000; ++k) {
    auto accel = [&](const VectorX& qs, const VectorX& vs) { return VectorX(forwardDynamics(model, data, qs, vs, zero)); };
    const VectorX a1 = accel(q, v);
    const VectorX v2 = v + 0.5 * dt * a1;
    const VectorX a2 = accel(q + 0.5 * dt * v, v2);
    const VectorX v3 = v + 0.5 * dt * a2;
    const VectorX a3 = accel(q + 0.5 * dt * v2, v3);
    const VectorX v4 = v + dt * a3;
    const VectorX a4 = accel(q + dt * v3, v4);
    q += dt / 6.0 * (v + 2.0 * v2 + 2.0 * v3 + v4);
    v += dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
    rk4_drift = std::max(rk4_drift, std::abs(totalEnergy(model, data, q, v) - e0) / scale);
  }
  const Drift coarse = simulate(model, q0, v0, 5e-4, 10.0);
  const Drift fine = simulate(model, q0, v0, 2.5e-4, 10.0);
  std::printf("pendulum chain: RK4 energy drift %.3e (dt 1e-3); semi-implicit Euler %.3e / %.3e (dt 5e-4 / 2.5e-4)\n",
              rk4_drift, coarse.energy, fine.energy);
  EXPECT_LT(rk4_drift, 1e-6);
  EXPECT_LT(fine.energy, 0.6 * coarse.energy);
}
