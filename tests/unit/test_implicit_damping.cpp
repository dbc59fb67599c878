// Implicit joint damping (issue 8 §2): the step solves
// (M + dt·D) v̇ = τ − D v − h + Jᵀλ with D = joint damping + the controller's
// derivative gains, as MuJoCo's Euler integrator does.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/model_builder.hpp"
#include "record/csv_reader.hpp"
#include "record/state_columns.hpp"
#include "scene/scene_loader.hpp"
#include "sim/simulation.hpp"

namespace loopsim {
namespace {

struct Pendulum {
  double mass = 0.1, length = 0.1, spin_inertia = 1e-5, armature = 2e-5, damping = 10.0, gravity = 9.81;
  double axisInertia() const { return spin_inertia + mass * length * length + armature; }
};

// One revolute joint about z, the centre of mass at (length, 0, 0) in the
// body frame, gravity along −y: the gravity torque is −m g l cos q.
Scene pendulumScene(const Pendulum& p, double dt) {
  ModelBuilder builder("damped_pendulum");
  JointSpec hinge;
  hinge.axis = Vector3::UnitZ();
  hinge.damping = p.damping;
  hinge.armature = p.armature;
  builder.addBody(0, "hinge", hinge, SE3::Identity(),
                  Inertia(p.mass, Vector3(p.length, 0, 0), p.spin_inertia * Matrix3::Identity()), "bob");
  builder.setGravity(Vector3(0, -p.gravity, 0));
  Scene scene;
  scene.name = "damped pendulum";
  scene.model = std::make_shared<const Model>(std::move(builder).build());
  scene.q0 = VectorX::Constant(1, 0.3);
  scene.v0 = VectorX::Constant(1, 4.0);
  scene.dt = dt;
  scene.duration = 1.0;
  scene.actuated_joints = {1};
  return scene;
}

// The implicit step in closed form for one joint:
//   v̇ = (kp (q0 − q) − kd v − d v − m g l cos q) / (I + dt (d + kd)),
//   v ← v + dt v̇,  q ← q + dt v.
struct ScalarState {
  double q, v;
};
ScalarState closedFormStep(const Pendulum& p, double kp, double kd, double q0, double dt, ScalarState s) {
  const double torque = kp * (q0 - s.q) - kd * s.v - p.damping * s.v - p.mass * p.gravity * p.length * std::cos(s.q);
  const double vdot = torque / (p.axisInertia() + dt * (p.damping + kd));
  s.v += dt * vdot;
  s.q += dt * s.v;
  return s;
}

TEST(ImplicitDamping, DampedPendulumMatchesTheClosedFormOfTheImplicitStep) {
  // dt·(d + kd)/I ≈ 13: far past explicit stability (2), where the implicit
  // step is unconditionally stable.
  const Pendulum p;
  const double dt = 1e-3, kp = 3.0, kd = 3.0;
  Scene scene = pendulumScene(p, dt);
  scene.controller.kind = ControllerSpec::Kind::PdHold;
  scene.controller.kp = kp;
  scene.controller.kd = kd;
  ASSERT_GT(dt * (p.damping + kd) / p.axisInertia(), 2.0);
  Simulation sim(scene);
  ASSERT_DOUBLE_EQ(sim.implicitDamping()[0], p.damping + kd);
  ScalarState reference{scene.q0[0], scene.v0[0]};
  double worst = 0.0;
  for (int step = 0; step < 1000; ++step) {
    ASSERT_TRUE(sim.step()) << "step " << step;
    reference = closedFormStep(p, kp, kd, scene.q0[0], dt, reference);
    // Scaled by the motion: the model's M is I summed in another order.
    worst = std::max(worst, std::abs(sim.q()[0] - reference.q) / (1.0 + std::abs(reference.q)));
    worst = std::max(worst, std::abs(sim.v()[0] - reference.v) / (1.0 + std::abs(scene.v0[0])));
  }
  EXPECT_LE(worst, 1e-12);
  std::printf("[implicit damping] pendulum, dt·D/I = %.1f: max relative deviation from the closed form %.2e\n",
              dt * (p.damping + kd) / p.axisInertia(), worst);
}

TEST(ImplicitDamping, TheSameStiffDampingDivergesWhenExplicit) {
  // The test above is not vacuous: at dt·D/I ≈ 13 the explicit step blows up.
  const Pendulum p;
  Scene scene = pendulumScene(p, 1e-3);
  scene.controller.kind = ControllerSpec::Kind::PdHold;
  scene.controller.kp = 3.0;
  scene.controller.kd = 3.0;
  scene.damping = DampingIntegration::Explicit;
  Simulation sim(scene);
  EXPECT_EQ(sim.implicitDamping()[0], 0.0);
  for (int step = 0; step < 100 && std::isfinite(sim.v()[0]); ++step) sim.step();
  EXPECT_FALSE(std::abs(sim.v()[0]) < 1e6) << "explicit damping at dt·D/I ≈ 13 must be unstable";
}

TEST(ImplicitDamping, EnergyBalanceIsExactForPureDamping) {
  // Without gravity or springs, semi-implicit Euler with implicit damping
  // obeys ΔE = ½ dt (−D v_{n+1})(v_n + v_{n+1}) exactly: the balance that
  // books the damping force at the end-of-step velocity is round-off.
  Pendulum p;
  p.gravity = 0.0;
  Scene scene = pendulumScene(p, 1e-3);
  Simulation sim(scene);
  ASSERT_TRUE(sim.run(1.0));
  const EnergyTerms& e = sim.energy();
  EXPECT_LT(e.damping_work, -0.5 * e.initial) << "the wheel must lose most of its energy";
  EXPECT_LE(std::abs(e.balance()), 1e-12 * e.initial) << "balance " << e.balance();
}

TEST(ImplicitDamping, SceneKeySelectsTheIntegration) {
  const std::string base = "name: k\nmodels:\n  - generator: pendulum_chain\n    params: {links: 2, weld_tip: false}\n";
  EXPECT_EQ(loadSceneString(base, "k.yaml").damping, DampingIntegration::Implicit);
  EXPECT_EQ(loadSceneString(base + "integrator: {damping: explicit}\n", "k.yaml").damping,
            DampingIntegration::Explicit);
  try {
    loadSceneString(base + "integrator: {damping: implict}\n", "k.yaml");
    FAIL() << "a misspelled mode must be refused";
  } catch (const std::exception& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("unknown damping integration 'implict'"), std::string::npos) << message;
    EXPECT_NE(message.find("did you mean 'implicit'"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace loopsim
