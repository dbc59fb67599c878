// Contact in the simulation step against closed forms, each a scene of scenes/:
// a cube sliding down and sticking on a 30° incline, a cube dropped on the
// ground, a puck pushed at 30° to x; every contact solve converged with the three
// residuals within 1e-8; admm and pgs give the same motion; a scene without
// contact geometry detects nothing; bad contact keys are refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>

#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>

#include "allocation_counter.hpp"
#include "quiet_log.hpp"

namespace loopsim {
namespace {

using test::QuietLog;

std::filesystem::path scenesDir() { return std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes"; }

constexpr double kG = 9.81;

Vector3 position(const Simulation& sim) { return sim.q().head<3>(); }

// Every contact solve of the run within 1e-8 on the worst of its three residuals
// (the solvers aim at 1e-10; on a cube's four corners, a singular Delassus matrix,
// PGS can stop at its iteration cap a little above that).
void expectConverged(const Simulation& sim) {
  EXPECT_LE(sim.contactTotals().worst_residual, 1e-8)
      << sim.contactTotals().unconverged << " solves stopped at the iteration cap";
}

// A scene of scenes/ with its contacts solved by `solver` (admm or pgs).
Scene sceneWith(const char* file, const char* solver) {
  Scene scene = loadScene(scenesDir() / file);
  EXPECT_TRUE(parseContactSolver(solver, scene.contact_solver)) << solver;
  return scene;
}

void runFor(Simulation& sim, double seconds) {
  const long steps = std::lround(seconds / sim.scene().dt);
  for (long k = 0; k < steps; ++k) ASSERT_TRUE(sim.step()) << "step " << k;
}

// μ 0.3 < tan 30°: the cube slides with a = g (sin 30° − μ cos 30°); after 1 s it
// has travelled ½ a t² (within 0.5 %), straight down the slope.
TEST(ContactScenes, BoxOnInclineSlidesWithTheCoulombAcceleration) {
  for (const char* solver : {"admm", "pgs"}) {
    SCOPED_TRACE(solver);
    Simulation sim(sceneWith("box_incline_slide.yaml", solver));
    const Vector3 start = position(sim);
    runFor(sim, 1.0);
    const double a = kG * (std::sin(std::numbers::pi / 6) - 0.3 * std::cos(std::numbers::pi / 6));
    const Vector3 moved = position(sim) - start;
    const double expected = 0.5 * a * 1.0 * 1.0;
    EXPECT_NEAR(moved.norm() / expected, 1.0, 0.005) << "travelled " << moved.norm() << " m, expected " << expected;
    std::printf("[ incline slide, %s ] travelled %.6f m in 1 s, 1/2 a t^2 = %.6f m (%.3g %%), worst residual %.2e\n",
                solver, moved.norm(), expected, 100.0 * (moved.norm() / expected - 1.0),
                sim.contactTotals().worst_residual);
    const Vector3 down_slope(std::cos(std::numbers::pi / 6), 0.0, -std::sin(std::numbers::pi / 6));
    EXPECT_GT(moved.normalized().dot(down_slope), 1.0 - 1e-6) << moved.transpose();
    EXPECT_EQ(sim.contactTotals().steps_in_contact, sim.stepCount());
    EXPECT_EQ(sim.contactTotals().most_contacts, 4);
    expectConverged(sim);
  }
}

// μ 0.8 > tan 30°: static friction holds the cube (less than 0.1 mm in 1 s).
TEST(ContactScenes, BoxOnInclineSticks) {
  for (const char* solver : {"admm", "pgs"}) {
    SCOPED_TRACE(solver);
    Simulation sim(sceneWith("box_incline_stick.yaml", solver));
    const Vector3 start = position(sim);
    runFor(sim, 1.0);
    EXPECT_LT((position(sim) - start).norm(), 1e-4);
    std::printf("[ incline stick, %s ] moved %.3g m in 1 s\n", solver, (position(sim) - start).norm());
    expectConverged(sim);
  }
}

// Dropped from 0.5 m, the cube lands flat and rests with its centre 0.1 m up
// (within 2 mm), |v| < 1e-3 after 2 s; the total energy never rises, the impact
// included, beyond the solvers' tolerance (at rest, a residual velocity of 1e-10
// moves the energy by a few 1e-10 J: 1e-8 J bounds it, 1e-9 of the 3.9 J the impact takes).
TEST(ContactScenes, DroppedBoxComesToRestOnItsFace) {
  for (const char* solver : {"admm", "pgs"}) {
    SCOPED_TRACE(solver);
    Simulation sim(sceneWith("box_drop.yaml", solver));
    const double start_energy = sim.energy().total();
    double energy = start_energy, worst_rise = -1e300;
    bool landed = false;
    for (long k = 0; k < 2000; ++k) {
      ASSERT_TRUE(sim.step());
      const double e = sim.energy().total();
      worst_rise = std::max(worst_rise, e - energy);
      energy = e;
      landed = landed || sim.lastUnilateralStep().contacts > 0;
    }
    EXPECT_TRUE(landed);
    // The impact takes the kinetic energy of the 0.4 m fall: m g h = 3.92 J.
    EXPECT_NEAR(start_energy - energy, 1.0 * kG * 0.4, 0.02);
    EXPECT_NEAR(position(sim).z(), 0.1, 2e-3);
    EXPECT_LT(sim.v().norm(), 1e-3);
    EXPECT_LE(worst_rise, 1e-8) << "the total energy rose by " << worst_rise << " J in a step";
    std::printf("[ box drop, %s ] centre %.6f m after 2 s, |v| %.2e, largest energy rise in a step %.2e J, "
                "worst residual %.2e\n", solver, position(sim).z(), sim.v().norm(), worst_rise,
                sim.contactTotals().worst_residual);
    // Flat on its face: the body z axis still vertical.
    const Quaternion orientation(sim.q()[6], sim.q()[3], sim.q()[4], sim.q()[5]);
    EXPECT_GT((orientation * Vector3::UnitZ()).z(), 1.0 - 1e-9);
    expectConverged(sim);
  }
}

// box_stack.yaml: five cubes, each 1 mm above the one below and 2.5 mm off its
// centre, settle onto each other (box-box contacts) and stand for 10 s: every
// cube within 1 mm of where it settled and of its stacked height, upright, the
// stack at rest.
TEST(ContactScenes, FiveStackedBoxesStayStacked) {
  Simulation sim(sceneWith("box_stack.yaml", "admm"));
  runFor(sim, 0.5);
  const VectorX settled = sim.q();
  runFor(sim, 9.5);
  double moved = 0.0, tilt = 0.0;
  for (int b = 0; b < 5; ++b) {
    const int at = 7 * b;
    SCOPED_TRACE("box " + std::to_string(b + 1));
    EXPECT_NEAR(sim.q()[at + 2], 0.1 + 0.2 * b, 1e-3) << "on the one below";
    moved = std::max(moved, (sim.q().segment<3>(at) - settled.segment<3>(at)).norm());
    const Quaternion orientation(sim.q()[at + 6], sim.q()[at + 3], sim.q()[at + 4], sim.q()[at + 5]);
    tilt = std::max(tilt, std::acos(std::min(1.0, (orientation * Vector3::UnitZ()).z())));
  }
  std::printf("[ box stack ] largest move after settling %.2e m, largest tilt %.2e rad, |v| %.2e, most contacts %d, "
              "worst residual %.2e\n", moved, tilt, sim.v().norm(), sim.contactTotals().most_contacts,
              sim.contactTotals().worst_residual);
  EXPECT_LT(moved, 1e-3);
  // The off-centre loads press the faces' corners unevenly within the slop (measured: 1.3e-3 rad).
  EXPECT_LT(tilt, 5e-3);
  EXPECT_LT(sim.v().norm(), 1e-3);
  EXPECT_GE(sim.contactTotals().most_contacts, 17) << "four per face (FCL's box-box manifold) and four on the ground";
  expectConverged(sim);
}

// Pushed to 2 m/s at 30° to x, the puck slides straight along the push (the exact
// cone has no pyramid facets to bend it towards an axis) and stops after v²/(2 μ g).
TEST(ContactScenes, PushedPuckSlidesAlongThePush) {
  for (const char* solver : {"admm", "pgs"}) {
    SCOPED_TRACE(solver);
    Simulation sim(sceneWith("puck_push.yaml", solver));
    const Vector3 start = position(sim);
    runFor(sim, 1.5);
    const Vector3 moved = position(sim) - start;
    EXPECT_NEAR(std::atan2(moved.y(), moved.x()), std::numbers::pi / 6, 1e-6);
    const double stop = 2.0 * 2.0 / (2.0 * 0.3 * kG);
    EXPECT_NEAR(moved.head<2>().norm() / stop, 1.0, 0.005) << "slid " << moved.head<2>().norm() << " m";
    std::printf("[ puck push, %s ] direction off the push by %.2e rad, slid %.6f m of v^2/(2 mu g) = %.6f m\n", solver,
                std::atan2(moved.y(), moved.x()) - std::numbers::pi / 6, moved.head<2>().norm(), stop);
    EXPECT_LT(sim.v().norm(), 1e-6);
    expectConverged(sim);
  }
}

// admm and pgs solve the same problems: the motions agree step by step.
TEST(ContactScenes, AdmmAndPgsGiveTheSameMotion) {
  for (const char* file : {"box_drop.yaml", "box_incline_slide.yaml", "puck_push.yaml"}) {
    SCOPED_TRACE(file);
    Scene admm_scene = loadScene(scenesDir() / file);
    Scene pgs_scene = admm_scene;
    pgs_scene.contact_solver = ContactSolverKind::pgs;
    Simulation admm(admm_scene), pgs(pgs_scene);
    double worst = 0.0;
    for (long k = 0; k < 1000; ++k) {
      ASSERT_TRUE(admm.step());
      ASSERT_TRUE(pgs.step());
      worst = std::max(worst, (admm.v() - pgs.v()).lpNorm<Eigen::Infinity>());
    }
    EXPECT_LT(worst, 1e-6);
    std::printf("[ admm vs pgs, %s ] largest |v_admm - v_pgs| over 1000 steps %.2e\n", file, worst);
  }
}

// Once it has seen its contact count, the contact solve of a step allocates nothing.
TEST(ContactScenes, ContactSolveDoesNotAllocate) {
  Simulation sim(loadScene(scenesDir() / "box_drop.yaml"));
  runFor(sim, 1.0);  // at rest on its four corners
  std::vector<ContactRowSource> rows;
  for (const ContactPoint& c : sim.contacts()) rows.push_back(contactRowSource(c));
  ASSERT_EQ(rows.size(), 4u);
  for (const ContactSolverKind kind : {ContactSolverKind::admm, ContactSolverKind::pgs}) {
    UnilateralStep step(sim.constraints(), {}, JointLimitSettings{}, kind);
    const int nv = sim.model().nv;
    VectorX v_next = sim.v(), lambda = VectorX::Zero(0);
    const VectorX added = VectorX::Zero(nv);
    step.apply(sim.q(), sim.v(), 1e-3, added, 0.1, rows, v_next, lambda);  // sizes the workspace
    UnilateralStepResult result;
    const long allocations = test::countHeapAllocations([&] {
      for (int k = 0; k < 5; ++k) {
        v_next = sim.v() + Vector6(0, 0, 0, 0, 0, -0.01 * k);
        result = step.apply(sim.q(), sim.v(), 1e-3, added, 0.1, rows, v_next, lambda);
      }
    });
    EXPECT_EQ(result.contacts, 4);
    EXPECT_EQ(allocations, 0) << contactSolverName(kind);
  }
}

// Once the contact set has been seen, a whole step (detection against the ground
// included) allocates nothing: resting, sliding, and Go1 on its four feet, with
// either contact solver. (Pairs of two bounded shapes go through FCL, whose
// queries allocate: docs/contact.md.)
TEST(ContactScenes, StepDoesNotAllocateOnceTheContactSetWasSeen) {
  for (const char* file : {"box_drop.yaml", "box_incline_slide.yaml", "puck_push.yaml", "go1_ground.yaml"}) {
    for (const char* solver : {"admm", "pgs"}) {
      Simulation sim(sceneWith(file, solver));
      runFor(sim, 0.5);
      const std::size_t contacts = sim.contacts().size();
      ASSERT_GT(contacts, 0u) << file;
      const long allocations = test::countHeapAllocations([&] {
        for (int k = 0; k < 20; ++k) sim.step();
      });
      EXPECT_EQ(sim.contacts().size(), contacts) << file << ": the same contact set";
      EXPECT_EQ(allocations, 0) << file << ", " << solver;
    }
  }
}

// A scene without contact geometry (the pendulum with its limit) has no detection.
// A capsule free body dropped lying down comes to rest on its side: its axis
// r above the ground, two contacts (the ends of its segment).
TEST(ContactScenes, CapsuleLiesOnItsSide) {
  const QuietLog quiet;
  const Scene scene = loadSceneString(R"(name: capsule
bodies:
  - {name: pill, shape: capsule, size: [0.05, 0.3], mass: 0.5, pose: {position: [0, 0, 0.2], rpy: [0, 1.5707963267948966, 0]}}
ground: {height: 0}
dt: 0.001
duration: 1
)",
                                      "capsule.yaml");
  Simulation sim(scene);
  runFor(sim, 1.0);
  EXPECT_NEAR(sim.q()[2], 0.05, 2e-3);
  EXPECT_EQ(sim.contacts().size(), 2u);
  EXPECT_LT(sim.v().norm(), 1e-3);
  expectConverged(sim);
}

TEST(ContactScenes, SceneWithoutGeometryDetectsNothing) {
  const Scene scene = loadScene(scenesDir() / "pendulum_limit.yaml");
  EXPECT_EQ(scene.geometry, nullptr);
  Simulation sim(scene);
  ASSERT_TRUE(sim.step());
  EXPECT_TRUE(sim.contacts().empty());
}

std::string refusal(const std::string& text) {
  try {
    loadSceneString(text, "contact_keys.yaml");
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

const char* kBox = "bodies:\n  - {name: box, shape: box, size: [0.2, 0.2, 0.2], mass: 1.0}\n";

TEST(ContactScenes, BadContactKeysAreRefusedByName) {
  const std::string box = kBox;
  EXPECT_NE(refusal(box + "ground: {friction: -1}\n").find("friction"), std::string::npos);
  EXPECT_NE(refusal(box + "ground: {friction: .nan}\n").find("friction"), std::string::npos);
  EXPECT_NE(refusal(box + "ground: {normal: [0, 0, 0]}\n").find("normal"), std::string::npos);
  EXPECT_NE(refusal(box + "ground: {tilt: 95}\n").find("tilt"), std::string::npos);
  EXPECT_NE(refusal(box + "ground: {}\nobstacles:\n  - {name: wall, shape: box, size: [0, 1, 1]}\n").find("size"),
            std::string::npos);
  const std::string unknown = refusal(box + "ground: {}\nexclude: [[box, boxx]]\n");
  EXPECT_NE(unknown.find("boxx"), std::string::npos) << unknown;
  const std::string solver = refusal(box + "ground: {}\ncontact: {solver: pgss}\n");
  EXPECT_NE(solver.find("pgss"), std::string::npos) << solver;
  EXPECT_NE(refusal(box + "ground: {}\ncontact: {max_iterations: 0}\n").find("max_iterations"), std::string::npos);
  const std::string body_friction =
      refusal("bodies:\n  - {name: box, shape: box, size: [0.2, 0.2, 0.2], mass: 1.0, friction: -0.5}\nground: {}\n");
  EXPECT_NE(body_friction.find("friction"), std::string::npos) << body_friction;
}

}  // namespace
}  // namespace loopsim
