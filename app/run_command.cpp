// `loopsim run SCENE [--solver NAME|auto] [--mu X|auto] [--duration S] [--dt S] [--quiet] [--record OUT.csv]`:
// steps a scene headless and prints a summary block in the spirit of MuJoCo's
// testspeed. Exit codes: 0 done, 1 bad input, 3 diverged, 128 + signal when
// interrupted by SIGINT or SIGTERM (summary printed, partial record removed).
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <loopsim/model/errors.hpp>
#include "input_file.hpp"
#include "interrupt_guard.hpp"
#include "list_values.hpp"
#include "number_checks.hpp"
#include "progress_bar.hpp"
#include <loopsim/record/recorder.hpp>
#include <loopsim/solvers/registry.hpp>
#include <loopsim/scene/model_scene.hpp>
#include <loopsim/scene/run_length.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/energy_watch.hpp>
#include <loopsim/sim/position_range_monitor.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/sim/velocity_limit_monitor.hpp>
#include "sim_commands.hpp"

namespace loopsim::app {

namespace {

struct RunOptions {
  std::string scene_file;
  std::string solver;
  std::string mu;  // a positive number or "auto"; empty: the scene's
  std::optional<double> duration, dt;
  bool quiet = false;
  std::string record;
  bool overwrite = false;
  long record_every = 1;
  std::vector<std::string> record_columns;
  bool floating = false;   // a URDF's root joint free
  bool no_ground = false;  // no ground plane under a floating-base model file
};

// The limits watched over the run: position ranges (simulated unless the
// scene turns them off: then beyond their slop only) and velocity limits
// (not simulated).
struct LimitMonitors {
  PositionRangeMonitor ranges;
  VelocityLimitMonitor velocities;
  std::string range_note;  // why a joint can leave its range

  explicit LimitMonitors(const Simulation& sim)
      : ranges(sim.model(), sim.jointLimitsOn() ? sim.unilateralStep()->settings().slop : 0.0),
        velocities(sim.model()),
        range_note(sim.jointLimitsOn() ? "beyond the slop of the simulated limits" : "joint_limits: false") {}

  // Warns once per joint, the first time it leaves a limit.
  void check(const Simulation& sim) {
    for (const int joint : ranges.check(sim.time(), sim.q())) {
      spdlog::warn("joint '{}' left its position range at t = {:.6g} s ({}; reported once per joint, and in the summary)",
                   sim.model().joint_names[joint], sim.time(), range_note);
    }
    for (const int joint : velocities.check(sim.time(), sim.v())) {
      spdlog::warn("joint '{}' exceeded its velocity limit at t = {:.6g} s (velocity limits are not simulated; "
                   "reported once per joint, and in the summary)",
                   sim.model().joint_names[joint], sim.time());
    }
  }

  LimitExcursions excursions() const { return {ranges.excursions(), velocities.excursions()}; }
};

// What the model's limits did to the run: effort saturation (the controller
// clamps), position ranges and velocity limits (not simulated yet: reported).
void printLimits(const Simulation& sim, const LimitMonitors& limits, std::FILE* out) {
  const Model& model = sim.model();
  const Controller& controller = sim.controller();
  if (controller.saturatedCalls() == 0) {
    std::fprintf(out, " Effort saturation  : none\n");
  } else {
    std::string joints;
    const auto& per_dof = controller.saturatedCallsPerDof();
    for (int i = 0; i < model.nv; ++i) {
      if (per_dof[static_cast<std::size_t>(i)] == 0) continue;
      joints += (joints.empty() ? "" : ", ") + model.joint_names[model.dof_joint[i]] + " " +
                std::to_string(per_dof[static_cast<std::size_t>(i)]);
    }
    std::fprintf(out, " Effort saturation  : %ld of %ld steps clamped at the effort limit (%s)\n",
                 controller.saturatedCalls(), sim.stepCount(), joints.c_str());
  }
  if (sim.jointLimitsOn()) {
    const JointLimitTotals& t = sim.jointLimitTotals();
    if (t.steps_at_bound == 0) {
      std::fprintf(out, " Joint limits       : %zu limited dofs, no bound reached\n", sim.unilateralStep()->dofs().size());
    } else {
      std::fprintf(out,
                   " Joint limits       : a bound reached in %ld of %ld steps (up to %d at once); worst residual %.3g, "
                   "at most %d iterations, %ld unconverged\n",
                   t.steps_at_bound, sim.stepCount(), t.most_rows, t.worst_residual, t.most_iterations, t.unconverged);
    }
  } else if (!sim.scene().joint_limits.enabled) {
    std::fprintf(out, " Joint limits       : off (joint_limits: false)\n");
  }
  if (sim.scene().geometry) {
    const ContactTotals& t = sim.contactTotals();
    const UnilateralStep& step = *sim.unilateralStep();
    if (t.steps_in_contact == 0) {
      std::fprintf(out, " Contacts           : none (%s)\n", contactSolverName(step.solverKind()));
    } else {
      // The worst of the three residuals (primal, dual feasibility, complementarity) over every solve.
      std::fprintf(out,
                   " Contacts           : in %ld of %ld steps (up to %d at once); %s, worst residual %.3g, "
                   "at most %d iterations, %ld unconverged (tolerance %.3g)\n",
                   t.steps_in_contact, sim.stepCount(), t.most_contacts, contactSolverName(step.solverKind()),
                   t.worst_residual, t.most_iterations, t.unconverged, step.solverSettings().tolerance);
    }
  }
  const auto excursions = limits.ranges.excursions();
  std::fprintf(out, " Position ranges    : %s\n",
               excursions.empty() ? "every joint stayed in its range"
                                  : (std::to_string(excursions.size()) + " joint" + (excursions.size() == 1 ? "" : "s") +
                                     " left the range (" + limits.range_note + ")")
                                        .c_str());
  for (const auto& e : excursions) std::fprintf(out, "   %s\n", describeExcursion(model, e).c_str());
  const auto fast = limits.velocities.excursions();
  const std::string velocity_line =
      limits.velocities.watchedJoints() == 0 ? "no joint has one"
      : fast.empty()                         ? "every joint stayed within its limit"
                                             : std::to_string(fast.size()) + " joint" + (fast.size() == 1 ? "" : "s") +
                                                   " exceeded the limit (velocity limits are not simulated)";
  std::fprintf(out, " Velocity limits    : %s\n", velocity_line.c_str());
  for (const auto& e : fast) std::fprintf(out, "   %s\n", describeExcursion(model, e).c_str());
}

// The same summary for every outcome (completed or diverged).
void printSummary(Simulation& sim, std::FILE* out) {
  const RunSummary s = sim.summary();
  const Scene& scene = sim.scene();
  const EnergyTerms& e = s.energy;
  std::fprintf(out, "\n Simulation summary: %s (solver %s, dt %g s, T %g s, projection %s)\n\n", scene.name.c_str(),
               scene.solver.c_str(), scene.dt, scene.time_constant, scene.projection ? "on" : "off");
  const SolverBinding& binding = sim.solverBinding();
  // What `auto` resolved to, and why (solver_binding.hpp).
  if (binding.selection) std::fprintf(out, " %s\n", binding.solverLine().c_str());
  if (binding.auto_mu) {
    std::fprintf(out, " %s; iterations median %g / max %d\n", binding.muLine().c_str(), s.median_iterations,
                 s.max_iterations);
  }
  if (binding.selection || binding.auto_mu) std::fprintf(out, "\n");
  std::fprintf(out, " Steps              : %ld\n", s.steps);
  std::fprintf(out, " Simulated time     : %.6g s\n", s.simulated_time);
  std::fprintf(out, " Wall time (steps)  : %.6g s\n", s.wall_time);
  std::fprintf(out, " Steps per second   : %.0f\n", s.steps_per_second);
  std::fprintf(out, " Realtime factor    : %.2f x\n", s.realtime_factor);
  std::fprintf(out, " Median step        : %.2f us\n", s.median_step_us);
  // A joint-space solver after the post-step projection finds M, J and Λ
  // already evaluated at its q (ConstraintProjector::shareTerms): say so, or
  // the two medians would read as a step costing several solves.
  const bool shared = scene.projection && sim.constraints().dimension() > 0 &&
                      sim.solver().sharedProjectionTerms() != nullptr;
  std::fprintf(out, " Median solve       : %.2f us%s\n", s.median_solve_us,
               shared ? " (M, J and the Delassus matrix from the previous step's projection)" : "");
  std::fprintf(out, " Iterations / step  : %.2f mean, %g median, %d max (unconverged solves: %ld)\n", s.mean_iterations,
               s.median_iterations, s.max_iterations, s.unconverged_solves);
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

void printSummary(Simulation& sim, const LimitMonitors& limits, std::FILE* out) {
  printSummary(sim, out);
  printLimits(sim, limits, out);
}

std::string commandLine(const RunOptions& o) {
  std::ostringstream os;
  os.precision(17);
  os << "loopsim run " << o.scene_file;
  if (!o.solver.empty()) os << " --solver " << o.solver;
  if (o.floating) os << " --floating";
  if (o.no_ground) os << " --no-ground";
  if (!o.mu.empty()) os << " --mu " << o.mu;
  if (o.duration) os << " --duration " << *o.duration;
  if (o.dt) os << " --dt " << *o.dt;
  if (!o.record.empty()) os << " --record " << o.record;
  if (o.overwrite) os << " --overwrite";
  if (o.record_every != 1) os << " --record-every " << o.record_every;
  if (!o.record_columns.empty()) {
    os << " --record-columns ";
    for (std::size_t k = 0; k < o.record_columns.size(); ++k) os << (k ? "," : "") << o.record_columns[k];
  }
  return os.str();
}

// A scene file, or a model file run as a one-model scene (said on stderr, with
// how to get a scene file to change the defaults, and where a ground was put).
Scene loadRunScene(const RunOptions& o) {
  const InputKind kind = inputKindOf(o.scene_file);
  if (kind == InputKind::Scene) {
    if (o.floating || o.no_ground) {
      throw ModelError(o.scene_file, o.floating ? "--floating" : "--no-ground",
                       "applies to a model file run as a one-model scene; a scene file says it with its keys");
    }
    return loadScene(o.scene_file);
  }
  ModelScene one = loadModelScene(o.scene_file, kind == InputKind::Mjcf ? ModelFormat::mjcf : ModelFormat::urdf,
                                  {.floating_base = o.floating, .ground = !o.no_ground});
  spdlog::info("{} is a model, not a scene: running it as a one-model scene (no controller, dt 1 ms, 10 s); to "
               "change that, save this as a .yaml scene and edit it:\n{}",
               o.scene_file, one.text);
  if (one.lift) {
    std::printf("loopsim: %s floats: put on a ground plane at z = 0, moved up by %.4g m so that its lowest collision "
                "geometry starts %.0f mm above it (--no-ground leaves the ground out)\n",
                o.scene_file.c_str(), *one.lift, kGroundGap * 1e3);
  } else if (!one.ground_note.empty()) {
    std::printf("loopsim: %s floats; no ground plane added: %s\n", o.scene_file.c_str(), one.ground_note.c_str());
  }
  return std::move(one.scene);
}

// `--mu auto` or `--mu 1e6`, checked like the scene's `mu` key.
void applyMuOption(const std::string& text, SolverSettings& settings) {
  if (text == "auto") {
    settings.mu_auto = true;
    return;
  }
  double mu = 0.0;
  try {
    std::size_t used = 0;
    mu = std::stod(text, &used);
    if (used != text.size()) mu = 0.0;
  } catch (const std::exception&) {
    mu = 0.0;
  }
  if (!(mu > 0.0) || !std::isfinite(mu)) {
    throw ModelError("", "--mu", "expected a positive number or 'auto', got '" + text + "'");
  }
  settings.mu = mu;
  settings.mu_auto = false;
}

// After this much wall time the run's length is estimated from the steps so
// far; runs expected to last longer than kLongRun are announced.
constexpr double kEstimateAfterSeconds = 0.5;
constexpr double kLongRunSeconds = 60.0;
// Records beyond this size are announced as a warning (else an info line).
constexpr double kLargeRecordBytes = 100e6;

int runScene(RunOptions o) {
  o.record_columns = splitListValues(o.record_columns);
  if (o.record.empty() && (o.record_every != 1 || !o.record_columns.empty() || o.overwrite)) {
    const char* option = o.record_every != 1 ? "--record-every" : !o.record_columns.empty() ? "--record-columns" : "--overwrite";
    throw ModelError("", option, "applies to --record, which is not given");
  }
  if (o.quiet) spdlog::set_level(spdlog::level::warn);
  Scene scene = loadRunScene(o);
  for (const std::string& w : scene.warnings) spdlog::warn("{}", w);
  if (!o.solver.empty() && o.solver != scene.solver) {
    requireSolver(scene.solverProblem(), o.solver);
    scene.solver = o.solver;
  }
  if (!o.mu.empty()) {
    applyMuOption(o.mu, scene.solver_settings);  // the value's own check first
    // A mu the solver would not read is refused rather than silently ignored
    // (auto hands it to the iterative candidates it probes).
    if (const SolverInfo* info = findSolver(scene.solver); info != nullptr && !info->capabilities.iterative) {
      std::string users;
      for (const SolverInfo& s : solverRegistry()) {
        if (s.capabilities.iterative) users += (users.empty() ? "" : ", ") + s.name;
      }
      const std::string why = info->capabilities.soft ? "a soft solver: its weight is the scene's solver.soft_weight"
                                                      : "a direct solver";
      throw ModelError("", "--mu", "solver " + scene.solver + " does not use mu (" + why +
                                       "); mu is the proximal or augmented-Lagrangian parameter of " + users);
    }
  }
  // The command line is checked exactly like the YAML keys it overrides.
  if (o.dt) scene.dt = *o.dt;
  if (o.duration) scene.duration = *o.duration;
  validateRunLength(scene.dt, scene.duration, o.dt || o.duration ? "" : o.scene_file, o.dt ? "--dt" : "dt",
                    o.duration ? "--duration" : "duration");

  Simulation sim(scene);
  if (!sim.solverBinding().mu_warning.empty()) spdlog::warn("{}", sim.solverBinding().mu_warning);
  std::unique_ptr<SimulationRecorder> recorder;
  const long steps = runStepCount(scene.dt, scene.duration);
  if (!o.record.empty()) {
    recorder = std::make_unique<SimulationRecorder>(sim, o.record, o.overwrite,
                                                    RecordOptions{o.record_every, o.record_columns});
    const double bytes = estimatedRecordBytes(recorder->columns().size(), steps, o.record_every);
    // Said before the run: a record of Digit holds ~50 MB per simulated second.
    const auto level = bytes > kLargeRecordBytes ? spdlog::level::warn : spdlog::level::info;
    spdlog::log(level, "record: about {:.1f} MB ({} columns, {} rows){}", bytes / 1e6, recorder->columns().size(),
                (steps - 1) / o.record_every + 2,
                bytes > kLargeRecordBytes ? "; --record-every N and --record-columns q,v,... make it smaller" : "");
  }

  std::optional<ProgressBar> progress;
  if (!o.quiet && isTerminal(stdout)) progress.emplace(scene.duration, stdout);
  const auto start = std::chrono::steady_clock::now();
  bool estimated = false;
  LimitMonitors limits(sim);
  limits.check(sim);  // the initial state too: a scene may start beyond a limit
  EnergyGrowthWatch energy_watch(sim);
  std::optional<std::string> energy_divergence;
  const InterruptGuard interrupt;
  for (long k = 0; k < steps && interrupt.received() == 0; ++k) {
    const bool ok = recorder ? recorder->step(sim) : sim.step();
    limits.check(sim);
    if (!ok) break;
    if ((energy_divergence = energy_watch.check(sim))) break;
    if (progress) progress->update(sim.time());
    if (!estimated && (k < 64 || (k & 63) == 63)) {  // slow scenes: from the first steps
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (elapsed > kEstimateAfterSeconds) {
        estimated = true;
        const double total = elapsed / static_cast<double>(k + 1) * static_cast<double>(steps);
        if (total > kLongRunSeconds) {
          spdlog::warn("this run will take about {:.0f} s of wall time ({} steps); Ctrl-C stops it cleanly", total,
                       steps);
          // Even with --quiet or without a terminal, a long run shows it is alive (on stderr).
          if (!progress) progress.emplace(scene.duration, stderr);
        }
      }
    }
  }
  sim.checkState();  // the final state's violation, as a further step would check it
  if (progress) progress->finish(sim.time());
  if (const int signal = interrupt.received()) {
    recorder.reset();  // removes the partial record: an interrupted run leaves nothing behind
    printSummary(sim, limits, stdout);
    std::printf(" INTERRUPTED        : by %s at t = %.6g s\n", signalName(signal), sim.time());
    std::fflush(stdout);
    std::fprintf(stderr, "loopsim: run interrupted by %s at t = %.6g s%s\n", signalName(signal), sim.time(),
                 o.record.empty() ? "" : "; the partial record was removed");
    return 128 + signal;  // the shell's convention for a process stopped by a signal
  }
  if (recorder) {
    const LimitExcursions excursions = limits.excursions();
    recorder->finish(sim, commandLine(o), energy_divergence.value_or(""), &excursions);
    spdlog::info("record: {} (summary {})", recorder->csvPath().string(), recorder->summaryPath().string());
  }

  printSummary(sim, limits, stdout);
  if (energy_divergence) {
    std::fflush(stdout);
    std::fprintf(stderr, "loopsim: %s\n", energy_divergence->c_str());
    std::printf(" DIVERGED           : %s\n", energy_divergence->c_str());
    return kExitDiverged;
  }
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
      "Exit codes: 0 finished; 1 invalid scene or options; 3 diverged (NaN or Inf in q or v, a constraint "
      "violation beyond 0.1 m or rad, or kinetic energy multiplied by 100 or more within a few steps): the summary up to that point is printed with the degree of freedom and the "
      "time; 130 or 143 interrupted by SIGINT or SIGTERM (the summary up to then is printed and a partial record "
      "removed).");
  run->add_option("scene", options->scene_file, "Scene file (.yaml), or a model (.urdf, MJCF .xml) run as a one-model scene")
      ->required();
  run->add_option("--solver", options->solver, "Solver name (see `loopsim solvers`); default: the scene's");
  run->add_option("--mu", options->mu,
                  "Proximal / augmented-Lagrangian mu: a positive number, or auto, estimated at the start: 3e3 · "
                  "λ_max((J M⁻¹ Jᵀ)⁺) capped at 1e4 · λ_max(M) for lcaba and constrained-aba (their default), 1e6 · "
                  "λ_max(M) for the proximal solvers; default: the scene's");
  run->add_option("--duration", options->duration, "Simulated time in seconds; default: the scene's");
  run->add_option("--dt", options->dt, "Time step in seconds; default: the scene's");
  run->add_flag("--quiet", options->quiet, "No progress bar and no info logs (the summary is still printed)");
  run->add_option("--record", options->record, "Write a CSV record of every step (and a JSON summary beside it)");
  run->add_flag("--overwrite", options->overwrite, "Allow --record to replace an existing record (regular files only)");
  run->add_option("--record-every", options->record_every, "Write every Nth step's row (the final state always)")
      ->check(wholeNumberAtLeastOneCheck());
  run->add_option("--record-columns", options->record_columns,
                  "Column groups to record, separated by commas or spaces: q, v, tau, vdot, lambda, perturbation, stats, timing "
                  "(t always; default: all, as the GUI's records; perturbation holds the GUI's mouse forces, 0 in a run)");
  run->add_flag("--floating", options->floating, "A URDF model file: give its root link a free joint (it then lands on a ground)");
  run->add_flag("--no-ground", options->no_ground,
                "A floating-base model file: no ground plane under it (by default one is put 5 mm under its feet)");
  return {run, [options] { return runScene(*options); }};
}

}  // namespace loopsim::app
