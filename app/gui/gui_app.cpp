#include "gui/gui_app.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <vector>

#include <spdlog/fmt/ranges.h>

#include "gui/comparison_view.hpp"
#include "gui/overlays.hpp"
#include "gui/perturbation_input.hpp"
#include "gui/record_timeline.hpp"
#include "gui/panels.hpp"
#include "gui/scripted_run_report.hpp"
#include "gui/sim_session.hpp"
#include <loopsim/model/errors.hpp>
#include "render/camera.hpp"
#include "render/mesh_files.hpp"
#include "render/model_view.hpp"
#include "render/renderer.hpp"
#include "render/screenshot.hpp"
#include <loopsim/scene/scene_loader.hpp>
#include "render/window.hpp"

namespace loopsim::app {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kFramePeriod = 1.0 / 60.0;  // simulated time per rendered frame (at speed 1) in a scripted run
// Interactively the wall clock since the last frame drives physics, at most this much per frame
// and this long stepping in it: a slow frame never starts a spiral of ever longer frames.
constexpr double kMaxFrameAdvance = 0.1;
constexpr auto kMaxStepping = std::chrono::milliseconds(40);

// Files dropped on the window since the last frame (GLFW calls back during polling).
std::vector<std::string>& droppedFiles() {
  static std::vector<std::string> files;
  return files;
}

void onDrop(GLFWwindow*, int count, const char** paths) {
  for (int k = 0; k < count; ++k) droppedFiles().emplace_back(paths[k]);
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

class GuiApp {
 public:
  GuiApp(const GuiOptions& options, render::Window& window, render::Renderer& renderer)
      : options_(options), window_(window), renderer_(renderer) {
    glfwSetDropCallback(window_.handle(), onDrop);
    state_.show_ui = !options.hide_ui;
    state_.toggles = options.toggles;
    state_.show_help = options.show_help;
    state_.running = !options.paused;
    const fs::path scenes_dir = fs::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes";
    state_.scene_files = sceneFilesIn(scenes_dir);
    state_.compare_solvers = options.compare;
    state_.compare_reference = options.compare_reference;
    state_.compare_side_by_side = options.compare_side_by_side;
    if (!options.tick_compare.empty()) state_.compare_solvers = options.tick_compare;
    state_.widgets.setEnabled(options.log_widgets);
    if (!options.scene.empty()) open(options.scene, /*from_command_line=*/true);
    if (session_) {
      // --set-joint: the sliders' action, scripted, before the first step.
      for (const auto& [name, value] : options.set_joints) {
        const int joint = session_->simulation().model().jointId(name);
        if (joint < 1) {
          state_.error = "--set-joint: no joint '" + name + "' in the model";
          spdlog::error("{}", state_.error);
          switch_failed_ = true;
          continue;
        }
        const bool running = state_.running;
        state_.running = false;
        setJoint(joint, value);
        state_.running = running;
      }
    }
    if (!options.play.empty()) {
      openRecords(options.play);
      if (timeline_ && options.seek) {
        timeline_->setPlaying(false);
        timeline_->seek(*options.seek);
      }
    }
    if (session_ && !options.compare.empty()) {
      if (options.compare_from) {
        // The simulation to T first (its solver, switches and perturbation), then every compared solver from there.
        stepWithSwitches(session_->stepsFor(*options.compare_from), std::nullopt);
        session_->updateKinematics();
        if (session_->simulation().diverged()) {
          state_.error = "Cannot compare from t = " + std::to_string(*options.compare_from) + " s: " +
                         session_->simulation().divergence()->message();
          spdlog::error("{}", state_.error);
          compare_failed_ = true;
        } else {
          startComparison(/*from_shown_state=*/true);
        }
      } else {
        startComparison();
      }
    }
  }

  int run();

 private:
  void open(const std::string& path, bool from_command_line = false, bool keep_camera = false,
            std::optional<Scene> loaded = std::nullopt);
  void openRecords(const std::vector<std::string>& files);
  void finishRecording();
  void resumeFromView();
  /// A joint slider's change (paused, at the newest state): the session re-projects the loops.
  void setJoint(int joint, double value);
  /// Baumgarte T and projection from the next step on (recorded: the record still replays).
  void setStabilization(double time_constant, bool projection);
  /// Ctrl+drag on the selected body; true while it holds the mouse (the camera stays).
  bool handlePerturbationMouse();
  /// The poses picking and perturbing act on: the reference's when comparing, else the session's.
  std::vector<Eigen::Matrix4f> interactionPoses() const;
  /// The ticked solvers from the scene's start, or from the state the session shows now
  /// (a past one when viewing its history); Backspace restarts from the same state.
  /// Both return false (the error shown) when the ticked list is refused.
  bool startComparison(bool from_shown_state = false);
  bool restartComparison();
  void resumeComparisonFromView();
  void stopComparison();
  /// Where the side-by-side layout puts solver i (zero when overlaid).
  Eigen::Vector3f comparisonOffset(std::size_t solver) const;
  std::vector<Eigen::Matrix4f> comparisonPoses(std::size_t solver) const;
  void resetCamera();
  /// --log-events: one line per UI action (key, button, drop), saying what it did.
  void logEvent(const std::string& what) const {
    if (options_.log_events) spdlog::info("event: {}", what);
  }
  /// "t = T s (step N)" of the simulation (or comparison) shown.
  std::string whereNow() const;
  void handleInput();
  void carryOutRequests();
  void advancePhysics(double wall_dt);
  /// Scripted runs (--frames) advance a fixed simulated time per frame, so that they are reproducible.
  bool fixedPerFrame() const { return options_.frames.has_value() && !options_.wall_clock; }
  /// The simulated time this frame adds (before the slow-motion factor) and the stepping deadline.
  double frameAdvance(double wall_dt) const { return fixedPerFrame() ? kFramePeriod : std::min(wall_dt, kMaxFrameAdvance); }
  std::optional<Clock::time_point> steppingDeadline() const {
    return fixedPerFrame() ? std::nullopt : std::optional(Clock::now() + kMaxStepping);
  }
  void stepWithSwitches(long target_steps, std::optional<Clock::time_point> deadline);
  void advanceComparison(long target_steps, std::optional<Clock::time_point> deadline);
  void checkDivergence();
  void drawScene(int width, int height);
  void drawUi();
  void saveScreenshot(const fs::path& path);
  /// Simulated time of what is shown: the comparison's when comparing, else the session's.
  double shownTime() const {
    if (timeline_) return timeline_->time();
    return comparison_ ? comparison_->shownTime() : session_ ? session_->simulation().time() : 0.0;
  }

  GuiOptions options_;
  render::Window& window_;
  render::Renderer& renderer_;
  render::MeshCache meshes_;
  render::OrbitCamera camera_;
  GuiState state_;
  std::unique_ptr<SimulationSession> session_;
  std::unique_ptr<render::ModelView> model_view_;
  std::unique_ptr<ComparisonView> comparison_;
  std::optional<SimulationSnapshot> comparison_start_;  // the state a comparison started from (none: the scene's start)
  std::unique_ptr<RecordTimeline> timeline_;
  PerturbationInput perturbation_{options_};
  std::vector<render::PixelRect> covered_;  // this frame's opaque panels in framebuffer pixels
  Eigen::Vector3f side_by_side_step_ = Eigen::Vector3f::Zero();  // between neighbours in the side-by-side layout
  bool compare_failed_ = false;  // the --compare list was refused (a --frames run then exits 1)
  float model_scale_ = 1.0f;
  bool recording_ = false;
  bool load_failed_ = false;    // the last open() failed (a --frames run then exits 1)
  bool switch_failed_ = false;  // a --switch-solver was refused (likewise)
  std::size_t next_switch_ = 0;
  std::size_t next_stabilization_ = 0;  // in options_.stabilization_changes
  double sim_target_time_ = 0.0;  // where physics should be after this frame
  bool divergence_reported_ = false;
  bool screenshot_pending_ = false;  // Ctrl+P: saved after this frame's UI is drawn
};

void GuiApp::open(const std::string& path, bool from_command_line, bool keep_camera, std::optional<Scene> loaded) {
  try {
    Scene scene = loaded ? std::move(*loaded) : loadSceneOrModel(path);
    if (from_command_line && !options_.solver.empty() && options_.solver != scene.solver) {
      requireSolver(scene.solverProblem(), options_.solver);
      scene.solver = options_.solver;
    }
    auto session = std::make_unique<SimulationSession>(std::move(scene), fs::path(path), 600, options_.history_seconds);
    auto view = std::make_unique<render::ModelView>(session->simulation().model(), renderer_, meshes_);
    finishRecording();
    comparison_.reset();
    state_.comparing = false;
    timeline_.reset();
    state_.timeline = false;
    if (from_command_line && !options_.record.empty()) {
      session->startRecording(options_.record, options_.overwrite);
      recording_ = true;
    }
    for (const std::string& warning : view->warnings()) spdlog::warn("{}", warning);
    session_ = std::move(session);
    model_view_ = std::move(view);
    perturbation_.attach(session_->simulation().model());
    session_->before_step = [this](Simulation& simulation) { perturbation_.beforeStep(simulation); };
    if (from_command_line && !options_.perturb_body.empty()) {
      const int body = session_->simulation().model().bodyId(options_.perturb_body);
      perturbation_.setScriptedBody(body);
      if (body <= 0) throw ModelError(path, "--perturb", "no moving body '" + options_.perturb_body + "' in the model");
    }
    const Simulation& sim = session_->simulation();
    state_.settings = sim.scene().solver_settings;  // μ resolved; the checkbox keeps asking for auto
    state_.settings.mu_auto = sim.solverBinding().mu_auto;
    if (sim.solverBinding().mu_default) state_.settings.mu.reset();  // each solver's default again on a switch
    if (!sim.solverBinding().mu_warning.empty()) spdlog::warn("{}", sim.solverBinding().mu_warning);
    state_.time_constant = sim.scene().time_constant;
    state_.projection = sim.scene().projection;
    state_.history_seconds = session_->historySeconds();
    state_.open_path = path;
    state_.error.clear();
    state_.divergence.clear();
    state_.selected_body = -1;
    state_.follow = false;
    spdlog::info("opened {} ({}, solver {})", path, sim.scene().name, sim.scene().solver);
    state_.say("opened " + path + (model_view_->warnings().empty() ? "" : " (" + std::to_string(model_view_->warnings().size()) + " warnings: see the log)"));
    state_.scene_index = -1;
    for (std::size_t k = 0; k < state_.scene_files.size(); ++k) {
      std::error_code ec;
      if (fs::equivalent(state_.scene_files[k], path, ec)) state_.scene_index = static_cast<int>(k);
    }
    sim_target_time_ = sim.time();
    divergence_reported_ = false;
    load_failed_ = false;
    if (!keep_camera) resetCamera();
    window_.setTitle("loopsim - " + sim.scene().name + " (" + sim.scene().solver + ")");
  } catch (const std::exception& e) {
    state_.error = std::string("Cannot open ") + path + ":\n" + e.what();
    spdlog::error("cannot open {}: {}", path, e.what());
    load_failed_ = true;
  }
}

void GuiApp::finishRecording() {
  if (!recording_ || !session_) return;
  session_->finishRecording(options_.command_line);
  recording_ = false;
  spdlog::info("record: {}", options_.record);
}

void GuiApp::openRecords(const std::vector<std::string>& files) {
  std::unique_ptr<RecordTimeline> timeline;
  try {
    timeline = std::make_unique<RecordTimeline>(std::vector<fs::path>(files.begin(), files.end()));
  } catch (const std::exception& e) {
    state_.error = "Cannot open the record:\n" + std::string(e.what());
    spdlog::error("cannot open the record: {}", e.what());
    load_failed_ = true;
    return;
  }
  // The record's own scene (from its summary) gives the model to draw; the simulation waits.
  open(files.front(), false, false, timeline->run(0).scene());
  if (load_failed_) return;
  timeline_ = std::move(timeline);
  state_.timeline = true;
  state_.record_path = files.front();
  state_.overlay_record_path = files.size() > 1 ? files[1] : "";
  state_.say("record " + files.front() + (files.size() > 1 ? " with " + files[1] + " overlaid" : std::string()) + " on the timeline");
  spdlog::info("timeline: {} rows of {}{}", timeline_->run(0).rows(), files.front(),
               files.size() > 1 ? " (overlay: " + files[1] + ")" : std::string());
  timeline_->updateKinematics();
}

std::vector<Eigen::Matrix4f> GuiApp::interactionPoses() const {
  if (comparison_) return comparisonPoses(static_cast<std::size_t>(comparison_->comparison().referenceIndex()));
  return session_ ? session_->bodyPoses() : std::vector<Eigen::Matrix4f>{};
}

bool GuiApp::handlePerturbationMouse() {
  const int body = state_.selected_body;
  if (!perturbation_.active() && ImGui::GetIO().KeyCtrl && body > 0 && session_ && !timeline_) {
    const std::vector<Eigen::Matrix4f> poses = interactionPoses();
    if (body < static_cast<int>(poses.size())) {
      perturbation_.grab(session_->simulation().model(), body, poses[static_cast<std::size_t>(body)]);
    }
  }
  return perturbation_.drag(camera_);
}

void GuiApp::resumeFromView() {
  if (!session_ || !session_->viewingPast()) return;
  if (recording_) {
    // A record is one run: it ends where the run leaves its course.
    const double t = session_->simulation().time();
    finishRecording();
    state_.say("record " + options_.record + " ended at t = " + std::to_string(t) + " s (resumed from a past state)");
    spdlog::info("record {} ended at t = {} s (resumed from a past state)", options_.record, t);
  }
  session_->resumeFromView();
  const Simulation& sim = session_->simulation();
  spdlog::info("resumed from t = {} s (step {}); the later states were dropped", sim.time(), sim.stepCount());
  sim_target_time_ = sim.time();
  state_.divergence.clear();
  divergence_reported_ = false;
}

void GuiApp::setJoint(int joint, double value) {
  if (!session_ || comparison_ || timeline_ || state_.running || session_->viewingPast()) return;
  const Model& model = session_->simulation().model();
  const std::string name = joint >= 1 && joint <= model.njoints() ? model.joint_names[static_cast<std::size_t>(joint)] : "?";
  try {
    if (recording_) {
      // A record is one run: an edited state is not a step of it.
      finishRecording();
      spdlog::info("record {} ended at t = {} s (a joint was set)", options_.record, session_->simulation().time());
    }
    session_->setJointPosition(joint, value);
    // The whole q as set: the slider's joint and the ones the loops made follow (full precision).
    const VectorX& q = session_->simulation().q();
    spdlog::info("joint '{}' set to {} at t = {} s; position violation {:.3e}; q = {:.17g}", name, value,
                 session_->simulation().time(), session_->simulation().positionViolation(),
                 fmt::join(q.data(), q.data() + q.size(), " "));
    state_.divergence.clear();
    divergence_reported_ = false;
  } catch (const std::exception& e) {
    state_.error = "Cannot set joint " + name + " to " + std::to_string(value) + ":\n" + e.what();
    spdlog::error("cannot set joint {} to {}: {}", name, value, e.what());
    switch_failed_ = true;  // a --frames run then exits 1
  }
}

void GuiApp::setStabilization(double time_constant, bool projection) {
  if (!session_) return;
  // The panel shows what is in force, and a comparison (re)started later takes it.
  state_.time_constant = time_constant;
  state_.projection = projection;
  if (comparison_) {
    // A running comparison takes the change on its next step, every solver alike (the session waits meanwhile).
    SolverComparison& c = comparison_->comparison();
    try {
      int changed = 0;
      for (ComparedSolver& s : c.solvers()) {
        if (!s.running()) continue;
        s.simulation->setStabilization(time_constant, projection);
        ++changed;
      }
      spdlog::info("compare: stabilization: T = {} s, projection {} from t = {} s (step {}) for {} solvers", time_constant,
                   projection ? "on" : "off", c.time(), c.stepCount(), changed);
      state_.say("comparison: Baumgarte T = " + std::to_string(time_constant) + " s, projection " +
                 (projection ? "on" : "off") + " from t = " + std::to_string(c.time()) + " s");
    } catch (const std::exception& e) {
      state_.error = std::string("Cannot change the comparison's stabilization:\n") + e.what();
      spdlog::error("cannot change the comparison's stabilization: {}", e.what());
      switch_failed_ = true;
    }
    return;
  }
  try {
    session_->simulation().setStabilization(time_constant, projection);
    session_->sceneForReset().time_constant = time_constant;  // a reset keeps them
    session_->sceneForReset().projection = projection;
    spdlog::info("stabilization: T = {} s, projection {} from t = {} s (step {})", time_constant, projection ? "on" : "off",
                 session_->simulation().time(), session_->simulation().stepCount());
    state_.say("Baumgarte T = " + std::to_string(time_constant) + " s, projection " + (projection ? "on" : "off") +
               " from t = " + std::to_string(session_->simulation().time()) + " s");
  } catch (const std::exception& e) {
    state_.error = std::string("Cannot change the stabilization:\n") + e.what();
    spdlog::error("cannot change the stabilization: {}", e.what());
    switch_failed_ = true;
  }
}

bool GuiApp::startComparison(bool from_shown_state) {
  if (!session_) return false;
  comparison_start_.reset();
  if (from_shown_state) {
    SimulationSnapshot start;
    if (session_->viewingPast()) session_->history().get(*session_->viewedIndex(), start);
    else session_->simulation().snapshot(start);
    comparison_start_ = std::move(start);
  }
  return restartComparison();
}

bool GuiApp::restartComparison() {
  // From the scene's start or the kept state, with the settings of the panel (as a reset would use them).
  Scene scene = session_->sceneForReset();
  scene.time_constant = state_.time_constant;
  scene.projection = state_.projection;
  scene.solver_settings = state_.settings;
  try {
    comparison_ = std::make_unique<ComparisonView>(scene, state_.compare_solvers, state_.compare_reference,
                                                   session_->historySeconds(),
                                                   comparison_start_ ? &*comparison_start_ : nullptr);
  } catch (const std::exception& e) {
    state_.error = std::string("Cannot compare these solvers:\n") + e.what();
    spdlog::error("cannot compare {}: {}", fmt::join(state_.compare_solvers, ","), e.what());
    compare_failed_ = true;
    return false;
  }
  state_.comparing = true;
  const SolverComparison& c = comparison_->comparison();
  sim_target_time_ = c.time();
  std::string names;
  for (const ComparedSolver& s : c.solvers()) names += (names.empty() ? "" : ", ") + s.name;
  comparison_->comparison().before_step = [this](std::size_t, Simulation& simulation) { perturbation_.beforeStep(simulation); };
  const std::string from = fmt::format("t = {:.6g} s (step {})", c.time(), c.stepCount());
  state_.say("comparing " + names + " from " + from + " (reference " + c.reference().name + ")");
  spdlog::info("compare: {} from {}, reference {}", names, from, c.reference().name);
  // The side-by-side step: across the view (horizontal), the model's size apart.
  Eigen::Vector3f lo, hi;
  side_by_side_step_.setZero();
  if (model_view_ && model_view_->bounds(comparison_->bodyPoses(0), lo, hi)) {
    Eigen::Vector3f forward = camera_.lookat - camera_.eye();
    Eigen::Vector3f right = forward.cross(Eigen::Vector3f::UnitZ());
    if (right.norm() < 1e-6f) right = Eigen::Vector3f::UnitX();
    right.normalize();
    const Eigen::Vector3f size = hi - lo;
    const float across = std::abs(size.x() * right.x()) + std::abs(size.y() * right.y()) + std::abs(size.z() * right.z());
    side_by_side_step_ = right * (across + 0.25f * size.maxCoeff());
  }
  resetCamera();
  return true;
}

void GuiApp::resumeComparisonFromView() {
  if (!comparison_ || !comparison_->viewingPast()) return;
  comparison_->resumeFromView();
  const SolverComparison& c = comparison_->comparison();
  spdlog::info("compare: resumed all {} solvers from t = {} s (step {}); the later states were dropped", comparison_->size(),
               c.time(), c.stepCount());
  state_.say("comparison resumed from t = " + std::to_string(c.time()) + " s");
  sim_target_time_ = c.time();
}

void GuiApp::stopComparison() {
  comparison_.reset();
  state_.comparing = false;
  if (session_) sim_target_time_ = session_->simulation().time();
  state_.say("comparison stopped");
  resetCamera();
  logEvent("comparison stopped; the simulation waits at " + whereNow());
}

std::string GuiApp::whereNow() const {
  if (comparison_) return fmt::format("t = {:.6g} s (step {})", comparison_->comparison().time(), comparison_->comparison().stepCount());
  if (!session_) return "t = 0 s (nothing open)";
  return fmt::format("t = {:.6g} s (step {})", session_->simulation().time(), session_->simulation().stepCount());
}

Eigen::Vector3f GuiApp::comparisonOffset(std::size_t solver) const {
  if (!comparison_ || !state_.compare_side_by_side) return Eigen::Vector3f::Zero();
  const float centred = static_cast<float>(solver) - 0.5f * static_cast<float>(comparison_->size() - 1);
  return centred * side_by_side_step_;
}

std::vector<Eigen::Matrix4f> GuiApp::comparisonPoses(std::size_t solver) const {
  std::vector<Eigen::Matrix4f> poses = comparison_->bodyPoses(solver);
  const Eigen::Vector3f offset = comparisonOffset(solver);
  for (Eigen::Matrix4f& pose : poses) pose.block<3, 1>(0, 3) += offset;
  return poses;
}

void GuiApp::resetCamera() {
  camera_ = render::OrbitCamera{};
  int width = 1, height = 1;
  window_.framebufferSize(width, height);
  const float aspect = static_cast<float>(std::max(1, width)) / static_cast<float>(std::max(1, height));
  Eigen::Vector3f lo, hi;
  bool framed = model_view_ && model_view_->bounds(session_->bodyPoses(), lo, hi);
  if (framed && comparison_) {
    for (std::size_t i = 0; i < comparison_->size(); ++i) {
      Eigen::Vector3f a, b;
      if (!model_view_->bounds(comparisonPoses(i), a, b)) continue;
      lo = lo.cwiseMin(a);
      hi = hi.cwiseMax(b);
    }
  }
  if (framed) {
    camera_.frame(lo, hi, aspect);
    model_scale_ = std::max(0.1f, (hi - lo).norm());
  }
  if (options_.camera) {
    camera_.azimuth_deg = static_cast<float>((*options_.camera)[0]);
    camera_.elevation_deg = static_cast<float>((*options_.camera)[1]);
    camera_.distance = static_cast<float>((*options_.camera)[2]);
  }
}

void GuiApp::handleInput() {
  const ImGuiIO& io = ImGui::GetIO();
  // Key presses from GLFW's events (Window::keyPressMods), never lost in a slow frame.
  const auto pressed = [this](int key, bool repeat = false) { return window_.keyPressMods(key, repeat) >= 0; };
  const auto ctrl_pressed = [this](int key) {
    const int mods = window_.keyPressMods(key);
    return mods >= 0 && (mods & GLFW_MOD_CONTROL) != 0;
  };
  for (const std::string& file : droppedFiles()) {
    spdlog::info("dropped on the window: {}", file);
    state_.requests.open = file;  // the last one, when several are dropped at once
  }
  droppedFiles().clear();
  if (!io.WantCaptureKeyboard) {
    if (timeline_) {
      if (pressed(GLFW_KEY_SPACE)) timeline_->setPlaying(!timeline_->playing());
      if (pressed(GLFW_KEY_RIGHT, true)) timeline_->stepRows(1);
      if (pressed(GLFW_KEY_LEFT, true)) timeline_->stepRows(-1);
      if (pressed(GLFW_KEY_BACKSPACE)) {
        timeline_->setPlaying(false);
        timeline_->seek(0.0);
      }
    }
    if (pressed(GLFW_KEY_SPACE) && session_ && !timeline_) state_.requests.toggle_running = true;
    // The history keys act on the comparison while one runs, else on the session.
    const bool history_keys = session_ && !timeline_;
    const bool viewing_past = comparison_ ? comparison_->viewingPast() : session_ && session_->viewingPast();
    if (pressed(GLFW_KEY_RIGHT, true)) {
      if (history_keys && viewing_past) state_.requests.view_delta += 1;
      else if (!timeline_) state_.requests.step = true;
    }
    if (pressed(GLFW_KEY_C) && !ctrl_pressed(GLFW_KEY_C) && session_ && !timeline_ && !comparison_) {
      state_.requests.compare_from_here = true;
    }
    if (pressed(GLFW_KEY_LEFT, true) && history_keys) state_.requests.view_delta -= 1;
    if ((pressed(GLFW_KEY_ENTER) || pressed(GLFW_KEY_KP_ENTER)) && history_keys) {
      state_.requests.resume_from_view = true;
    }
    if (pressed(GLFW_KEY_BACKSPACE) && !timeline_) state_.requests.reset = true;
    if (pressed(GLFW_KEY_F1)) state_.show_help = !state_.show_help;
    if (pressed(GLFW_KEY_TAB)) state_.show_ui = !state_.show_ui;
    if (pressed(GLFW_KEY_ESCAPE)) state_.follow = false;
    if (pressed(GLFW_KEY_MINUS, true)) state_.slow_motion = std::min(state_.slow_motion + 1, 5);
    if (pressed(GLFW_KEY_EQUAL, true)) state_.slow_motion = std::max(state_.slow_motion - 1, 0);
    if (ctrl_pressed(GLFW_KEY_L)) state_.requests.reload = true;
    if (ctrl_pressed(GLFW_KEY_P)) state_.requests.screenshot = true;
    if (ctrl_pressed(GLFW_KEY_A)) state_.requests.reset_camera = true;
    if (ctrl_pressed(GLFW_KEY_Q)) window_.requestClose();
  }
  if (io.WantCaptureMouse) return;
  if (handlePerturbationMouse()) return;  // Ctrl+drag on the selected body: the camera stays
  const float height = std::max(1.0f, io.DisplaySize.y);
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Left)) camera_.rotate(io.MouseDelta.x, io.MouseDelta.y);
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Right)) {
    camera_.pan(io.MouseDelta.x, io.MouseDelta.y, height);
    state_.follow = false;
  }
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Middle)) camera_.zoom(-io.MouseDelta.y * 0.05f);
  if (io.MouseWheel != 0.0f) camera_.zoom(io.MouseWheel);
  if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left) && model_view_ && session_) {
    const render::Ray ray = camera_.pixelRay(io.MousePos.x, io.MousePos.y, io.DisplaySize.x, height);
    state_.selected_body = model_view_->pick(ray, interactionPoses());
    const Model& model = session_->simulation().model();
    if (state_.selected_body > 0) {
      spdlog::info("double-click at {} {}: selected body '{}'", io.MousePos.x, io.MousePos.y,
                   model.body_names[static_cast<std::size_t>(state_.selected_body)]);
    } else {
      spdlog::info("double-click at {} {}: nothing there, no body selected", io.MousePos.x, io.MousePos.y);
    }
    state_.follow = state_.selected_body > 0;
  }
}

void GuiApp::carryOutRequests() {
  GuiRequests requests = std::move(state_.requests);
  state_.requests = {};
  if (requests.screenshot) screenshot_pending_ = true;
  if (requests.toggled) logEvent("rendering: " + *requests.toggled);
  if (requests.open) {
    open(*requests.open);
    logEvent((load_failed_ ? "cannot open " : "opened ") + *requests.open);
  }
  if (requests.open_records) openRecords(*requests.open_records);
  if (requests.close_records && timeline_) {
    timeline_.reset();
    state_.timeline = false;
    state_.say("record closed");
  }
  if (requests.reload && timeline_) {
    // The records again from disk (the session's file is the record, not a scene).
    std::vector<std::string> files;
    for (std::size_t k = 0; k < timeline_->size(); ++k) files.push_back(timeline_->run(k).file().string());
    openRecords(files);
  } else if (requests.reload && session_) {
    const std::string file = session_->file().string();
    open(file, false, /*keep_camera=*/true);
    logEvent((load_failed_ ? "cannot reload " : "reloaded ") + file);
  }
  if (requests.reset_camera) {
    state_.follow = false;
    resetCamera();
  }
  if (!session_) return;
  if (requests.toggle_running) {
    state_.running = !state_.running;
    logEvent((state_.running ? "run from " : "pause at ") + whereNow());
  }
  if (requests.history_seconds) {
    session_->setHistorySeconds(*requests.history_seconds);
    state_.say("history: the last " + std::to_string(*requests.history_seconds) + " s from now on");
  }
  if (comparison_ && (requests.view_delta != 0 || requests.view_index)) {
    state_.running = false;  // looking at the past pauses
    if (requests.view_index) comparison_->viewIndex(*requests.view_index);
    comparison_->moveView(requests.view_delta);
    sim_target_time_ = comparison_->comparison().time();
    logEvent(fmt::format("comparison shows t = {:.6g} s", comparison_->shownTime()));
  }
  if (comparison_ && requests.resume_from_view) {
    resumeComparisonFromView();
    requests.resume_from_view = false;
  }
  if (!comparison_ && (requests.view_delta != 0 || requests.view_index)) {
    state_.running = false;  // looking at the past pauses
    if (requests.view_index) session_->viewIndex(*requests.view_index);
    session_->moveView(requests.view_delta);
    sim_target_time_ = session_->simulation().time();
    logEvent(fmt::format("shows t = {:.6g} s", session_->shownTime()));
  }
  if (requests.resume_from_view) resumeFromView();
  if (requests.set_joint) setJoint(requests.set_joint->first, requests.set_joint->second);
  if (requests.apply_stabilization) setStabilization(state_.time_constant, state_.projection);
  if (requests.stop_comparison) stopComparison();
  if (requests.start_comparison || requests.compare_from_here) {
    timeline_.reset();
    state_.timeline = false;
    const bool started = startComparison(/*from_shown_state=*/requests.compare_from_here);
    if (started) {
      const SolverComparison& c = comparison_->comparison();
      std::vector<std::string> names;
      for (const ComparedSolver& compared : c.solvers()) names.push_back(compared.name);
      logEvent(fmt::format("compare {} from {} {}, reference {}", fmt::join(names, ", "),
                           requests.compare_from_here ? "the shown state," : "the scene's start,", whereNow(), c.reference().name));
    } else {
      logEvent("cannot compare " + fmt::format("{}", fmt::join(state_.compare_solvers, ", ")));
    }
  }
  if (requests.reset && comparison_) {
    restartComparison();  // from the state it started from (the scene's start, or where "compare from here" was)
    logEvent("comparison restarted from " + whereNow());
    requests.reset = false;
  }
  if (requests.step && !state_.running && comparison_) {
    resumeComparisonFromView();  // a step from a past state continues from it
    advanceComparison(comparison_->comparison().stepCount() + 1, std::nullopt);
    sim_target_time_ = comparison_->comparison().time();
    logEvent("comparison step to " + whereNow());
    requests.step = false;
  }
  if (requests.reset) {
    finishRecording();
    Scene& scene = session_->sceneForReset();
    scene.time_constant = state_.time_constant;
    scene.projection = state_.projection;
    try {
      session_->reset();
      state_.say("reset");
    } catch (const std::exception& e) {
      state_.error = std::string("Cannot reset with these settings:\n") + e.what();
    }
    state_.divergence.clear();
    divergence_reported_ = false;  // a kept diverged simulation is reported again
    sim_target_time_ = session_->simulation().time();  // 0, or where the kept simulation is when the reset failed
    logEvent("reset to " + whereNow());
  }
  // What was asked for: applying settings under `auto` probes again.
  const std::string current_solver = session_->simulation().solverBinding().requested;
  const std::optional<std::string> solver = requests.solver ? requests.solver : requests.apply_settings ? std::optional(current_solver) : std::nullopt;
  if (solver) {
    try {
      session_->setSolver(*solver, state_.settings);
      const std::string& mu_warning = session_->simulation().solverBinding().mu_warning;
      if (!mu_warning.empty()) spdlog::warn("{}", mu_warning);
      state_.say("solver " + *solver + " from t = " + std::to_string(session_->simulation().time()) + " s");
      window_.setTitle("loopsim - " + session_->simulation().scene().name + " (" + *solver + ")");
      if (requests.solver) {
        logEvent("solver " + *solver + " from " + whereNow());
      } else {
        // The μ the new solver runs with (resolved when auto), at full precision: a script can pass it to `run --mu`.
        const SolverBinding& bound = session_->simulation().solverBinding();
        logEvent(fmt::format("settings applied: solver {} from {}, mu {}{}", *solver, whereNow(), bound.settings.muValue(),
                             bound.auto_mu ? " (" + bound.muLine() + ")" : ""));
      }
    } catch (const std::exception& e) {
      state_.error = "Cannot switch to " + *solver + ":\n" + e.what();
      logEvent("cannot switch to " + *solver + ": " + e.what());
    }
  }
  if (requests.step && !state_.running) {
    stepWithSwitches(session_->simulation().stepCount() + 1, std::nullopt);
    sim_target_time_ = session_->simulation().time();
    logEvent("step to " + whereNow());
  }
}

void GuiApp::stepWithSwitches(long target_steps, std::optional<Clock::time_point> deadline) {
  // --set-stabilization: the panel's live change at its time (before a solver switch at the same step).
  auto nextStabilization = [&] {
    return next_stabilization_ < options_.stabilization_changes.size()
               ? session_->stepsFor(options_.stabilization_changes[next_stabilization_].time)
               : std::numeric_limits<long>::max();
  };
  while (nextStabilization() <= target_steps &&
         (next_switch_ >= options_.solver_switches.size() ||
          nextStabilization() <= session_->stepsFor(options_.solver_switches[next_switch_].first))) {
    const long at = nextStabilization();
    session_->advanceTo(at, deadline);
    if (session_->simulation().stepCount() < at) return;  // diverged or out of time
    const auto& change = options_.stabilization_changes[next_stabilization_++];
    setStabilization(change.time_constant, change.projection);
  }
  while (next_switch_ < options_.solver_switches.size()) {
    const auto& [time, name] = options_.solver_switches[next_switch_];
    const long at = session_->stepsFor(time);
    if (at > target_steps) break;
    session_->advanceTo(at, deadline);
    if (session_->simulation().stepCount() < at) return;  // diverged or out of time
    try {
      SolverSettings settings = session_->simulation().scene().solver_settings;
      settings.mu_auto = session_->simulation().solverBinding().mu_auto;  // mu: auto resolves for the new solver
      if (session_->simulation().solverBinding().mu_default) settings.mu.reset();  // and so does the default μ
      session_->setSolver(name, settings);
      const std::string& mu_warning = session_->simulation().solverBinding().mu_warning;
      if (!mu_warning.empty()) spdlog::warn("{}", mu_warning);
      spdlog::info("solver {} from t = {} s (step {})", name, session_->simulation().time(), at);
      state_.say("solver " + name + " from t = " + std::to_string(session_->simulation().time()) + " s");
    } catch (const std::exception& e) {
      state_.error = "Cannot switch to " + name + ":\n" + e.what();
      spdlog::error("cannot switch to {}: {}", name, e.what());
      switch_failed_ = true;
    }
    ++next_switch_;
  }
  session_->advanceTo(target_steps, deadline);
}

void GuiApp::advanceComparison(long target_steps, std::optional<Clock::time_point> deadline) {
  // --set-stabilization reaches every compared solver at its step, as the panel's change does.
  const auto& changes = options_.stabilization_changes;
  while (next_stabilization_ < changes.size()) {
    const long at = comparison_->stepsFor(changes[next_stabilization_].time);
    if (at > target_steps) break;
    comparison_->advanceTo(at, deadline);
    if (comparison_->comparison().stepCount() < at) return;  // out of time, or every solver stopped
    const auto& change = changes[next_stabilization_++];
    setStabilization(change.time_constant, change.projection);
  }
  comparison_->advanceTo(target_steps, deadline);
}

void GuiApp::advancePhysics(double wall_dt) {
  if (!session_) return;
  if (timeline_) {  // playback: 1/60 s of record time per frame in a --frames run, else the wall clock
    timeline_->advance(frameAdvance(wall_dt));
    return;
  }
  if (comparison_) {
    if (state_.running && comparison_->viewingPast()) resumeComparisonFromView();  // running from a past state resumes there
    SolverComparison& c = comparison_->comparison();
    if (!state_.running || !c.anyRunning()) {
      sim_target_time_ = c.time();
      return;
    }
    sim_target_time_ += state_.speed() * frameAdvance(wall_dt);
    const long target = comparison_->stepsFor(sim_target_time_);
    advanceComparison(target, steppingDeadline());
    if (c.stepCount() < target && c.anyRunning()) sim_target_time_ = c.time();  // fell behind: no debt
    comparison_->sampleFrame();
    return;
  }
  if (state_.running && session_->viewingPast()) resumeFromView();  // running from a past state resumes there
  Simulation& sim = session_->simulation();
  if (!state_.running || sim.diverged()) {
    sim_target_time_ = sim.time();
    return;
  }
  // A --frames run advances exactly 1/60 s per frame; interactively, the wall clock (capped) drives it.
  // Either way the steps are whole steps of the scene's dt, the rest of the target carried to the next
  // frame, so what is drawn never changes the trajectory (only which of its states are drawn).
  sim_target_time_ += state_.speed() * frameAdvance(wall_dt);
  const long target = session_->stepsFor(sim_target_time_);
  stepWithSwitches(target, steppingDeadline());
  if (sim.stepCount() < target && !sim.diverged()) sim_target_time_ = sim.time();  // fell behind: no debt
  session_->sampleFrame();
}

void GuiApp::checkDivergence() {
  if (comparison_) {
    // A solver that stops pauses alone (the others go on); all stopped: paused.
    for (const std::size_t i : comparison_->newlyStopped()) {
      const ComparedSolver& s = comparison_->comparison().solvers()[i];
      spdlog::error("compare: {} stopped: {}", s.name, s.failure);
      state_.say(s.name + " stopped: " + s.failure);
    }
    if (!comparison_->comparison().anyRunning()) state_.running = false;
    return;
  }
  if (!session_ || !session_->simulation().diverged() || divergence_reported_) return;
  const Divergence& d = *session_->simulation().divergence();
  state_.divergence = d.message();
  state_.running = false;
  divergence_reported_ = true;
  spdlog::error("{}", d.message());
}

void GuiApp::drawScene(int width, int height) {
  if (session_ && state_.follow && state_.selected_body > 0) {
    camera_.lookat = session_->kinematics().oMi[state_.selected_body].t.cast<float>();
  }
  // The opaque panels in framebuffer pixels (rows up), rounded inward: only pixels they hide.
  covered_.clear();
  const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
  for (const GuiState::PanelRect& p : state_.opaque_panels) {
    covered_.push_back({static_cast<int>(std::ceil(p.x0 * scale.x)), height - static_cast<int>(std::floor(p.y1 * scale.y)),
                        static_cast<int>(std::floor(p.x1 * scale.x)), height - static_cast<int>(std::ceil(p.y0 * scale.y))});
  }
  renderer_.beginScene(width, height, camera_, covered_);
  if (timeline_ && model_view_) {
    // One record solid in the model's colours; two records as two translucent ghosts in their colours.
    render::ModelStyle style;
    style.wireframe = state_.toggles.wireframe;
    for (std::size_t k = 0; k < timeline_->size(); ++k) {
      style.use_tint = timeline_->ghosts();
      style.tint = timeline_->colour(k);
      model_view_->draw(renderer_, timeline_->bodyPoses(k), style);
    }
  } else if (comparison_ && model_view_) {
    // The reference solid first (it writes depth), then the translucent ghosts.
    const int reference = comparison_->comparison().referenceIndex();
    std::vector<std::size_t> order{static_cast<std::size_t>(reference)};
    for (std::size_t i = 0; i < comparison_->size(); ++i) {
      if (static_cast<int>(i) != reference) order.push_back(i);
    }
    for (const std::size_t i : order) {
      const ComparedSolver& s = comparison_->comparison().solvers()[i];
      render::ModelStyle style;
      style.wireframe = state_.toggles.wireframe;
      style.use_tint = true;
      style.tint = comparison_->colour(i);
      if (s.simulation->diverged()) style.highlighted_body = s.simulation->model().jointId(s.simulation->divergence()->joint);
      model_view_->draw(renderer_, comparisonPoses(i), style);
    }
  } else if (session_ && model_view_) {
    render::ModelStyle style;
    style.wireframe = state_.toggles.wireframe;
    style.alpha_scale = state_.toggles.transparent ? 0.35f : 1.0f;
    if (session_->simulation().diverged()) {
      const int joint = session_->simulation().model().jointId(session_->simulation().divergence()->joint);
      style.highlighted_body = joint;  // joint i moves body i
    }
    model_view_->draw(renderer_, session_->bodyPoses(), style);
    state_.force_scale = drawOverlays(renderer_, *session_, state_.toggles, model_scale_);
    if (state_.selected_body > 0) {
      const Eigen::Matrix4f pose = session_->bodyPoses()[static_cast<std::size_t>(state_.selected_body)];
      renderer_.drawFrame(pose, 0.15f * model_scale_);
    }
  }
  if (session_ || comparison_) perturbation_.draw(renderer_, model_scale_);
  renderer_.endScene();
}

void GuiApp::drawUi() {
  state_.widgets.beginFrame();
  state_.opaque_panels.clear();
  if (state_.show_ui) {
    drawControlPanel(state_, session_.get());
    drawInfoPanel(state_, session_.get());
    if (comparison_) drawComparisonPanel(state_, *comparison_);
    if (timeline_) drawTimelinePanel(state_, *timeline_);
  }
  drawHelpOverlay(state_);
  drawMessages(state_);
  state_.widgets.endFrame();
  window_.fillBehindUi(state_.opaque_panels);
}

void GuiApp::saveScreenshot(const fs::path& path) {
  int width = 0, height = 0;
  window_.framebufferSize(width, height);
  render::writePngExclusive(path, render::readFramebuffer(width, height));
}

int GuiApp::run() {
  const Clock::time_point start = Clock::now();
  Clock::time_point last = start, window_start = start;
  long frames = 0, window_frames = 0;
  double window_sim_start = shownTime();
  const double sim_start = window_sim_start;
  double physics_wall = 0.0;  // of the frames' wall time, the part spent stepping
  int exit_code = 0;
  while (!window_.shouldClose()) {
    const Clock::time_point now = Clock::now();
    const double wall_dt = seconds(now - last);
    last = now;

    window_.beginFrame();
    handleInput();
    drawUi();
    carryOutRequests();
    const Clock::time_point physics_start = Clock::now();
    advancePhysics(wall_dt);
    physics_wall += seconds(Clock::now() - physics_start);
    checkDivergence();
    if (session_) session_->updateKinematics();
    if (comparison_) comparison_->updateKinematics();
    if (timeline_) timeline_->updateKinematics();

    int width = 0, height = 0;
    window_.framebufferSize(width, height);
    drawScene(width, height);
    window_.renderUi();
    ++frames;
    ++window_frames;

    const bool last_frame = options_.frames && frames >= *options_.frames;
    if (screenshot_pending_) {
      screenshot_pending_ = false;
      const fs::path path = render::freeScreenshotPath(fs::current_path());
      try {
        saveScreenshot(path);
        state_.say("saved " + path.string());
        spdlog::info("screenshot: {}", path.string());
        logEvent("screenshot " + path.string());
      } catch (const std::exception& e) {
        state_.error = e.what();
      }
    }
    if (last_frame && !options_.screenshot.empty()) {
      try {
        saveScreenshot(options_.screenshot);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "loopsim gui: %s\n", e.what());
        exit_code = 1;
      }
    }
    window_.swapBuffers();

    const double window_wall = seconds(Clock::now() - window_start);
    if (window_wall >= 0.5) {
      state_.fps = static_cast<double>(window_frames) / window_wall;
      const double sim_now = shownTime();
      state_.rtf = std::max(0.0, sim_now - window_sim_start) / window_wall;
      window_start = Clock::now();
      window_frames = 0;
      window_sim_start = sim_now;
    }
    if (last_frame) break;
  }
  finishRecording();
  if (!options_.frames) return exit_code;
  ScriptedRunTotals totals;
  totals.frames = frames;
  totals.wall_seconds = seconds(Clock::now() - start);
  totals.physics_seconds = physics_wall;
  totals.simulated_seconds = shownTime() - sim_start;
  totals.msaa = renderer_.msaaSamples();
  int width = 0, height = 0;
  window_.framebufferSize(width, height);
  ScriptedRunReport report(model_view_.get(), camera_, width, height, exit_code);
  report.frames(totals);
  if (session_) report.session(*session_);
  if (timeline_) report.records(*timeline_);
  if (comparison_) {
    std::vector<std::vector<Eigen::Matrix4f>> poses;
    for (std::size_t i = 0; i < comparison_->size(); ++i) poses.push_back(comparisonPoses(i));
    report.comparison(*comparison_, poses, state_.compare_side_by_side);
  }
  return report.finish(state_, session_.get(), load_failed_ || switch_failed_ || compare_failed_);
}

}  // namespace

std::vector<std::string> sceneFilesIn(const fs::path& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

int runGui(const GuiOptions& options) {
  try {
    // A --frames run is scripted: no vsync (FPS measures the work) and no mouse.
    render::Window window({options.width, options.height, "loopsim", true, !options.frames.has_value(),
                           options.frames.has_value()});
    render::Renderer renderer(options.msaa);
    GuiApp app(options, window, renderer);
    return app.run();
  } catch (const render::DisplayUnavailable& e) {
    std::fprintf(stderr, "loopsim gui: %s. Run it under a desktop session or `xvfb-run`, or headless with `loopsim run SCENE`.\n", e.what());
    return kExitNoDisplay;
  }
}

}  // namespace loopsim::app
