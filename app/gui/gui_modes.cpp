#include "gui/gui_modes.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>

#include <loopsim/model/errors.hpp>
#include <loopsim/scene/run_length.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/selection/solver_check.hpp>

namespace loopsim::app {

namespace fs = std::filesystem;

void GuiModes::openCommandLine() {
  const GuiOptions& options = context_.options;
  GuiState& state = context_.state;
  if (!options.scene.empty()) open(options.scene, /*from_command_line=*/true);
  const bool times_ok = !live_ || checkScheduledTimes();
  if (live_) {
    // The joint a --set-joint or --set-control names (0, said and counted as a failed change, when none).
    const auto scriptedJoint = [&](const char* option, const std::string& name) {
      const int joint = live_->session().simulation().model().jointId(name);
      if (joint >= 1) return joint;
      state.error = std::string(option) + ": no joint '" + name + "' in the model";
      spdlog::error("{}", state.error);
      context_.failures.change = true;
      return 0;
    };
    // --set-joint and --set-control: the sliders' actions, scripted, before the first step.
    for (const auto& [name, value] : options.set_joints) {
      if (const int joint = scriptedJoint("--set-joint", name)) {
        const bool running = state.running;
        state.running = false;
        live_->setJoint(joint, value);
        state.running = running;
      }
    }
    for (const auto& [name, value] : options.set_controls) {
      if (const int joint = scriptedJoint("--set-control", name)) live_->setControl(joint, value);
    }
  }
  if (!options.play.empty()) {
    openRecords(options.play);
    if (playback_ && options.seek) playback_->pauseAt(*options.seek);
  }
  if (!live_ || options.compare.empty() || !times_ok) return;
  if (!options.compare_from) {
    startComparison(/*from_shown_state=*/false);
    return;
  }
  // The simulation to T first (its solver, switches and perturbation), then every compared solver from there.
  live_->stepWithSwitches(live_->session().stepsFor(*options.compare_from), std::nullopt);
  live_->session().updateKinematics();
  const Simulation& sim = live_->session().simulation();
  if (sim.diverged()) {
    state.error = "Cannot compare from t = " + std::to_string(*options.compare_from) + " s: " + sim.divergence()->message();
    spdlog::error("{}", state.error);
    context_.failures.compare = true;
  } else {
    startComparison(/*from_shown_state=*/true);
  }
}

bool GuiModes::checkScheduledTimes() {
  // At the scene's dt: a time more steps ahead than a run may take (or not a
  // time) is refused as `run` refuses such a duration, in the window and by the exit code.
  const GuiOptions& options = context_.options;
  const double dt = live_->session().simulation().scene().dt;
  try {
    for (const auto& [time, name] : options.solver_switches) (void)scheduledStep(time, dt, "--switch-solver");
    for (const auto& change : options.stabilization_changes) (void)scheduledStep(change.time, dt, "--set-stabilization");
    if (options.compare_from) (void)scheduledStep(*options.compare_from, dt, "--compare-from");
  } catch (const ModelError& e) {
    context_.state.error = e.what();
    spdlog::error("{}", e.what());
    context_.failures.change = true;
    return false;
  }
  return true;
}

GuiMode* GuiModes::shown() const {
  if (playback_) return playback_.get();
  if (comparison_) return comparison_.get();
  return live_.get();
}

void GuiModes::open(const std::string& path, bool from_command_line, bool keep_camera, std::optional<Scene> loaded) {
  const GuiOptions& options = context_.options;
  GuiState& state = context_.state;
  try {
    Scene scene = loaded ? std::move(*loaded) : loadSceneOrModel(path, options.model_file);
    if (from_command_line && !options.solver.empty() && options.solver != scene.solver) {
      requireSolver(scene.solverProblem(), options.solver);
      scene.solver = options.solver;
    }
    auto live = std::make_unique<LiveSessionMode>(context_, std::move(scene), fs::path(path));
    if (live_) live_->finishRecording();
    comparison_.reset();
    state.comparing = false;
    closeRecords();
    if (from_command_line && !options.record.empty()) live->startRecording();
    const std::vector<std::string>& warnings = live->modelView().warnings();
    for (const std::string& warning : warnings) spdlog::warn("{}", warning);
    live_ = std::move(live);
    const Simulation& sim = live_->session().simulation();
    context_.perturbation.attach(sim.model());
    if (from_command_line && !options.perturb_body.empty()) {
      const int body = sim.model().bodyId(options.perturb_body);
      context_.perturbation.setScriptedBody(body);
      if (body <= 0) throw ModelError(path, "--perturb", "no moving body '" + options.perturb_body + "' in the model");
    }
    state.settings = sim.scene().solver_settings;  // μ resolved; the checkbox keeps asking for auto
    state.settings.mu_auto = sim.solverBinding().mu_auto;
    if (sim.solverBinding().mu_default) state.settings.mu.reset();  // each solver's default again on a switch
    if (!sim.solverBinding().mu_warning.empty()) spdlog::warn("{}", sim.solverBinding().mu_warning);
    state.time_constant = sim.scene().time_constant;
    state.projection = sim.scene().projection;
    state.history_seconds = live_->session().historySeconds();
    state.open_path = path;
    state.error.clear();
    state.warning.clear();
    for (const std::string& warning : sim.startWarnings()) {
      state.warning += (state.warning.empty() ? "The start of this scene warns:\n- " : "\n- ") + warning;
    }
    state.divergence.clear();
    state.selected_body = -1;
    state.follow = false;
    spdlog::info("opened {} ({}, solver {})", path, sim.scene().name, sim.scene().solver);
    state.say("opened " + path + (warnings.empty() ? "" : " (" + std::to_string(warnings.size()) + " warnings: see the log)"));
    state.scene_index = -1;
    for (std::size_t k = 0; k < state.scene_files.size(); ++k) {
      std::error_code ec;
      if (fs::equivalent(state.scene_files[k], path, ec)) state.scene_index = static_cast<int>(k);
    }
    context_.failures.load = false;
    if (!keep_camera) context_.reset_camera();
    window_.setTitle("loopsim - " + sim.scene().name + " (" + sim.scene().solver + ")");
  } catch (const std::exception& e) {
    state.error = std::string("Cannot open ") + path + ":\n" + e.what();
    spdlog::error("cannot open {}: {}", path, e.what());
    context_.failures.load = true;
  }
}

void GuiModes::openRecords(const std::vector<std::string>& files) {
  GuiState& state = context_.state;
  std::unique_ptr<RecordTimeline> timeline;
  try {
    timeline = std::make_unique<RecordTimeline>(std::vector<fs::path>(files.begin(), files.end()));
  } catch (const std::exception& e) {
    state.error = "Cannot open the record:\n" + std::string(e.what());
    spdlog::error("cannot open the record: {}", e.what());
    context_.failures.load = true;
    return;
  }
  // The record's own scene (from its summary) gives the model to draw; the simulation waits.
  open(files.front(), false, false, timeline->run(0).scene());
  if (context_.failures.load) return;
  state.timeline = true;
  state.record_path = files.front();
  state.overlay_record_path = files.size() > 1 ? files[1] : "";
  state.say("record " + files.front() + (files.size() > 1 ? " with " + files[1] + " overlaid" : std::string()) + " on the timeline");
  spdlog::info("timeline: {} rows of {}{}", timeline->run(0).rows(), files.front(),
               files.size() > 1 ? " (overlay: " + files[1] + ")" : std::string());
  timeline->updateKinematics();
  playback_ = std::make_unique<RecordPlaybackMode>(context_, *live_, std::move(timeline));
}

void GuiModes::closeRecords() {
  playback_.reset();
  context_.state.timeline = false;
}

bool GuiModes::startComparison(bool from_shown_state) {
  std::unique_ptr<ComparisonMode> comparison = ComparisonMode::start(context_, *live_, from_shown_state);
  if (!comparison) return false;
  comparison_ = std::move(comparison);
  context_.reset_camera();  // framing the solvers too (side by side, they spread across the view)
  return true;
}

void GuiModes::stopComparison() {
  comparison_.reset();
  context_.state.comparing = false;
  if (live_) live_->catchUp();
  context_.state.say("comparison stopped");
  context_.reset_camera();
  context_.logEvent("comparison stopped; the simulation waits at " + shown()->whereNow());
}

}  // namespace loopsim::app
