#include "gui/gui_app.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <spdlog/fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "gui/gui_context.hpp"
#include "gui/gui_mode.hpp"
#include "gui/gui_modes.hpp"
#include "gui/panels.hpp"
#include "gui/perturbation_input.hpp"
#include "gui/scripted_run_report.hpp"
#include "gui/state_printout.hpp"
#include "interrupt_guard.hpp"
#include "render/camera.hpp"
#include "render/mesh_files.hpp"
#include "render/renderer.hpp"
#include "render/screenshot.hpp"
#include "render/window.hpp"

namespace loopsim::app {

namespace fs = std::filesystem;

namespace {

// SOLVER+CONTACT runs given on the command line that are every ticked solver
// with every ticked contact solver tick both in the panel (so its checkboxes
// show them); other lists stay as given.
void tickContactRuns(GuiState& state) {
  std::vector<std::string> solvers, contacts;
  const auto addOnce = [](std::vector<std::string>& list, const std::string& name) {
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  };
  for (const std::string& name : state.compare_solvers) {
    const ComparedRunName run = parseComparedRunName(name);
    if (run.contact_text.empty()) return;
    addOnce(solvers, run.solver);
    addOnce(contacts, run.contact_text);
  }
  const std::vector<std::string> given = state.compare_solvers;
  state.compare_solvers = solvers;
  state.compare_contact_solvers = contacts;
  if (state.comparedRuns() != given) {  // not a product in this order: keep the runs as given
    state.compare_solvers = given;
    state.compare_contact_solvers.clear();
  }
}

constexpr double kFramePeriod = 1.0 / 60.0;  // simulated time per rendered frame (at speed 1) in a scripted run
// Interactively the wall clock since the last frame drives physics, at most this much per frame
// (and for at most FrameBudget::kMaxStepping of stepping).
constexpr double kMaxFrameAdvance = 0.1;

// Files dropped on the window since the last frame (GLFW calls back during polling).
std::vector<std::string>& droppedFiles() {
  static std::vector<std::string> files;
  return files;
}

void onDrop(GLFWwindow*, int count, const char** paths) {
  for (int k = 0; k < count; ++k) droppedFiles().emplace_back(paths[k]);
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// The window's main loop: input, the panels' requests, physics, drawing and screenshots. The
// shown mode does what depends on what is shown; GuiModes opens them and switches between them.
class GuiApp {
 public:
  GuiApp(const GuiOptions& options, render::Window& window, render::Renderer& renderer);
  int run();

 private:
  GuiMode* shown() const { return modes_.shown(); }
  /// The panel's solver or settings, on the waiting session's next step (whatever is shown).
  void switchSolver(const GuiRequests& requests);
  /// Keyframes, copying q, printing the model or data (the live session, not a comparison).
  void carryOutStateRequests(const GuiRequests& requests);
  void resetCamera();
  void logEvent(const std::string& what) const { context_.logEvent(what); }
  std::string whereNow() const;
  void handleInput();
  /// Ctrl+drag on the selected body; true while it holds the mouse (the camera stays).
  bool handlePerturbationMouse();
  void carryOutRequests();
  FrameBudget frameBudget(double wall_dt) const;
  void drawScene(int width, int height);
  void drawUi();
  /// Sets the camera's view area to what the panels left free this frame.
  void frameFreeArea();
  void saveScreenshot(const fs::path& path);
  double shownTime() const;

  GuiOptions options_;
  render::Window& window_;
  render::Renderer& renderer_;
  render::MeshCache meshes_;
  render::OrbitCamera camera_;
  float model_scale_ = 1.0f;  // a length typical of the model (m), from the camera's framing
  bool camera_moved_ = false;  // by the user (mouse, following a body) since it was last framed
  GuiState state_;
  PerturbationInput perturbation_{options_};
  ScriptProgress script_;
  RunFailures failures_;
  GuiContext context_{options_, state_, renderer_, meshes_, camera_, perturbation_, script_, failures_,
                      [this] { resetCamera(); },
                      [this](const Eigen::Vector3f& point) {
                        camera_.lookat = point;
                        camera_moved_ = true;
                      }};
  GuiModes modes_{context_, window_};
  std::vector<render::PixelRect> covered_;  // this frame's opaque panels in framebuffer pixels
  bool screenshot_pending_ = false;  // Ctrl+P: saved after this frame's UI is drawn
};

GuiApp::GuiApp(const GuiOptions& options, render::Window& window, render::Renderer& renderer)
    : options_(options), window_(window), renderer_(renderer) {
  glfwSetDropCallback(window_.handle(), onDrop);
  state_.show_ui = !options.hide_ui;
  state_.mujoco_perturb_buttons = !options.left_drag_pulls;
  state_.toggles = options.toggles;
  state_.show_help = options.show_help;
  state_.running = !options.paused;
  const fs::path scenes_dir = fs::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes";
  state_.scene_files = sceneFilesIn(scenes_dir);
  state_.compare_solvers = options.compare;
  state_.compare_reference = options.compare_reference;
  state_.compare_side_by_side = options.compare_side_by_side;
  state_.compare_ghost_outlines = options.compare_ghost_outlines;
  if (!options.tick_compare.empty()) state_.compare_solvers = options.tick_compare;
  tickContactRuns(state_);
  state_.widgets.setEnabled(options.log_widgets);
  modes_.openCommandLine();
}

std::string GuiApp::whereNow() const {
  const GuiMode* mode = shown();
  return mode ? mode->whereNow() : "t = 0 s (nothing open)";
}

double GuiApp::shownTime() const {
  const GuiMode* mode = shown();
  return mode ? mode->shownTime() : 0.0;
}

void GuiApp::resetCamera() {
  const render::ViewArea area = camera_.area;
  camera_ = render::OrbitCamera{};
  camera_.area = area;
  camera_moved_ = false;
  int width = 1, height = 1;
  window_.framebufferSize(width, height);
  const float aspect = static_cast<float>(std::max(1, width)) / static_cast<float>(std::max(1, height));
  Eigen::Vector3f lo, hi;
  const GuiMode* mode = shown();
  if (mode && mode->viewBounds(lo, hi)) {
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
  const KeyPresses keys(window_);
  for (const std::string& file : droppedFiles()) {
    spdlog::info("dropped on the window: {}", file);
    state_.requests.open = file;  // the last one, when several are dropped at once
  }
  droppedFiles().clear();
  if (!io.WantCaptureKeyboard) {
    if (GuiMode* mode = shown()) mode->onKeys(keys, state_.requests);
    if (keys.pressed(GLFW_KEY_F1)) state_.show_help = !state_.show_help;
    if (const int mods = window_.keyPressMods(GLFW_KEY_TAB); mods >= 0) {
      bool& shown_panels = (mods & GLFW_MOD_SHIFT) != 0 ? state_.show_info_panel : state_.show_ui;
      shown_panels = !shown_panels;
    }
    if (keys.pressed(GLFW_KEY_ESCAPE)) state_.follow = false;
    // MuJoCo's speed keys: - slower, = (+) faster; the keypad's too.
    const int slower = keys.count(GLFW_KEY_MINUS, true) + keys.count(GLFW_KEY_KP_SUBTRACT, true);
    const int faster = keys.count(GLFW_KEY_EQUAL, true) + keys.count(GLFW_KEY_KP_ADD, true);
    state_.slow_motion = std::clamp(state_.slow_motion + slower - faster, 0, 5);
    if (keys.pressed(GLFW_KEY_F5)) window_.toggleFullscreen();
    if (keys.ctrlPressed(GLFW_KEY_L)) state_.requests.reload = true;
    if (keys.ctrlPressed(GLFW_KEY_P)) state_.requests.screenshot = true;
    if (keys.ctrlPressed(GLFW_KEY_A)) state_.requests.reset_camera = true;
    if (keys.ctrlPressed(GLFW_KEY_Q)) window_.requestClose();
  }
  if (io.WantCaptureMouse) return;
  if (handlePerturbationMouse()) return;  // Ctrl+drag on the selected body: the camera stays
  const float height = std::max(1.0f, io.DisplaySize.y);
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
    camera_.rotate(io.MouseDelta.x, io.MouseDelta.y);
    camera_moved_ = true;
  }
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Right)) {
    camera_.pan(io.MouseDelta.x, io.MouseDelta.y, height);
    state_.follow = false;
    camera_moved_ = true;
  }
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Middle)) {
    camera_.zoom(-io.MouseDelta.y * 0.05f);
    camera_moved_ = true;
  }
  if (io.MouseWheel != 0.0f) {
    camera_.zoom(io.MouseWheel);
    camera_moved_ = true;
  }
  const LiveSessionMode* live = modes_.live();
  if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left) && live) {
    const render::Ray ray = camera_.pixelRay(io.MousePos.x, io.MousePos.y, io.DisplaySize.x, height);
    state_.selected_body = live->modelView().pick(ray, shown()->interactionPoses());
    const Model& model = live->session().simulation().model();
    if (state_.selected_body > 0) {
      spdlog::info("double-click at {} {}: selected body '{}'", io.MousePos.x, io.MousePos.y,
                   model.body_names[static_cast<std::size_t>(state_.selected_body)]);
    } else {
      spdlog::info("double-click at {} {}: nothing there, no body selected", io.MousePos.x, io.MousePos.y);
    }
    state_.follow = state_.selected_body > 0;
  }
}

bool GuiApp::handlePerturbationMouse() {
  const int body = state_.selected_body;
  const GuiMode* mode = shown();
  if (!perturbation_.active() && ImGui::GetIO().KeyCtrl && body > 0 && mode && mode->perturbable()) {
    const std::vector<Eigen::Matrix4f> poses = mode->interactionPoses();
    if (body < static_cast<int>(poses.size())) {
      perturbation_.grab(modes_.live()->session().simulation().model(), body, poses[static_cast<std::size_t>(body)],
                         state_.mujoco_perturb_buttons);
    }
  }
  return perturbation_.drag(camera_);
}

void GuiApp::carryOutRequests() {
  GuiRequests requests = std::exchange(state_.requests, {});
  if (requests.screenshot) screenshot_pending_ = true;
  if (requests.toggled) logEvent("rendering: " + *requests.toggled);
  if (requests.open) {
    modes_.open(*requests.open);
    logEvent((failures_.load ? "cannot open " : "opened ") + *requests.open);
  }
  if (requests.open_records) modes_.openRecords(*requests.open_records);
  if (requests.close_records && modes_.playback()) {
    modes_.closeRecords();
    state_.say("record closed");
  }
  if (requests.reload && modes_.playback()) {
    modes_.openRecords(modes_.playback()->files());  // the records again from disk (the session's file is the record, not a scene)
  } else if (requests.reload && modes_.live()) {
    const std::string file = modes_.live()->session().file().string();
    modes_.open(file, false, /*keep_camera=*/true);
    logEvent((failures_.load ? "cannot reload " : "reloaded ") + file);
  }
  if (requests.reset_camera) {
    state_.follow = false;
    resetCamera();
  }
  if (!modes_.live()) return;
  if (requests.toggle_running) {
    state_.running = !state_.running;
    logEvent((state_.running ? "run from " : "pause at ") + whereNow());
  }
  if (requests.history_seconds) {
    modes_.live()->session().setHistorySeconds(*requests.history_seconds);
    state_.say("history: the last " + std::to_string(*requests.history_seconds) + " s from now on");
  }
  // What is shown may change on the way (a comparison stopped or started): each request goes to the mode shown then.
  if (requests.view_delta != 0 || requests.view_index) shown()->showHistory(requests.view_delta, requests.view_index);
  if (requests.resume_from_view) shown()->resumeFromView();
  if (requests.set_joint) shown()->setJoint(requests.set_joint->first, requests.set_joint->second);
  if (requests.set_control && !state_.comparing) modes_.live()->setControl(requests.set_control->first, requests.set_control->second);
  if (!state_.comparing && !state_.timeline) carryOutStateRequests(requests);
  if (requests.apply_stabilization) shown()->setStabilization(state_.time_constant, state_.projection);
  if (requests.stop_comparison) modes_.stopComparison();
  if (requests.start_comparison || requests.compare_from_here) {
    modes_.closeRecords();
    if (modes_.startComparison(/*from_shown_state=*/requests.compare_from_here)) {
      const SolverComparison& c = modes_.comparison()->view().comparison();
      std::vector<std::string> names;
      for (const ComparedSolver& compared : c.solvers()) names.push_back(compared.name);
      logEvent(fmt::format("compare {} from {} {}, reference {}", fmt::join(names, ", "),
                           requests.compare_from_here ? "the shown state," : "the scene's start,", whereNow(), c.reference().name));
    } else {
      logEvent("cannot compare " + fmt::format("{}", fmt::join(state_.comparedRuns(), ", ")));
    }
  }
  if (requests.reset) shown()->reset();
  switchSolver(requests);
  if (!state_.running) {
    for (int k = 0; k < requests.steps; ++k) shown()->step();
  }
}

void GuiApp::carryOutStateRequests(const GuiRequests& requests) {
  LiveSessionMode& live = *modes_.live();
  if (requests.save_keyframe) live.saveKeyframe();
  if (requests.load_keyframe) live.loadKeyframe(*requests.load_keyframe);
  const SimulationSession& session = live.session();
  if (requests.copy_pose) {
    // The shown q at full precision, space-separated (as `gui: q =` and the records print it).
    const Eigen::VectorXd& q = session.viewingPast() ? Eigen::VectorXd(session.history().q(*session.viewedIndex()))
                                                     : session.simulation().q();
    const std::string text = fmt::format("{:.17g}", fmt::join(q.data(), q.data() + q.size(), " "));
    ImGui::SetClipboardText(text.c_str());
    state_.say(fmt::format("copied q ({} numbers) at t = {} s", q.size(), session.shownTime()));
    logEvent("copied q: " + text);
  }
  for (const auto& [asked, kind] : {std::pair{requests.print_model, "model"}, std::pair{requests.print_data, "data"}}) {
    if (!asked) continue;
    try {
      const std::string text = std::string(kind) == "model" ? modelPrintout(session) : dataPrintout(session);
      const fs::path path = writeNewTextFile(fs::current_path(), kind, text);
      state_.say(std::string("printed the ") + kind + " to " + path.string());
      logEvent(std::string("print ") + kind + " " + path.string());
    } catch (const std::exception& e) {
      state_.error = std::string("Cannot print the ") + kind + ":\n" + e.what();
    }
  }
}

void GuiApp::switchSolver(const GuiRequests& requests) {
  SimulationSession& session = modes_.live()->session();
  if (requests.contact_solver) {
    const std::string name = contactSolverName(*requests.contact_solver);
    try {
      session.setContactSolver(*requests.contact_solver);
      state_.say("contact solver " + name + " from t = " + std::to_string(session.simulation().time()) + " s");
      logEvent("contact solver " + name + " from " + whereNow());
    } catch (const std::exception& e) {
      state_.error = "Cannot switch the contact solver to " + name + ":\n" + e.what();
      logEvent("cannot switch the contact solver to " + name + ": " + e.what());
    }
  }
  // What was asked for: applying settings under `auto` probes again.
  const std::string current_solver = session.simulation().solverBinding().requested;
  const std::optional<std::string> solver = requests.solver ? requests.solver : requests.apply_settings ? std::optional(current_solver) : std::nullopt;
  if (!solver) return;
  try {
    session.setSolver(*solver, state_.settings);
    const std::string& mu_warning = session.simulation().solverBinding().mu_warning;
    if (!mu_warning.empty()) spdlog::warn("{}", mu_warning);
    state_.say("solver " + *solver + " from t = " + std::to_string(session.simulation().time()) + " s");
    window_.setTitle("loopsim - " + session.simulation().scene().name + " (" + *solver + ")");
    if (requests.solver) {
      logEvent("solver " + *solver + " from " + whereNow());
    } else {
      // The μ the new solver runs with (resolved when auto), at full precision: a script can pass it to `run --mu`.
      const SolverBinding& bound = session.simulation().solverBinding();
      logEvent(fmt::format("settings applied: solver {} from {}, mu {}{}", *solver, whereNow(), bound.settings.muValue(),
                           bound.auto_mu ? " (" + bound.muLine() + ")" : ""));
    }
  } catch (const std::exception& e) {
    state_.error = "Cannot switch to " + *solver + ":\n" + e.what();
    logEvent("cannot switch to " + *solver + ": " + e.what());
  }
}

FrameBudget GuiApp::frameBudget(double wall_dt) const {
  // Scripted runs (--frames) advance a fixed simulated time per frame, so that they are reproducible.
  const bool fixed_per_frame = options_.frames.has_value() && !options_.wall_clock;
  return {fixed_per_frame ? kFramePeriod : std::min(wall_dt, kMaxFrameAdvance), !fixed_per_frame};
}

void GuiApp::drawScene(int width, int height) {
  const LiveSessionMode* live = modes_.live();
  if (live && state_.follow && state_.selected_body > 0) {
    camera_.lookat = live->session().kinematics().oMi[state_.selected_body].t.cast<float>();
    camera_moved_ = true;
  }
  // The opaque panels in framebuffer pixels (rows up), rounded inward: only pixels they hide.
  covered_.clear();
  const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
  for (const GuiState::PanelRect& p : state_.opaque_panels) {
    covered_.push_back({static_cast<int>(std::ceil(p.x0 * scale.x)), height - static_cast<int>(std::floor(p.y1 * scale.y)),
                        static_cast<int>(std::floor(p.x1 * scale.x)), height - static_cast<int>(std::ceil(p.y0 * scale.y))});
  }
  renderer_.beginScene(width, height, camera_, covered_);
  if (GuiMode* mode = shown()) mode->drawScene(model_scale_);
  if (live) perturbation_.draw(renderer_, model_scale_);
  renderer_.endScene();
}

void GuiApp::drawUi() {
  state_.widgets.beginFrame();
  state_.opaque_panels.clear();
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  constexpr float kMargin = 8.0f;
  state_.layout = {kMargin, kMargin, display.x - kMargin, display.y - kMargin, {}};
  // Docked in this order: the side columns, the status line under the middle, the messages
  // at its top, then what the shown mode docks at its bottom (comparison, timeline).
  SimulationSession* session = modes_.live() ? &modes_.live()->session() : nullptr;
  if (state_.show_ui) {
    drawControlPanel(state_, session);
    if (state_.show_info_panel) drawInfoPanel(state_, session);
    drawStatusLine(state_);
  }
  drawMessages(state_);
  if (state_.show_ui) {
    if (GuiMode* mode = shown()) mode->drawPanels();
  }
  drawHelpOverlay(state_);
  state_.widgets.endFrame();
  window_.fillBehindUi(state_.opaque_panels);
  frameFreeArea();
}

void GuiApp::frameFreeArea() {
  // The camera frames the area the docked panels leave free; while the user has not moved
  // it, a change of that area (a panel docked or gone, the window resized) frames the model again.
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  if (display.x < 1.0f || display.y < 1.0f) return;
  const GuiState::Layout& l = state_.layout;
  render::ViewArea area{std::clamp(l.x0 / display.x, 0.0f, 0.9f), std::clamp(l.y0 / display.y, 0.0f, 0.9f), 0.0f, 0.0f};
  area.x1 = std::clamp(l.x1 / display.x, area.x0 + 0.1f, 1.0f);
  area.y1 = std::clamp(l.y1 / display.y, area.y0 + 0.1f, 1.0f);
  if (area == camera_.area) return;
  camera_.area = area;
  if (!camera_moved_) resetCamera();
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
  // SIGINT/SIGTERM end the loop between frames, as closing the window does,
  // but an unfinished record is dropped, as an interrupted `run` drops it.
  const InterruptGuard interrupt;
  while (!window_.shouldClose() && interrupt.received() == 0) {
    const Clock::time_point now = Clock::now();
    const double wall_dt = seconds(now - last);
    last = now;

    window_.beginFrame();
    handleInput();
    drawUi();
    carryOutRequests();
    const Clock::time_point physics_start = Clock::now();
    if (GuiMode* mode = shown()) mode->advance(frameBudget(wall_dt));
    physics_wall += seconds(Clock::now() - physics_start);
    if (GuiMode* mode = shown()) mode->afterAdvance();

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
  LiveSessionMode* live = modes_.live();
  if (const int signal = interrupt.received()) {
    const bool dropped = live && live->discardRecording();
    std::fprintf(stderr, "loopsim gui: interrupted by %s after %ld frames at t = %.6g s%s\n", signalName(signal), frames,
                 shownTime(), dropped ? "; the partial record was removed" : "");
    return 128 + signal;  // the shell's convention, as `run`
  }
  if (live) live->finishRecording();
  if (!options_.frames) return exit_code;
  ScriptedRunTotals totals;
  totals.frames = frames;
  totals.wall_seconds = seconds(Clock::now() - start);
  totals.physics_seconds = physics_wall;
  totals.simulated_seconds = shownTime() - sim_start;
  totals.msaa = renderer_.msaaSamples();
  int width = 0, height = 0;
  window_.framebufferSize(width, height);
  ScriptedRunReport report(live ? &live->modelView() : nullptr, camera_, width, height, exit_code);
  report.frames(totals);
  if (live) report.session(live->session());
  if (const GuiMode* mode = shown()) mode->addToReport(report);
  return report.finish(state_, live ? &live->session() : nullptr, failures_.any());
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
