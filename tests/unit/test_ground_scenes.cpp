// The robots on the ground (scenes/go1_ground.yaml, atlas_ground.yaml,
// digit_ground.yaml): no weld
// to the world, the holding feed-forward balanced against the contacts the pose
// stands on (engine/sim/contact_support.hpp), and over 10 s the base stays
// within 5 mm of where it landed and no foot slides more than 1 mm. A push
// tips Go1 over without divergence; dropped from 0.4 m it lands without exploding;
// records on contact replay bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>
#include <unistd.h>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/collision/shape_extent.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/record/recorder.hpp>
#include <loopsim/record/replay.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>

#include "quiet_log.hpp"

namespace loopsim {
namespace {

std::filesystem::path scenesDir() { return std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes"; }

struct GroundCase {
  const char* file;
  std::vector<std::string> feet;  // frames on the soles or foot centres
  int supports;                   // the contact points the pose stands on
};

// The horizontal position of each foot frame.
std::vector<Vector3> feetAt(const Model& model, const VectorX& q, const std::vector<std::string>& feet) {
  Data data(model);
  forwardKinematics(model, data, q);
  std::vector<Vector3> out;
  for (const std::string& name : feet) {
    const Frame& f = model.frames[static_cast<std::size_t>(model.existingFrame(name))];
    out.push_back((data.oMi[static_cast<std::size_t>(f.body)] * f.placement).t);
  }
  return out;
}

TEST(GroundScenes, RobotsStandOnTheirContactsForTenSeconds) {
  const test::QuietLog quiet;
  const std::vector<GroundCase> cases{
      {"go1_ground.yaml", {"FR_foot", "FL_foot", "RR_foot", "RL_foot"}, 4},
      {"atlas_ground.yaml", {"l_foot_sole", "r_foot_sole", "l_foot_toe", "r_foot_toe"}, 8},
      {"digit_ground.yaml", {"left-foot", "right-foot"}, 8},
  };
  for (const GroundCase& c : cases) {
    SCOPED_TRACE(c.file);
    Scene scene = loadScene(scenesDir() / c.file);
    for (const Constraint& k : scene.constraints) EXPECT_NE(k.body2, 0) << k.name << " holds a body to the world";
    ASSERT_TRUE(scene.geometry);
    Simulation sim(scene);
    EXPECT_EQ(static_cast<int>(sim.supports().size()), c.supports);
    EXPECT_TRUE(sim.startWarnings().empty()) << sim.startWarnings().front();
    const Model& model = *scene.model;
    const int base = model.idx_q[1];
    const long landing = std::lround(0.5 / scene.dt), total = std::lround(10.0 / scene.dt);
    Vector3 landed_base;
    std::vector<Vector3> landed_feet;
    double drift = 0.0, slide = 0.0;
    for (long k = 1; k <= total; ++k) {
      ASSERT_TRUE(sim.step()) << "step " << k;
      if (k == landing) {
        landed_base = sim.q().segment<3>(base);
        landed_feet = feetAt(model, sim.q(), c.feet);
      }
      if (k > landing && k % 100 == 0) {
        drift = std::max(drift, (sim.q().segment<3>(base) - landed_base).norm());
        const std::vector<Vector3> feet = feetAt(model, sim.q(), c.feet);
        for (std::size_t f = 0; f < feet.size(); ++f) {
          slide = std::max(slide, (feet[f] - landed_feet[f]).head<2>().norm());
        }
      }
    }
    EXPECT_LT(drift, 5e-3) << "base drift after landing";
    EXPECT_LT(slide, 1e-3) << "a foot slid";
    EXPECT_GE(static_cast<int>(sim.contacts().size()), c.supports) << "standing on its contacts";
    EXPECT_LE(sim.contactTotals().worst_residual, 1e-8);
    EXPECT_LT(sim.v().norm(), 1e-2) << "at rest";
    std::printf("  %s: base drift %.3g mm, largest foot slide %.3g mm, base height %.4f m\n", c.file, 1e3 * drift,
                1e3 * slide, sim.q()[base + 2]);
  }
}

// two_digits_box_ground.yaml: two Digits on their soles hold a 3 kg box between
// their hands for 10 s; the start warns that the least-effort split would have
// some heel corners pull, and the PD takes that up: the bases and the box stay.
TEST(GroundScenes, TwoDigitsOnTheGroundHoldABox) {
  const test::QuietLog quiet;
  Scene scene = loadScene(scenesDir() / "two_digits_box_ground.yaml");
  for (const Constraint& k : scene.constraints) EXPECT_NE(k.body2, 0) << k.name << " holds a body to the world";
  Simulation sim(scene);
  EXPECT_EQ(static_cast<int>(sim.supports().size()), 16);
  const Model& model = *scene.model;
  const std::vector<int> bodies{model.bodyId("a_base"), model.bodyId("b_base"), model.bodyId("box")};
  for (int k = 0; k < 500; ++k) ASSERT_TRUE(sim.step());
  std::vector<Vector3> landed;
  for (int b : bodies) landed.push_back(sim.q().segment<3>(model.idx_q[b]));
  double drift = 0.0;
  for (int k = 0; k < 9500; ++k) {
    ASSERT_TRUE(sim.step());
    if (k % 100 == 0) {
      for (std::size_t i = 0; i < bodies.size(); ++i) {
        drift = std::max(drift, (sim.q().segment<3>(model.idx_q[bodies[i]]) - landed[i]).norm());
      }
    }
  }
  std::printf("  two_digits_box_ground.yaml: largest drift of a base or the box %.3g mm, %zu start warnings\n",
              1e3 * drift, sim.startWarnings().size());
  EXPECT_LT(drift, 5e-3);
  EXPECT_LT(sim.v().norm(), 1e-2);
  EXPECT_EQ(static_cast<int>(sim.contacts().size()), 16);
  EXPECT_LE(sim.contactTotals().worst_residual, 1e-8);
}

// A record of each scene on contact, through its landing (the contact set
// appearing, growing, persisting), replays bit for bit: detection, warm
// starts and solves depend on nothing but the state.
TEST(GroundScenes, RecordsOnContactReplayBitForBit) {
  const test::QuietLog quiet;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("loopsim_ground_records_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const auto& [file, steps] : std::vector<std::pair<std::string, int>>{
           {"go1_ground.yaml", 300}, {"atlas_ground.yaml", 300}, {"digit_ground.yaml", 300}, {"go1_drop.yaml", 400}, {"box_stack.yaml", 300}}) {
    SCOPED_TRACE(file);
    Simulation sim(loadScene(scenesDir() / file));
    const auto csv = dir / (file + ".csv");
    {
      SimulationRecorder recorder(sim, csv, false, {});
      for (int k = 0; k < steps; ++k) ASSERT_TRUE(recorder.step(sim));
      recorder.finish(sim, "test");
    }
    EXPECT_GT(sim.contactTotals().steps_in_contact, 0);
    const ReplayReport report = replayRecord(csv, true);
    EXPECT_TRUE(report.verified) << report.mismatch;
    EXPECT_EQ(report.steps, steps);
  }
  std::filesystem::remove_all(dir);
}

// go1_drop.yaml: Go1 falls 0.4 m onto its feet under a plain PD. The contacts
// only take energy out: E - E0 - W_applied - W_damping never rises above
// rounding, nothing sinks into the ground and it comes to rest.
TEST(GroundScenes, Go1DroppedFromFortyCentimetresLandsWithoutExploding) {
  const test::QuietLog quiet;
  Scene scene = loadScene(scenesDir() / "go1_drop.yaml");
  Simulation sim(scene);
  const double start_balance = sim.energy().balance();
  double highest_balance = start_balance, lowest = 1e9;
  const int base = scene.model->idx_q[1];
  for (int k = 0; k < 3000; ++k) {
    ASSERT_TRUE(sim.step()) << "step " << k;
    highest_balance = std::max(highest_balance, sim.energy().balance());
    Data data(*scene.model);
    forwardKinematics(*scene.model, data, sim.q());
    lowest = std::min(lowest, lowestBodyGeometryHeight(*scene.geometry, data.oMi));
  }
  const EnergyTerms& e = sim.energy();
  std::printf("  go1_drop.yaml: energy balance %.3g J at the end, highest %.3g J; lowest geometry %.4f m; base %.4f m, "
              "kinetic %.2e J\n", e.balance(), highest_balance, lowest, sim.q()[base + 2], e.kinetic);
  EXPECT_LT(highest_balance - start_balance, 1e-2) << "the landing added energy";
  EXPECT_LT(e.balance(), -1.0) << "the impact dissipates";
  EXPECT_GT(lowest, -5e-3) << "sank into the ground";
  EXPECT_GT(sim.q()[base + 2], 0.05) << "the trunk stays above the ground";
  EXPECT_LT(e.kinetic, 1e-3) << "at rest after 3 s";
  EXPECT_LE(sim.contactTotals().worst_residual, 1e-8);
}

// A sideways push on Go1's trunk (60 N for 0.3 s): it tips over onto its side
// and lies on the ground, the state finite throughout.
TEST(GroundScenes, APushTipsGo1Over) {
  const test::QuietLog quiet;
  Scene scene = loadScene(scenesDir() / "go1_ground.yaml");
  Simulation sim(scene);
  const Model& model = *scene.model;
  const int trunk = 1;
  for (int k = 0; k < 500; ++k) ASSERT_TRUE(sim.step());
  const double standing = sim.q()[model.idx_q[trunk] + 2];
  for (int k = 0; k < 3000; ++k) {
    if (k < 300) {
      // The trunk's frame turns with it: push along world y, from the body's axes.
      Data data(model);
      forwardKinematics(model, data, sim.q());
      const Matrix3& R = data.oMi[trunk].R;
      sim.setPerturbation(trunk, Force(R.transpose() * Vector3(0.0, 0.0, 0.0), R.transpose() * Vector3(0.0, 60.0, 0.0)));
    } else if (k == 300) {
      sim.clearPerturbation();
    }
    ASSERT_TRUE(sim.step()) << "step " << k;
    ASSERT_TRUE(sim.q().allFinite() && sim.v().allFinite());
  }
  Data data(model);
  forwardKinematics(model, data, sim.q());
  const Vector3 up = data.oMi[trunk].R.col(2);  // the trunk's z axis
  EXPECT_LT(up.z(), 0.5) << "tipped over (trunk z axis " << up.transpose() << ")";
  EXPECT_LT(sim.q()[model.idx_q[trunk] + 2], standing);
  EXPECT_LT(sim.v().norm(), 1.0) << "lies on the ground";
}

}  // namespace
}  // namespace loopsim
