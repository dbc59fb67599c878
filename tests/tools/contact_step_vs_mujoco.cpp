// A contact step of loopsim against MuJoCo's mj_step on the same cube (run by
// hand; docs/performance.md quotes it): the cube of scenes/box_drop.yaml resting
// on its four corners, and the cube of scenes/box_incline_slide.yaml sliding.
// MuJoCo with the elliptic cone, the Euler integrator at the same dt, its default
// solver (Newton) and a stiff constraint setting. Rounds interleave the two (and
// loopsim's admm and pgs); the report is the median of the per-round ratios.
//
//   loopsim_contact_step_vs_mujoco [rounds] [steps per round] [rest | slide]
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>

#include "mujoco_cube.hpp"
#include "mujoco_handles.hpp"

namespace {

using namespace loopsim;
using Clock = std::chrono::steady_clock;

std::filesystem::path scenesDir() { return std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes"; }

template <class F>
double seconds(int steps, F&& step) {
  const auto start = Clock::now();
  for (int k = 0; k < steps; ++k) step();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x[x.size() / 2];
}

void compare(const char* label, const char* scene_file, double tilt, double height, double mu, double settle,
             int rounds, int steps) {
  Scene scene = loadScene(scenesDir() / scene_file);
  Simulation admm(scene);
  scene.contact_solver = ContactSolverKind::pgs;
  Simulation pgs(scene);
  const test::MjModelPtr model = test::loadMujocoText(test::cubeOnPlaneMjcf(tilt, height, mu, admm.q().head<3>()),
                                                      "contact_bench.xml");
  const test::MjDataPtr data(mj_makeData(model.get()));
  mjModel* m = model.get();
  mjData* d = data.get();
  const int settle_steps = static_cast<int>(settle / scene.dt);
  for (int k = 0; k < settle_steps; ++k) {
    admm.step();
    pgs.step();
    mj_step(m, d);
  }
  std::vector<double> admm_us, pgs_us, mj_us, ratio_admm, ratio_pgs;
  int admm_iterations = 0, pgs_iterations = 0;
  long mj_contacts = 0, ls_contacts = 0;
  for (int r = 0; r < rounds; ++r) {
    const double t_admm = seconds(steps, [&] {
      admm.step();
      admm_iterations = std::max(admm_iterations, admm.lastUnilateralStep().solve.iterations);
    });
    const double t_mj = seconds(steps, [&] { mj_step(m, d); });
    for (int k = 0; k < steps; ++k) {  // counted outside the timed rounds
      mj_contacts += d->ncon;
      ls_contacts += admm.lastUnilateralStep().contacts;
    }
    const double t_pgs = seconds(steps, [&] {
      pgs.step();
      pgs_iterations = std::max(pgs_iterations, pgs.lastUnilateralStep().solve.iterations);
    });
    admm_us.push_back(1e6 * t_admm / steps);
    pgs_us.push_back(1e6 * t_pgs / steps);
    mj_us.push_back(1e6 * t_mj / steps);
    ratio_admm.push_back(t_admm / t_mj);
    ratio_pgs.push_back(t_pgs / t_mj);
  }
  std::printf("%-24s contacts per step (at a round's end): loopsim %.2f, MuJoCo %.2f\n", label,
              static_cast<double>(ls_contacts) / (rounds * steps), static_cast<double>(mj_contacts) / (rounds * steps));
  std::printf("  step median: loopsim admm %.2f us (at most %d iterations), pgs %.2f us (at most %d sweeps), "
              "mj_step %.2f us\n",
              median(admm_us), admm_iterations, median(pgs_us), pgs_iterations, median(mj_us));
  std::printf("  median of per-round ratios: admm / mj_step %.2f, pgs / mj_step %.2f\n", median(ratio_admm),
              median(ratio_pgs));
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 31;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  if (rounds < 1 || steps < 1) {
    std::fprintf(stderr, "usage: %s [rounds >= 1] [steps per round >= 1]\n", argv[0]);
    return 2;
  }
  std::printf("%d rounds of %d steps, interleaved (loopsim admm, mj_step, loopsim pgs)\n", rounds, steps);
  const std::string only = argc > 3 ? argv[3] : "";
  if (only.empty() || only == "rest") compare("cube at rest (box_drop)", "box_drop.yaml", 0.0, 0.0, 0.5, 1.0, rounds, steps);
  // MuJoCo's soft contact lets this cube hop: at most steps it starts apart from the plane (the
  // report gives the contact counts), so the two steps do different work.
  if (only.empty() || only == "slide") {
    compare("cube sliding (incline)", "box_incline_slide.yaml", 30.0, 1.2, 0.3, 0.0, rounds, steps);
  }
  return 0;
}
