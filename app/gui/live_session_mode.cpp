#include "gui/live_session_mode.hpp"

#include <GLFW/glfw3.h>
#include <spdlog/fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <limits>

#include "gui/overlays.hpp"
#include <loopsim/model/errors.hpp>
#include <loopsim/model/number_text.hpp>

namespace loopsim::app {

LiveSessionMode::LiveSessionMode(GuiContext& context, Scene scene, const std::filesystem::path& file)
    : context_(context),
      session_(std::make_unique<SimulationSession>(std::move(scene), file, 600, context.options.history_seconds)),
      view_(std::make_unique<render::ModelView>(session_->simulation().model(), context.renderer, context.meshes)),
      target_time_(session_->simulation().time()) {
  session_->before_step = [&perturbation = context_.perturbation](Simulation& simulation) { perturbation.beforeStep(simulation); };
}

void LiveSessionMode::startRecording() {
  session_->startRecording(context_.options.record, context_.options.overwrite);
  recording_ = true;
}

void LiveSessionMode::finishRecording() {
  if (!recording_) return;
  session_->finishRecording(context_.options.command_line);
  recording_ = false;
  spdlog::info("record: {}", context_.options.record);
}

bool LiveSessionMode::discardRecording() {
  if (!recording_) return false;
  session_->discardRecording();
  recording_ = false;
  return true;
}

void LiveSessionMode::onKeys(const KeyPresses& keys, GuiRequests& requests) {
  simulationKeys(keys, session_->viewingPast(), requests);
  if (keys.pressed(GLFW_KEY_C) && !keys.ctrlPressed(GLFW_KEY_C)) requests.compare_from_here = true;
}

void LiveSessionMode::showHistory(long delta, std::optional<std::size_t> index) {
  context_.state.running = false;  // looking at the past pauses
  if (index) session_->viewIndex(*index);
  session_->moveView(delta);
  target_time_ = session_->simulation().time();
  context_.logEvent(fmt::format("shows t = {:.6g} s", session_->shownTime()));
}

void LiveSessionMode::resumeFromView() {
  if (!session_->viewingPast()) return;
  if (recording_) {
    // A record is one run: it ends where the run leaves its course.
    const double t = session_->simulation().time();
    finishRecording();
    context_.state.say("record " + context_.options.record + " ended at t = " + std::to_string(t) + " s (resumed from a past state)");
    spdlog::info("record {} ended at t = {} s (resumed from a past state)", context_.options.record, t);
  }
  session_->resumeFromView();
  const Simulation& sim = session_->simulation();
  spdlog::info("resumed from t = {} s (step {}); the later states were dropped", sim.time(), sim.stepCount());
  target_time_ = sim.time();
  context_.state.divergence.clear();
  divergence_reported_ = false;
}

void LiveSessionMode::setJoint(int joint, double value) {
  GuiState& state = context_.state;
  if (state.running || session_->viewingPast()) return;
  const Model& model = session_->simulation().model();
  const std::string name = joint >= 1 && joint <= model.njoints() ? model.joint_names[static_cast<std::size_t>(joint)] : "?";
  try {
    if (recording_) {
      // A record is one run: an edited state is not a step of it.
      finishRecording();
      spdlog::info("record {} ended at t = {} s (a joint was set)", context_.options.record, session_->simulation().time());
    }
    session_->setJointPosition(joint, value);
    // The whole q as set: the slider's joint and the ones the loops made follow (full precision).
    const VectorX& q = session_->simulation().q();
    spdlog::info("joint '{}' set to {} at t = {} s; position violation {:.3e}; q = {:.17g}", name, value,
                 session_->simulation().time(), session_->simulation().positionViolation(),
                 fmt::join(q.data(), q.data() + q.size(), " "));
    state.divergence.clear();
    divergence_reported_ = false;
    state.say("joint " + name + " set; the energy balance restarts at this pose");
  } catch (const std::exception& e) {
    state.error = "Cannot set joint " + name + " to " + std::to_string(value) + ":\n" + e.what();
    spdlog::error("cannot set joint {} to {}: {}", name, value, e.what());
    context_.failures.change = true;  // a --frames run then exits 1
  }
}

void LiveSessionMode::setControl(int joint, double value) {
  GuiState& state = context_.state;
  const Model& model = session_->simulation().model();
  const std::string name = joint >= 1 && joint <= model.njoints() ? model.joint_names[static_cast<std::size_t>(joint)] : "?";
  try {
    if (recording_) {
      throw ModelError(session_->file().string(), "control '" + name + "'",
                       "a record in progress replays the scene's controller, which a new target would change (finish it first)");
    }
    session_->setControlTarget(joint, value);
    spdlog::info("control '{}' target {} from t = {} s", name, value, session_->simulation().time());
    state.say("control " + name + ": target " + numberText(value) + " from t = " + numberText(session_->simulation().time()) + " s");
  } catch (const std::exception& e) {
    state.error = "Cannot set the target of " + name + " to " + numberText(value) + ":\n" + e.what();
    spdlog::error("cannot set the target of {} to {}: {}", name, value, e.what());
    context_.failures.change = true;  // a --frames run then exits 1
  }
}

void LiveSessionMode::saveKeyframe() {
  const std::size_t index = session_->saveKeyframe();
  context_.state.keyframe_index = static_cast<int>(index);
  const std::string what = fmt::format("keyframe {} saved at t = {} s", index + 1, session_->simulation().time());
  spdlog::info("{}", what);
  context_.logEvent(what);
  context_.state.say(what);
}

void LiveSessionMode::loadKeyframe(std::size_t index) {
  GuiState& state = context_.state;
  try {
    if (recording_) {
      finishRecording();
      spdlog::info("record {} ended at t = {} s (a keyframe was loaded)", context_.options.record, session_->simulation().time());
    }
    session_->loadKeyframe(index);
    state.running = false;
    state.divergence.clear();
    divergence_reported_ = false;
    target_time_ = session_->simulation().time();
    const std::string what = fmt::format("keyframe {} loaded: t = {} s", index + 1, session_->simulation().time());
    spdlog::info("{}", what);
    context_.logEvent(what);
    state.say(what + " (paused)");
  } catch (const std::exception& e) {
    state.error = fmt::format("Cannot load keyframe {}:\n{}", index + 1, e.what());
    spdlog::error("cannot load keyframe {}: {}", index + 1, e.what());
  }
}

void LiveSessionMode::setStabilization(double time_constant, bool projection) {
  GuiState& state = context_.state;
  // The panel shows what is in force, and a comparison started later takes it.
  state.time_constant = time_constant;
  state.projection = projection;
  try {
    session_->simulation().setStabilization(time_constant, projection);
    session_->sceneForReset().time_constant = time_constant;  // a reset keeps them
    session_->sceneForReset().projection = projection;
    spdlog::info("stabilization: T = {} s, projection {} from t = {} s (step {})", time_constant, projection ? "on" : "off",
                 session_->simulation().time(), session_->simulation().stepCount());
    state.say("Baumgarte T = " + std::to_string(time_constant) + " s, projection " + (projection ? "on" : "off") +
              " from t = " + std::to_string(session_->simulation().time()) + " s");
  } catch (const std::exception& e) {
    state.error = std::string("Cannot change the stabilization:\n") + e.what();
    spdlog::error("cannot change the stabilization: {}", e.what());
    context_.failures.change = true;
  }
}

void LiveSessionMode::reset() {
  GuiState& state = context_.state;
  finishRecording();
  Scene& scene = session_->sceneForReset();
  scene.time_constant = state.time_constant;
  scene.projection = state.projection;
  try {
    session_->reset();
    state.say("reset");
  } catch (const std::exception& e) {
    state.error = std::string("Cannot reset with these settings:\n") + e.what();
  }
  state.divergence.clear();
  divergence_reported_ = false;  // a kept diverged simulation is reported again
  target_time_ = session_->simulation().time();  // 0, or where the kept simulation is when the reset failed
  context_.logEvent("reset to " + whereNow());
}

void LiveSessionMode::step() {
  stepWithSwitches(session_->simulation().stepCount() + 1, std::nullopt);
  target_time_ = session_->simulation().time();
  context_.logEvent("step to " + whereNow());
}

void LiveSessionMode::stepWithSwitches(long target_steps, std::optional<Clock::time_point> deadline) {
  const GuiOptions& options = context_.options;
  ScriptProgress& script = context_.script;
  // --set-stabilization: the panel's live change at its time (before a solver switch at the same step).
  auto nextStabilization = [&] {
    return script.next_stabilization < options.stabilization_changes.size()
               ? session_->stepsFor(options.stabilization_changes[script.next_stabilization].time)
               : std::numeric_limits<long>::max();
  };
  while (nextStabilization() <= target_steps &&
         (script.next_switch >= options.solver_switches.size() ||
          nextStabilization() <= session_->stepsFor(options.solver_switches[script.next_switch].first))) {
    const long at = nextStabilization();
    session_->advanceTo(at, deadline);
    if (session_->simulation().stepCount() < at) return;  // diverged or out of time
    const auto& change = options.stabilization_changes[script.next_stabilization++];
    setStabilization(change.time_constant, change.projection);
  }
  while (script.next_switch < options.solver_switches.size()) {
    const auto& [time, name] = options.solver_switches[script.next_switch];
    const long at = session_->stepsFor(time);
    if (at > target_steps) break;
    session_->advanceTo(at, deadline);
    if (session_->simulation().stepCount() < at) return;  // diverged or out of time
    try {
      if (ContactSolverKind kind; parseContactSolver(name, kind)) {
        session_->setContactSolver(kind);
        spdlog::info("contact solver {} from t = {} s (step {})", name, session_->simulation().time(), at);
        context_.state.say("contact solver " + name + " from t = " + std::to_string(session_->simulation().time()) + " s");
        ++script.next_switch;
        continue;
      }
      SolverSettings settings = session_->simulation().scene().solver_settings;
      settings.mu_auto = session_->simulation().solverBinding().mu_auto;  // mu: auto resolves for the new solver
      if (session_->simulation().solverBinding().mu_default) settings.mu.reset();  // and so does the default μ
      session_->setSolver(name, settings);
      const std::string& mu_warning = session_->simulation().solverBinding().mu_warning;
      if (!mu_warning.empty()) spdlog::warn("{}", mu_warning);
      spdlog::info("solver {} from t = {} s (step {})", name, session_->simulation().time(), at);
      context_.state.say("solver " + name + " from t = " + std::to_string(session_->simulation().time()) + " s");
    } catch (const std::exception& e) {
      context_.state.error = "Cannot switch to " + name + ":\n" + e.what();
      spdlog::error("cannot switch to {}: {}", name, e.what());
      context_.failures.change = true;
    }
    ++script.next_switch;
  }
  session_->advanceTo(target_steps, deadline);
}

void LiveSessionMode::advance(const FrameBudget& budget) {
  const GuiState& state = context_.state;
  if (state.running && session_->viewingPast()) resumeFromView();  // running from a past state resumes there
  Simulation& sim = session_->simulation();
  if (!state.running || sim.diverged()) {
    target_time_ = sim.time();
    return;
  }
  // A --frames run advances exactly 1/60 s per frame; interactively, the wall clock (capped) drives it.
  // Either way the steps are whole steps of the scene's dt, the rest of the target carried to the next
  // frame, so what is drawn never changes the trajectory (only which of its states are drawn).
  target_time_ += state.speed() * budget.advance;
  const long target = session_->stepsFor(target_time_);
  stepWithSwitches(target, budget.deadline());
  if (sim.stepCount() < target && !sim.diverged()) target_time_ = sim.time();  // fell behind: no debt
  session_->sampleFrame();
}

namespace {
// How far (m) a body may be from where the kept history starts and still count as sane.
constexpr double kSaneTravel = 5.0;
}  // namespace

void LiveSessionMode::afterAdvance() {
  if (session_->simulation().diverged() && !divergence_reported_) {
    const Divergence& d = *session_->simulation().divergence();
    context_.state.divergence = d.message();
    context_.state.divergence_dismissed = false;
    context_.state.running = false;
    divergence_reported_ = true;
    spdlog::error("{}", d.message());
    // The offending body (red) has usually flown off: look at its last sane place instead.
    const int body = session_->simulation().model().jointId(d.joint);  // joint i moves body i
    if (const std::optional<Eigen::Vector3d> place = session_->lastSaneBodyPosition(body, kSaneTravel)) {
      context_.state.follow = false;
      context_.look_at(place->cast<float>());
    }
  }
  session_->updateKinematics();
}

void LiveSessionMode::drawScene(float model_scale) {
  GuiState& state = context_.state;
  render::ModelStyle style;
  style.wireframe = state.toggles.wireframe;
  style.alpha_scale = state.toggles.transparent ? 0.35f : 1.0f;
  if (session_->simulation().diverged()) {
    const int joint = session_->simulation().model().jointId(session_->simulation().divergence()->joint);
    style.highlighted_body = joint;  // joint i moves body i
  }
  if (state.toggles.collision != CollisionDisplay::instead_of_visuals) {
    view_->draw(context_.renderer, session_->bodyPoses(), style);
  }
  if (state.toggles.collision != CollisionDisplay::off) drawCollisionGeometry(context_.renderer, *session_);
  state.force_scale = drawOverlays(context_.renderer, *session_, state.toggles, model_scale);
  if (state.selected_body > 0) {
    const Eigen::Matrix4f pose = session_->bodyPoses()[static_cast<std::size_t>(state.selected_body)];
    context_.renderer.drawFrame(pose, 0.15f * model_scale);
  }
}

std::string LiveSessionMode::whereNow() const {
  return fmt::format("t = {:.6g} s (step {})", session_->simulation().time(), session_->simulation().stepCount());
}

bool LiveSessionMode::viewBounds(Eigen::Vector3f& lo, Eigen::Vector3f& hi) const {
  return view_->bounds(session_->bodyPoses(), lo, hi);
}

}  // namespace loopsim::app
