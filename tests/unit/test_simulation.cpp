// The simulation loop: controllers, energy bookkeeping, divergence reports,
// statistics and the no-allocation guarantee of step().
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/sim/controller.hpp>
#include "allocation_counter.hpp"
#include <loopsim/model/errors.hpp>
#include <loopsim/sim/simulation.hpp>
#include "sim_test_scenes.hpp"
#include "test_models.hpp"

using namespace loopsim;

namespace {

Scene freeChain(bool damping) {
  PendulumChainParams params;
  params.weld_tip = false;
  GeneratedMechanism mech = pendulumChain(params);
  if (damping) mech.model.damping.setConstant(0.2);
  return simtest::sceneFrom(std::move(mech), "free chain");
}

std::vector<int> allJoints(const Model& model) {
  std::vector<int> joints;
  for (int j = 1; j < model.nbodies(); ++j) joints.push_back(j);
  return joints;
}

}  // namespace

TEST(Controller, GravityCompensationHoldsAnUnconstrainedChainStill) {
  Scene scene = freeChain(false);
  scene.actuated_joints = allJoints(*scene.model);
  scene.controller.kind = ControllerSpec::Kind::GravityCompensation;
  Simulation sim(scene);
  ASSERT_TRUE(sim.run(1.0));
  EXPECT_LE((sim.q() - scene.q0).lpNorm<Eigen::Infinity>(), 1e-9);
  EXPECT_LE(sim.v().lpNorm<Eigen::Infinity>(), 1e-9);
  // Without compensation the chain falls.
  scene.controller.kind = ControllerSpec::Kind::None;
  Simulation falling(scene);
  ASSERT_TRUE(falling.run(1.0));
  EXPECT_GT((falling.q() - scene.q0).lpNorm<Eigen::Infinity>(), 0.1);
}

TEST(Controller, TorqueIsZeroOnUnactuatedDofs) {
  Scene scene = freeChain(false);
  scene.actuated_joints = {2, 5};
  scene.controller.kind = ControllerSpec::Kind::GravityCompensation;
  Simulation sim(scene);
  ASSERT_TRUE(sim.step());
  const Model& model = *scene.model;
  for (int j = 1; j < model.nbodies(); ++j) {
    const double tau = sim.appliedTorque()[model.idx_v[j]];
    if (j == 2 || j == 5) {
      EXPECT_NE(tau, 0.0) << model.joint_names[j];
    } else {
      EXPECT_EQ(tau, 0.0) << model.joint_names[j];
    }
  }
}

TEST(Controller, PdHoldActsOnTheManifoldOnTheActuatedJointsOnly) {
  // The PD error is formed joint by joint on the actuated joints only (an
  // unactuated floating base's is never computed): on every actuated dof τ
  // must be exactly kp (q0 ⊖ q) − kd v of the whole-configuration difference,
  // spherical and free-flyer joints included, and 0 elsewhere; an effort
  // limit clips the actuated dofs it is on and no other.
  std::mt19937 rng(5);
  for (Model model : {test::branchingTree(), test::floatingHumanoid()}) {
    std::vector<int> actuated;
    int unactuated = -1;  // a dof
    for (int j = 1; j < model.nbodies(); ++j) {
      // Every multi-dof joint (spherical; the free flyer of the humanoid) and every other 1-dof one.
      if (model.joint_nv[j] > 1 || j % 2 == 0) {
        actuated.push_back(j);
      } else if (unactuated < 0) {
        unactuated = model.idx_v[j];
      }
    }
    ASSERT_GE(unactuated, 0);
    model.effort_limit.setZero();  // none
    const int limited = model.idx_v[actuated.back()];
    model.effort_limit[limited] = 1e-3;
    model.effort_limit[unactuated] = 1e-3;  // no effect: nothing to clip there
    ControllerSpec spec;
    spec.kind = ControllerSpec::Kind::PdHold;
    spec.kp = 7.0;
    spec.kd = 0.3;
    const VectorX q0 = randomConfiguration(model, rng);
    Controller controller(model, spec, actuated, q0);
    const VectorX& mask = controller.actuatedMask();
    for (int sample = 0; sample < 4; ++sample) {
      const VectorX q = randomConfiguration(model, rng);
      const VectorX v = VectorX::Random(model.nv);
      VectorX tau(model.nv), error(model.nv);
      controller.compute(0.0, q, v, tau);
      difference(model, q, q0, error);
      const VectorX expected = spec.kp * error - spec.kd * v;
      for (int i = 0; i < model.nv; ++i) {
        if (mask[i] == 0.0) {
          EXPECT_EQ(tau[i], 0.0) << model.name << " dof " << i;
        } else if (i == limited && std::abs(expected[i]) > 1e-3) {
          EXPECT_EQ(tau[i], std::copysign(1e-3, expected[i])) << model.name << " dof " << i;
          EXPECT_EQ(controller.saturatedNow()[i], 1.0);
        } else {
          EXPECT_EQ(tau[i], expected[i]) << model.name << " dof " << i;
          EXPECT_EQ(controller.saturatedNow()[i], 0.0);
        }
      }
    }
  }
}

TEST(Controller, PdHoldSettlesWhereTheSpringBalancesGravity) {
  // At rest τ = kp (q0 ⊖ q) must equal the gravity torque g(q) = RNEA(q, 0, 0).
  Scene scene = freeChain(false);
  scene.actuated_joints = allJoints(*scene.model);
  scene.controller.kind = ControllerSpec::Kind::PdHold;
  scene.controller.kp = 200.0;
  scene.controller.kd = 20.0;
  scene.model = [&] {
    Model damped = *scene.model;
    damped.damping.setConstant(3.0);  // settles faster; PD and damping both vanish at rest
    // The thin links' inertia about their own axis (~1e-4 kg m²) would make
    // explicit damping unstable at dt = 1 ms (dt·(kd + d)/I > 2); armature bounds it.
    damped.armature.setConstant(0.05);
    return std::make_shared<const Model>(std::move(damped));
  }();
  Simulation sim(scene);
  ASSERT_TRUE(sim.run(8.0));
  EXPECT_LE(sim.v().lpNorm<Eigen::Infinity>(), 1e-6);
  Data data(*scene.model);
  const VectorX gravity = rnea(*scene.model, data, sim.q(), VectorX::Zero(7), VectorX::Zero(7));
  const VectorX spring = scene.controller.kp * (scene.q0 - sim.q());
  EXPECT_LE((spring - gravity).lpNorm<Eigen::Infinity>(), 1e-5 * gravity.lpNorm<Eigen::Infinity>());
  EXPECT_GT((sim.q() - scene.q0).lpNorm<Eigen::Infinity>(), 1e-3) << "gravity must deflect the hold";
  EXPECT_LT((sim.q() - scene.q0).lpNorm<Eigen::Infinity>(), 0.2);
}

TEST(Controller, SinusoidDriveTracksItsReference) {
  GeneratedMechanism mech = fourBar();
  Scene scene = simtest::sceneFrom(std::move(mech), "driven four-bar");
  scene.actuated_joints = {1};
  scene.controller.kind = ControllerSpec::Kind::Sinusoid;
  scene.controller.kp = 400.0;
  scene.controller.kd = 40.0;
  SinusoidDrive drive;
  drive.joint = 1;
  drive.amplitude = 0.3;
  drive.frequency_hz = 0.5;
  drive.offset = scene.q0[0];
  scene.controller.drives = {drive};
  Simulation sim(scene);
  double worst = 0.0;
  while (sim.time() < 4.0 - 1e-9) {
    ASSERT_TRUE(sim.step());
    if (sim.time() < 1.0) continue;  // transient
    const double reference = drive.offset + drive.amplitude * std::sin(2.0 * std::numbers::pi * 0.5 * sim.time());
    worst = std::max(worst, std::abs(sim.q()[0] - reference));
  }
  EXPECT_LT(worst, 0.03);  // 10% of the amplitude
  EXPECT_GT(std::abs(sim.energy().applied_work), 0.0);
}

TEST(Controller, InvalidSpecsAreNamed) {
  Scene scene = freeChain(false);
  scene.controller.kind = ControllerSpec::Kind::Sinusoid;
  scene.controller.kp = 10.0;
  SinusoidDrive drive;
  drive.joint = 3;
  scene.controller.drives = {drive};
  scene.actuated_joints = {1};
  try {
    Simulation sim(scene);
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("drive on joint '" + scene.model->joint_names[3] + "', which is not actuated"),
              std::string::npos)
        << e.what();
  }
  scene.actuated_joints = {3};
  scene.controller.kp = -1.0;
  try {
    Simulation sim(scene);
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("gains must be finite and >= 0"), std::string::npos) << e.what();
  }
}

TEST(Simulation, EnergyBalanceAccountsForDamping) {
  // A damped free chain falls from rest: E drops by the damping work.
  Scene scene = freeChain(true);
  scene.dt = 5e-4;
  Simulation sim(scene);
  ASSERT_TRUE(sim.run(2.0));
  const EnergyTerms& e = sim.energy();
  EXPECT_LT(e.damping_work, -0.5) << "damping must dissipate";
  EXPECT_EQ(e.applied_work, 0.0);
  // What remains is integration error: small against the work done.
  EXPECT_LT(std::abs(e.balance()), 0.05 * std::abs(e.damping_work));
  EXPECT_NEAR(e.total() - e.initial, e.damping_work + e.balance(), 1e-12);
}

TEST(Simulation, ConservativeLoopEnergyErrorIsFirstOrderInDt) {
  // No damping, no actuation: the balance is integrator error (plus the
  // projection's velocity correction). Measured over 10 s of the moving
  // four-bar (E0 18.3 J, peak kinetic energy 11.8 J): 0.30 J at dt = 1 ms,
  // 0.15 J at dt = 0.5 ms.
  double balance[2], peak_kinetic = 0.0;
  for (int k = 0; k < 2; ++k) {
    Scene scene = simtest::movingFourBar();
    scene.projection = true;
    scene.dt = k == 0 ? 1e-3 : 5e-4;
    Simulation sim(scene);
    while (sim.time() < 10.0 - 1e-9) {
      ASSERT_TRUE(sim.step());
      peak_kinetic = std::max(peak_kinetic, sim.energy().kinetic);
    }
    balance[k] = std::abs(sim.energy().balance());
  }
  EXPECT_LT(balance[0], 0.05 * peak_kinetic);
  EXPECT_GT(balance[1], 0.35 * balance[0]);
  EXPECT_LT(balance[1], 0.65 * balance[0]);
}

TEST(Simulation, SummaryCountsStepsTimesAndViolations) {
  Scene scene = simtest::movingFourBar();
  scene.dt = 1e-3;
  Simulation sim(scene);
  ASSERT_TRUE(sim.run(0.5));
  const RunSummary s = sim.summary();
  EXPECT_EQ(s.steps, 500);
  EXPECT_EQ(sim.stepCount(), 500);
  EXPECT_NEAR(s.simulated_time, 0.5, 1e-12);
  EXPECT_NEAR(sim.time(), 0.5, 1e-12);
  EXPECT_GT(s.wall_time, 0.0);
  EXPECT_GT(s.median_step_us, 0.0);
  EXPECT_GT(s.median_solve_us, 0.0);
  EXPECT_LE(s.median_solve_us, s.median_step_us);
  EXPECT_DOUBLE_EQ(s.mean_iterations, 1.0);  // kkt is direct
  EXPECT_GT(s.max_position_violation, 0.0);
  EXPECT_LE(s.rms_position_violation, s.max_position_violation);
  EXPECT_LE(s.rms_velocity_violation, s.max_velocity_violation);
  EXPECT_NEAR(s.realtime_factor, s.simulated_time / s.wall_time, 1e-9 * s.realtime_factor);
}

TEST(Simulation, ConsistentStartProjectsTheInitialState) {
  Scene scene = simtest::movingFourBar(3.0);
  scene.q0[1] += 0.05;  // open the loop
  Simulation sim(scene);
  EXPECT_LE(sim.constraintError().lpNorm<Eigen::Infinity>(), 1e-12);
  EXPECT_LE(sim.constraintVelocityError().lpNorm<Eigen::Infinity>(), 1e-10);
  EXPECT_EQ(sim.q()[0], scene.q0[0]);  // the held crank
  EXPECT_EQ(sim.v()[0], 3.0);
  EXPECT_GT(sim.initialProjection().position_correction, 0.01);
}

TEST(Simulation, BadSettingsAreRefused) {
  Scene scene = freeChain(false);
  scene.dt = 0.0;
  EXPECT_THROW(Simulation{scene}, ModelError);
  scene.dt = 1e-3;
  scene.q0 = VectorX::Zero(3);
  try {
    Simulation sim(scene);
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("expected nq = 7"), std::string::npos) << e.what();
  }
  scene = freeChain(false);
  scene.solver = "ktk";
  try {
    Simulation sim(scene);
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'kkt'"), std::string::npos) << e.what();
  }
}

TEST(Divergence, NamesTheNonFiniteDofAndTheTime) {
  GeneratedMechanism mech = humanoidTree();
  const ConstraintSet set(mech.model, mech.constraints);
  const Model& model = mech.model;
  VectorX q = mech.q0;
  VectorX v = VectorX::Zero(model.nv);
  const VectorX phi = VectorX::Zero(set.dimension());
  EXPECT_FALSE(detectDivergence(set, q, v, phi, 0.1, 1.0, 1000).has_value());

  const int knee = model.jointId("left_knee");
  ASSERT_GT(knee, 0);
  v[model.idx_v[knee]] = std::numeric_limits<double>::quiet_NaN();
  auto d = detectDivergence(set, q, v, phi, 0.1, 1.25, 1250);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->kind, Divergence::Kind::NonFiniteVelocity);
  EXPECT_EQ(d->joint, "left_knee");
  EXPECT_EQ(d->dof, model.idx_v[knee]);
  EXPECT_EQ(d->message(), "diverged at t = 1.25 s (step 1250): NaN in v on joint 'left_knee' (dof " +
                              std::to_string(model.idx_v[knee]) + ")");

  v.setZero();
  q[5] = std::numeric_limits<double>::infinity();  // the base quaternion's z
  d = detectDivergence(set, q, v, phi, 0.1, 0.5, 500);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->kind, Divergence::Kind::NonFiniteConfiguration);
  EXPECT_EQ(d->joint, model.joint_names[1]);
  EXPECT_NE(d->message().find("Inf in q on joint '" + model.joint_names[1] + "'"), std::string::npos);

  q = mech.q0;
  VectorX bad_phi = phi;
  bad_phi[9] = -0.3;  // right foot weld, row vx
  v[model.idx_v[model.jointId("right_hip_pitch")]] = 7.0;
  d = detectDivergence(set, q, v, bad_phi, 0.1, 2.0, 2000);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->kind, Divergence::Kind::ConstraintViolation);
  EXPECT_EQ(d->constraint_row, set.rowDescription(9));
  EXPECT_EQ(d->joint, "right_hip_pitch");
  EXPECT_NE(d->message().find("constraint violation 0.3 (threshold 0.1) on " + set.rowDescription(9)),
            std::string::npos)
      << d->message();
}

TEST(Divergence, UnstableRunStopsAndReportsTheDof) {
  // A PD hold far too stiff for the step: explicit-Euler instability blows up
  // (|1 - dt² kp / m| >> 1), v reaches Inf/NaN and the run stops.
  Scene scene = freeChain(false);
  scene.actuated_joints = allJoints(*scene.model);
  scene.controller.kind = ControllerSpec::Kind::PdHold;
  scene.controller.kp = 1e9;
  scene.controller.kd = 0.0;
  scene.dt = 1e-2;
  scene.v0 = VectorX::Constant(scene.model->nv, 0.1);
  Simulation sim(scene);
  bool ok = true;
  for (int i = 0; i < 100000 && ok; ++i) ok = sim.step();
  ASSERT_FALSE(ok);
  ASSERT_TRUE(sim.diverged());
  const Divergence& d = *sim.divergence();
  EXPECT_GE(d.dof, 0);
  EXPECT_EQ(d.joint, scene.model->joint_names[scene.model->dof_joint[d.dof]]);
  EXPECT_NEAR(d.time, sim.time(), 1e-12);
  EXPECT_FALSE(sim.step()) << "a diverged simulation does not advance";
  EXPECT_EQ(d.step, sim.stepCount());
}

TEST(Divergence, ViolationBeyondThresholdStopsTheRun) {
  Scene scene = simtest::movingFourBar(8.0);
  scene.time_constant = 0.0;  // no stabilisation: the closure drifts
  scene.dt = 5e-3;
  SimulationOptions options;
  options.violation_threshold = 1e-3;
  Simulation sim(scene, options);
  EXPECT_FALSE(sim.run(20.0));
  ASSERT_TRUE(sim.diverged());
  EXPECT_EQ(sim.divergence()->kind, Divergence::Kind::ConstraintViolation);
  EXPECT_NE(sim.divergence()->message().find("revolute 'loop' row"), std::string::npos) << sim.divergence()->message();
}

TEST(Simulation, StepDoesNotAllocateAfterTheFirstCall) {
  struct Case {
    const char* name;
    Scene scene;
  };
  Scene four_bar = simtest::movingFourBar();
  four_bar.projection = true;
  four_bar.actuated_joints = {1};
  four_bar.controller.kind = ControllerSpec::Kind::Sinusoid;
  four_bar.controller.kp = 50.0;
  four_bar.controller.kd = 5.0;
  four_bar.controller.drives = {SinusoidDrive{1, 0.2, 1.0, 0.0, 1.0}};
  Scene humanoid = simtest::sceneFrom(humanoidTree(), "humanoid");
  humanoid.projection = true;
  humanoid.actuated_joints = allJoints(*humanoid.model);
  humanoid.actuated_joints.erase(humanoid.actuated_joints.begin());  // not the floating base
  humanoid.controller.kind = ControllerSpec::Kind::GravityCompensation;
  Scene chain = freeChain(true);
  chain.actuated_joints = allJoints(*chain.model);
  chain.controller.kind = ControllerSpec::Kind::PdHold;
  chain.controller.kp = 50.0;
  chain.controller.kd = 0.5;
  for (Case& c : std::vector<Case>{{"four_bar", four_bar}, {"humanoid", humanoid}, {"chain", chain}}) {
    Simulation sim(c.scene);
    ASSERT_TRUE(sim.step());  // the first call may allocate
    bool ok = true;
    const long allocations = test::countHeapAllocations([&] {
      for (int i = 0; i < 50; ++i) ok = sim.step() && ok;
    });
    EXPECT_TRUE(ok) << c.name;
    EXPECT_EQ(allocations, 0) << c.name;
  }
}

TEST(Projection, PostStepProjectionDoesNotAllocate) {
  GeneratedMechanism mech = humanoidTree();
  const ConstraintSet set(mech.model, mech.constraints);
  ConstraintProjector projector(set);
  VectorX q = mech.q0;
  VectorX v = VectorX::Ones(mech.model.nv);
  q[0] += 1e-3;
  projector.project(q, v, 3);
  q[0] += 1e-3;
  v.setOnes();
  EXPECT_EQ(test::countHeapAllocations([&] { projector.project(q, v, 3); }), 0);
}
