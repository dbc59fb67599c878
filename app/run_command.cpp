// `loopsim run SCENE [--solver NAME] [--duration S] [--dt S] [--quiet] [--record OUT.csv]`:
// steps a scene headless and prints a summary block in the spirit of MuJoCo's
// testspeed. Exit codes: 0 done, 1 bad input, 3 diverged.
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "model/errors.hpp"
#include "progress_bar.hpp"
#include "record/recorder.hpp"
#include "scene/scene_loader.hpp"
#include "sim/simulation.hpp"
#include "sim_commands.hpp"

namespace loopsim::app {

namespace {

struct RunOptions {
  std::string scene_file;
  std::string solver;
  std::optional<double> duration, dt;
  bool quiet = false;
  std::string record;
  bool overwrite = false;
};

// The same summary for every outcome (completed or diverged).
void printSummary(const Simulation& sim, std::FILE* out) {
  const RunSummary s = sim.summary();
  const Scene& scene = sim.scene();
  const EnergyTerms& e = s.energy;
  std::fprintf(out, "\n Simulation summary: %s (solver %s, dt %g s, T %g s, projection %s)\n\n", scene.name.c_str(),
               scene.solver.c_str(), scene.dt, scene.time_constant, scene.projection ? "on" : "off");
  std::fprintf(out, " Steps              : %ld\n", s.steps);
  std::fprintf(out, " Simulated time     : %.6g s\n", s.simulated_time);
  std::fprintf(out, " Wall time (steps)  : %.6g s\n", s.wall_time);
  std::fprintf(out, " Steps per second   : %.0f\n", s.steps_per_second);
  std::fprintf(out, " Realtime factor    : %.2f x\n", s.realtime_factor);
  std::fprintf(out, " Median step        : %.2f us\n", s.median_step_us);
  std::fprintf(out, " Median solve       : %.2f us\n", s.median_solve_us);
  std::fprintf(out, " Iterations / step  : %.2f (unconverged solves: %ld)\n", s.mean_iterations,
               s.unconverged_solves);
  std::fprintf(out, " Constraint rows    : %d\n", sim.constraints().dimension());
  std::fprintf(out, " Violation position : max %.3e  rms %.3e  (m or rad)\n", s.max_position_violation,
               s.rms_position_violation);
  std::fprintf(out, " Violation velocity : max %.3e  rms %.3e  (m/s or rad/s)\n", s.max_velocity_violation,
               s.rms_velocity_violation);
  std::fprintf(out, " Energy             : E0 %.6g J, E %.6g J (kinetic %.6g, potential %.6g)\n", e.initial,
               e.total(), e.kinetic, e.potential);
  std::fprintf(out, " Work               : applied %.6g J, joint damping %.6g J\n", e.applied_work, e.damping_work);
  std::fprintf(out, " Energy balance     : E - E0 - W_applied - W_damping = %.3e J\n", e.balance());
}

std::string commandLine(const RunOptions& o) {
  std::ostringstream os;
  os.precision(17);
  os << "loopsim run " << o.scene_file;
  if (!o.solver.empty()) os << " --solver " << o.solver;
  if (o.duration) os << " --duration " << *o.duration;
  if (o.dt) os << " --dt " << *o.dt;
  if (!o.record.empty()) os << " --record " << o.record;
  if (o.overwrite) os << " --overwrite";
  return os.str();
}

int runScene(const RunOptions& o) {
  if (o.quiet) spdlog::set_level(spdlog::level::warn);
  Scene scene = loadScene(o.scene_file);
  if (!o.solver.empty() && o.solver != scene.solver) {
    checkSolverForScene(scene, o.solver);
    scene.solver = o.solver;
  }
  if (o.dt) {
    if (!std::isfinite(*o.dt) || *o.dt <= 0.0) throw ModelError("", "--dt", "must be > 0 (got " + std::to_string(*o.dt) + ")");
    scene.dt = *o.dt;
  }
  if (o.duration) {
    if (!std::isfinite(*o.duration) || *o.duration <= 0.0) {
      throw ModelError("", "--duration", "must be > 0 (got " + std::to_string(*o.duration) + ")");
    }
    scene.duration = *o.duration;
  }

  Simulation sim(scene);
  std::unique_ptr<SimulationRecorder> recorder;
  if (!o.record.empty()) recorder = std::make_unique<SimulationRecorder>(sim, o.record, o.overwrite);

  const long steps = std::max(1L, static_cast<long>(std::llround(scene.duration / scene.dt)));
  std::optional<ProgressBar> progress;
  if (!o.quiet && isTerminal(stdout)) progress.emplace(scene.duration, stdout);
  for (long k = 0; k < steps; ++k) {
    const bool ok = recorder ? recorder->step(sim) : sim.step();
    if (!ok) break;
    if (progress) progress->update(sim.time());
  }
  sim.checkState();  // the final state's violation, as a further step would check it
  if (progress) progress->finish(sim.time());
  if (recorder) {
    recorder->finish(sim, commandLine(o));
    spdlog::info("record: {} (summary {})", recorder->csvPath().string(), recorder->summaryPath().string());
  }

  printSummary(sim, stdout);
  if (sim.diverged()) {
    std::fflush(stdout);
    std::fprintf(stderr, "loopsim: %s\n", sim.divergence()->message().c_str());
    std::printf(" DIVERGED           : %s\n", sim.divergence()->message().c_str());
    return kExitDiverged;
  }
  return 0;
}

}  // namespace

Command registerRunCommand(CLI::App& parent) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = parent.add_subcommand("run", "Simulate a scene headless and print a timing/accuracy summary");
  run->footer(
      "Exit codes: 0 finished; 1 invalid scene or options; 3 diverged (NaN or Inf in q or v, or a constraint "
      "violation beyond 0.1 m or rad): the summary up to that point is printed with the degree of freedom and the "
      "time.");
  run->add_option("scene", options->scene_file, "Scene file (.yaml)")->required()->check(CLI::ExistingFile);
  run->add_option("--solver", options->solver, "Solver name (see `loopsim solvers`); default: the scene's");
  run->add_option("--duration", options->duration, "Simulated time in seconds; default: the scene's");
  run->add_option("--dt", options->dt, "Time step in seconds; default: the scene's");
  run->add_flag("--quiet", options->quiet, "No progress bar and no info logs (the summary is still printed)");
  run->add_option("--record", options->record, "Write a CSV record of every step (and a JSON summary beside it)");
  run->add_flag("--overwrite", options->overwrite, "Allow --record to replace an existing record");
  return {run, [options] { return runScene(*options); }};
}

}  // namespace loopsim::app
