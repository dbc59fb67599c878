// Implicit joint damping (docs/conventions.md, "Equations of motion"): the step solves
// (M + dt·D) v̇ = τ − D v − h + Jᵀλ with D = joint damping + the controller's
// derivative gains, as MuJoCo's Euler integrator does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <loopsim/model/model_builder.hpp>
#include <loopsim/record/csv_reader.hpp>
#include <loopsim/record/state_columns.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>

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

TEST(ImplicitDamping, ExplicitSceneReproducesARecordOfTheExplicitEngine) {
  // tests/data/records/explicit_damped_arm.csv was written by `loopsim run
  // --record` at commit a63b02b, when damping was always explicit. The same
  // scene with `integrator: {damping: explicit}` must give every q and v of
  // that record bit for bit (joint damping and the PD's kd included).
  const std::filesystem::path dir = std::filesystem::path(LOOPSIM_TEST_DATA_DIR) / "records";
  std::ifstream file(dir / "explicit_damped_arm.yaml");
  std::stringstream text;
  text << file.rdbuf();
  const Scene scene = loadSceneString(text.str() + "integrator: {damping: explicit}\n", "explicit_damped_arm.yaml", dir);
  ASSERT_GT(scene.model->damping.minCoeff(), 0.0);
  const CsvTable record = readCsv(dir / "explicit_damped_arm.csv");
  std::vector<int> q_cols, v_cols;
  for (const auto& name : configurationColumns(*scene.model)) q_cols.push_back(record.requireColumn(name));
  for (const auto& name : velocityColumns(*scene.model, "v")) v_cols.push_back(record.requireColumn(name));
  ASSERT_EQ(record.rows.size(), 300u);
  std::vector<int> vdot_cols;
  for (const auto& name : velocityColumns(*scene.model, "vdot")) vdot_cols.push_back(record.requireColumn(name));
  // A row holds the state before its step and the v̇ that step computed.
  auto at = [](const std::vector<double>& row, int column) { return row[static_cast<std::size_t>(column)]; };
  auto compare = [&](Simulation& sim, int& mismatches, double& deviation) {
    mismatches = 0;
    deviation = 0.0;
    auto check = [&](double value, double recorded) {
      mismatches += value != recorded;
      deviation = std::max(deviation, std::abs(value - recorded) / std::max(1.0, std::abs(recorded)));
    };
    for (const auto& row : record.rows) {
      for (std::size_t k = 0; k < q_cols.size(); ++k) check(sim.q()[static_cast<Eigen::Index>(k)], at(row, q_cols[k]));
      for (std::size_t k = 0; k < v_cols.size(); ++k) check(sim.v()[static_cast<Eigen::Index>(k)], at(row, v_cols[k]));
      if (!sim.step()) return;
      for (std::size_t k = 0; k < vdot_cols.size(); ++k) check(sim.vdot()[static_cast<Eigen::Index>(k)], at(row, vdot_cols[k]));
    }
  };
  Simulation sim(scene);
  int mismatches = 0;
  double deviation = 0.0;
  compare(sim, mismatches, deviation);
  std::printf("[explicit damping] %d of %zu recorded values differ; largest relative deviation %.3g\n", mismatches,
              record.rows.size() * (q_cols.size() + 2 * v_cols.size()), deviation);
  // Agreement to round-off, on every CPU. The record was bit-identical on the
  // AVX-512 build that made it (a63b02b) until the world-frame CRBA changed
  // the engine's round-off (largest deviation then 5.3e-14); another
  // instruction set rounds differently too.
  EXPECT_LE(deviation, 1e-12);

  // And the implicit default differs far beyond round-off (the check above can fail).
  Simulation other(loadSceneString(text.str(), "explicit_damped_arm.yaml", dir));
  compare(other, mismatches, deviation);
  EXPECT_GT(deviation, 1e-6);
}

}  // namespace
}  // namespace loopsim
