#include "gui/gui_app.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "gui/overlays.hpp"
#include "gui/panels.hpp"
#include "gui/sim_session.hpp"
#include "model/errors.hpp"
#include "render/camera.hpp"
#include "render/mesh_files.hpp"
#include "render/model_view.hpp"
#include "render/renderer.hpp"
#include "render/screenshot.hpp"
#include "scene/scene_loader.hpp"
#include "render/window.hpp"

namespace loopsim::app {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kFramePeriod = 1.0 / 60.0;  // simulated time per rendered frame (at speed 1)

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
    const fs::path scenes_dir = fs::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes";
    state_.scene_files = sceneFilesIn(scenes_dir);
    if (!options.scene.empty()) open(options.scene, /*from_command_line=*/true);
  }

  int run();

 private:
  void open(const std::string& path, bool from_command_line = false, bool keep_camera = false);
  void finishRecording();
  void resetCamera();
  void handleInput();
  void carryOutRequests();
  void advancePhysics(double wall_dt);
  void stepWithSwitches(long target_steps, std::optional<Clock::time_point> deadline);
  void checkDivergence();
  void drawScene(int width, int height);
  void drawUi();
  void saveScreenshot(const fs::path& path);
  bool screenBox(int width, int height, Eigen::Vector4f& box) const;

  GuiOptions options_;
  render::Window& window_;
  render::Renderer& renderer_;
  render::MeshCache meshes_;
  render::OrbitCamera camera_;
  GuiState state_;
  std::unique_ptr<SimulationSession> session_;
  std::unique_ptr<render::ModelView> model_view_;
  float model_scale_ = 1.0f;
  bool recording_ = false;
  bool load_failed_ = false;    // the last open() failed (a --frames run then exits 1)
  bool switch_failed_ = false;  // a --switch-solver was refused (likewise)
  std::size_t next_switch_ = 0;
  double sim_target_time_ = 0.0;  // where physics should be after this frame
  bool divergence_reported_ = false;
  bool screenshot_pending_ = false;  // Ctrl+P: saved after this frame's UI is drawn
};

void GuiApp::open(const std::string& path, bool from_command_line, bool keep_camera) {
  try {
    Scene scene = loadSceneOrModel(path);
    if (from_command_line && !options_.solver.empty() && options_.solver != scene.solver) {
      checkSolverForScene(scene, options_.solver);
      scene.solver = options_.solver;
    }
    auto session = std::make_unique<SimulationSession>(std::move(scene), fs::path(path));
    auto view = std::make_unique<render::ModelView>(session->simulation().model(), renderer_, meshes_);
    finishRecording();
    if (from_command_line && !options_.record.empty()) {
      session->startRecording(options_.record, options_.overwrite);
      recording_ = true;
    }
    for (const std::string& warning : view->warnings()) spdlog::warn("{}", warning);
    session_ = std::move(session);
    model_view_ = std::move(view);
    const Simulation& sim = session_->simulation();
    state_.settings = sim.scene().solver_settings;  // μ resolved; the checkbox keeps asking for auto
    state_.settings.mu_auto = sim.solverBinding().mu_auto;
    state_.time_constant = sim.scene().time_constant;
    state_.projection = sim.scene().projection;
    state_.open_path = path;
    state_.error.clear();
    state_.divergence.clear();
    state_.selected_body = -1;
    state_.follow = false;
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

void GuiApp::resetCamera() {
  camera_ = render::OrbitCamera{};
  int width = 1, height = 1;
  window_.framebufferSize(width, height);
  const float aspect = static_cast<float>(std::max(1, width)) / static_cast<float>(std::max(1, height));
  Eigen::Vector3f lo, hi;
  if (model_view_ && model_view_->bounds(session_->bodyPoses(), lo, hi)) {
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
  for (const std::string& file : droppedFiles()) state_.requests.open = file;
  droppedFiles().clear();
  if (!io.WantCaptureKeyboard) {
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false) && session_) state_.running = !state_.running;
    if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT, true)) state_.requests.step = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_BACKSPACE, false)) state_.requests.reset = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_F1, false)) state_.show_help = !state_.show_help;
    if (ImGui::IsKeyPressed(GLFW_KEY_TAB, false)) state_.show_ui = !state_.show_ui;
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) state_.follow = false;
    if (ImGui::IsKeyPressed(GLFW_KEY_MINUS, true)) state_.slow_motion = std::min(state_.slow_motion + 1, 5);
    if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL, true)) state_.slow_motion = std::max(state_.slow_motion - 1, 0);
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_L, false)) state_.requests.reload = true;
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_P, false)) state_.requests.screenshot = true;
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_A, false)) state_.requests.reset_camera = true;
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Q, false)) window_.requestClose();
  }
  if (io.WantCaptureMouse) return;
  const float height = std::max(1.0f, io.DisplaySize.y);
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Left)) camera_.rotate(io.MouseDelta.x, io.MouseDelta.y);
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Right)) {
    camera_.pan(io.MouseDelta.x, io.MouseDelta.y, height);
    state_.follow = false;
  }
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Middle)) camera_.zoom(-io.MouseDelta.y * 0.05f);
  if (io.MouseWheel != 0.0f) camera_.zoom(io.MouseWheel);
  if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left) && model_view_) {
    const render::Ray ray = camera_.pixelRay(io.MousePos.x, io.MousePos.y, io.DisplaySize.x, height);
    state_.selected_body = model_view_->pick(ray, session_->bodyPoses());
    state_.follow = state_.selected_body > 0;
  }
}

void GuiApp::carryOutRequests() {
  GuiRequests requests = std::move(state_.requests);
  state_.requests = {};
  if (requests.screenshot) screenshot_pending_ = true;
  if (requests.open) open(*requests.open);
  if (requests.reload && session_) {
    const std::string file = session_->file().string();
    open(file, false, /*keep_camera=*/true);
  }
  if (requests.reset_camera) {
    state_.follow = false;
    resetCamera();
  }
  if (!session_) return;
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
  }
  // What was asked for: applying settings under `auto` probes again.
  const std::string current_solver = session_->simulation().solverBinding().requested;
  const std::optional<std::string> solver = requests.solver ? requests.solver : requests.apply_settings ? std::optional(current_solver) : std::nullopt;
  if (solver) {
    try {
      session_->setSolver(*solver, state_.settings);
      state_.say("solver " + *solver + " from t = " + std::to_string(session_->simulation().time()) + " s");
      window_.setTitle("loopsim - " + session_->simulation().scene().name + " (" + *solver + ")");
    } catch (const std::exception& e) {
      state_.error = "Cannot switch to " + *solver + ":\n" + e.what();
    }
  }
  if (requests.step && !state_.running) {
    stepWithSwitches(session_->simulation().stepCount() + 1, std::nullopt);
    sim_target_time_ = session_->simulation().time();
  }
}

void GuiApp::stepWithSwitches(long target_steps, std::optional<Clock::time_point> deadline) {
  while (next_switch_ < options_.solver_switches.size()) {
    const auto& [time, name] = options_.solver_switches[next_switch_];
    const long at = session_->stepsFor(time);
    if (at > target_steps) break;
    session_->advanceTo(at, deadline);
    if (session_->simulation().stepCount() < at) return;  // diverged or out of time
    try {
      SolverSettings settings = session_->simulation().scene().solver_settings;
      settings.mu_auto = session_->simulation().solverBinding().mu_auto;  // mu: auto resolves for the new solver
      session_->setSolver(name, settings);
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

void GuiApp::advancePhysics(double wall_dt) {
  if (!session_) return;
  Simulation& sim = session_->simulation();
  if (!state_.running || sim.diverged()) {
    sim_target_time_ = sim.time();
    return;
  }
  // A --frames run advances exactly 1/60 s per frame; interactively, the wall clock (capped) drives it.
  const bool fixed = options_.frames.has_value();
  sim_target_time_ += state_.speed() * (fixed ? kFramePeriod : std::min(wall_dt, 0.1));
  const std::optional<Clock::time_point> deadline =
      fixed ? std::nullopt : std::optional(Clock::now() + std::chrono::milliseconds(40));
  const long target = session_->stepsFor(sim_target_time_);
  stepWithSwitches(target, deadline);
  if (sim.stepCount() < target && !sim.diverged()) sim_target_time_ = sim.time();  // fell behind: no debt
  session_->sampleFrame();
}

void GuiApp::checkDivergence() {
  if (!session_ || !session_->simulation().diverged() || divergence_reported_) return;
  const Divergence& d = *session_->simulation().divergence();
  state_.divergence = d.message();
  state_.running = false;
  divergence_reported_ = true;
  spdlog::error("{}", d.message());
}

bool GuiApp::screenBox(int width, int height, Eigen::Vector4f& box) const {
  Eigen::Vector3f lo, hi;
  if (!model_view_ || !model_view_->bounds(session_->bodyPoses(), lo, hi)) return false;
  box << static_cast<float>(width), static_cast<float>(height), 0.0f, 0.0f;
  for (int corner = 0; corner < 8; ++corner) {
    const Eigen::Vector3f p((corner & 1) ? hi.x() : lo.x(), (corner & 2) ? hi.y() : lo.y(), (corner & 4) ? hi.z() : lo.z());
    Eigen::Vector2f pixel;
    if (!camera_.project(p, static_cast<float>(width), static_cast<float>(height), pixel)) continue;
    box[0] = std::min(box[0], pixel.x());
    box[1] = std::min(box[1], pixel.y());
    box[2] = std::max(box[2], pixel.x());
    box[3] = std::max(box[3], pixel.y());
  }
  box[0] = std::clamp(box[0], 0.0f, static_cast<float>(width));
  box[2] = std::clamp(box[2], 0.0f, static_cast<float>(width));
  box[1] = std::clamp(box[1], 0.0f, static_cast<float>(height));
  box[3] = std::clamp(box[3], 0.0f, static_cast<float>(height));
  return box[2] > box[0] && box[3] > box[1];
}

void GuiApp::drawScene(int width, int height) {
  if (session_ && state_.follow && state_.selected_body > 0) {
    camera_.lookat = session_->kinematics().oMi[state_.selected_body].t.cast<float>();
  }
  renderer_.beginScene(width, height, camera_);
  if (session_ && model_view_) {
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
  renderer_.endScene();
}

void GuiApp::drawUi() {
  if (state_.show_ui) {
    drawControlPanel(state_, session_.get());
    drawInfoPanel(state_, session_.get());
  }
  drawHelpOverlay(state_);
  drawMessages(state_);
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
  double window_sim_start = session_ ? session_->simulation().time() : 0.0;
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
      const double sim_now = session_ ? session_->simulation().time() : 0.0;
      state_.rtf = std::max(0.0, sim_now - window_sim_start) / window_wall;
      window_start = Clock::now();
      window_frames = 0;
      window_sim_start = sim_now;
    }
    if (last_frame) break;
  }
  finishRecording();
  if (options_.frames) {
    const double wall = seconds(Clock::now() - start);
    const double simulated = session_ ? session_->simulation().time() - sim_start : 0.0;
    int width = 0, height = 0;
    window_.framebufferSize(width, height);
    std::printf("gui: %ld frames in %.3f s: %.1f FPS (%dx%d, MSAA %d, physics included); simulated %.4f s (RTF %.2f)\n",
                frames, wall, static_cast<double>(frames) / wall, width, height, renderer_.msaaSamples(), simulated,
                simulated / wall);
    std::printf("gui: per frame %.2f ms physics, %.2f ms drawing and the rest\n", 1e3 * physics_wall / static_cast<double>(frames),
                1e3 * (wall - physics_wall) / static_cast<double>(frames));
    Eigen::Vector4f box;
    if (session_ && screenBox(width, height, box)) {
      std::printf("gui: model on screen: %.0f %.0f %.0f %.0f (x0 y0 x1 y1, pixels)\n", box[0], box[1], box[2], box[3]);
    }
    if (session_) std::printf("gui: t = %.6f s, solver %s\n", session_->simulation().time(), session_->simulation().scene().solver.c_str());
    if (!state_.error.empty()) std::printf("gui: error shown: %s\n", state_.error.c_str());
    if (session_ && session_->simulation().diverged()) std::printf("gui: %s\n", state_.divergence.c_str());
    if ((load_failed_ || switch_failed_) && exit_code == 0) exit_code = 1;
    if (session_ && session_->simulation().diverged() && exit_code == 0) exit_code = kExitGuiDiverged;
  }
  return exit_code;
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
