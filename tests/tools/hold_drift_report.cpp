// Measures how well the robot scenes stand: for every scene given and every
// registered solver that can run it, simulates the scene's duration (or
// --duration) and prints the largest base displacement and the largest
// deviation of a held actuated joint from the start (tests/support/hold_drift.hpp).
//   loopsim_hold_drift_report [--duration S] [--solver NAME] SCENE.yaml...
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hold_drift.hpp"
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/registry.hpp>

int main(int argc, char** argv) {
  using namespace loopsim;
  double duration = -1.0;
  std::string only_solver;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--duration" && i + 1 < argc) {
      duration = std::atof(argv[++i]);
    } else if (arg == "--solver" && i + 1 < argc) {
      only_solver = argv[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr, "usage: %s [--duration S] [--solver NAME] SCENE.yaml...\n", argv[0]);
      return 2;
    } else {
      files.push_back(arg);
    }
  }
  std::printf("%-22s %-9s %-8s %-7s %-11s %-28s %-11s %-30s %s\n", "scene", "solver", "dt", "t [s]", "base [mm]",
              "(joint)", "joint [rad]", "(dof)", "wall [s]");
  int failures = 0;
  for (const std::string& file : files) {
    try {
      const Scene loaded = loadScene(file);
      for (const SolverInfo& info : solverRegistry()) {
        if (!only_solver.empty() && info.name != only_solver) continue;
        Scene scene = loaded;
        try {
          requireSolver(scene.solverProblem(), info.name);
        } catch (const ModelError&) {
          continue;  // this solver does not take the scene
        }
        scene.solver = info.name;
        const auto start = std::chrono::steady_clock::now();
        Simulation sim(scene);
        const HoldDrift d = measureHoldDrift(sim, duration > 0.0 ? duration : scene.duration);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const bool holds = !d.diverged && d.base_displacement <= 5e-3 && d.joint_deviation <= 1e-2;
        failures += holds ? 0 : 1;
        std::printf("%-22s %-9s %-8g %-7.3g %-11.4g %-28s %-11.3g %-30s %.1f%s\n", scene.name.c_str(),
                    info.name.c_str(), scene.dt, d.simulated, 1e3 * d.base_displacement, d.base_joint.c_str(),
                    d.joint_deviation, d.joint.c_str(), wall,
                    d.diverged ? "  DIVERGED" : (holds ? "" : "  over 5 mm / 0.01 rad"));
        std::fflush(stdout);
      }
    } catch (const ModelError& e) {
      std::printf("%s: %s\n", file.c_str(), e.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
