#include "gui/panels.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

#include "solvers/registry.hpp"

namespace loopsim::app {

namespace {

constexpr float kPanelWidth = 320.0f;
const ImVec4 kErrorColour(1.0f, 0.42f, 0.36f, 1.0f);
const ImVec4 kDimColour(0.6f, 0.6f, 0.6f, 1.0f);

bool inputText(const char* label, std::string& text) {
  char buffer[1024];
  std::snprintf(buffer, sizeof buffer, "%s", text.c_str());
  const bool enter = ImGui::InputText(label, buffer, sizeof buffer, ImGuiInputTextFlags_EnterReturnsTrue);
  text = buffer;
  return enter;
}

void fileSection(GuiState& state, SimulationSession* session) {
  if (!ImGui::CollapsingHeader("File", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (!state.scene_files.empty()) {
    const char* preview = state.scene_index >= 0 ? state.scene_files[static_cast<std::size_t>(state.scene_index)].c_str() : "pick a scene";
    if (ImGui::BeginCombo("scenes/", std::filesystem::path(preview).filename().c_str())) {
      for (int k = 0; k < static_cast<int>(state.scene_files.size()); ++k) {
        const std::string name = std::filesystem::path(state.scene_files[static_cast<std::size_t>(k)]).filename().string();
        if (ImGui::Selectable(name.c_str(), k == state.scene_index)) {
          state.scene_index = k;
          state.requests.open = state.scene_files[static_cast<std::size_t>(k)];
        }
      }
      ImGui::EndCombo();
    }
  }
  ImGui::SetNextItemWidth(-60.0f);
  const bool enter = inputText("##path", state.open_path);
  ImGui::SameLine();
  if ((ImGui::Button("Open") || enter) && !state.open_path.empty()) state.requests.open = state.open_path;
  ImGui::TextColored(kDimColour, "a scene, URDF or MJCF file (or drop one)");
  ImGui::BeginDisabled(session == nullptr);
  if (ImGui::Button("Reload (Ctrl+L)")) state.requests.reload = true;
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Screenshot (Ctrl+P)")) state.requests.screenshot = true;
}

void simulationSection(GuiState& state, SimulationSession* session) {
  if (!ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::BeginDisabled(session == nullptr);
  if (ImGui::Button(state.running ? "Pause (Space)" : "Run (Space)", ImVec2(130, 0))) state.running = !state.running;
  ImGui::SameLine();
  if (ImGui::Button("Step (Right)")) state.requests.step = true;
  if (ImGui::Button("Reset (Backspace)", ImVec2(130, 0))) state.requests.reset = true;
  ImGui::EndDisabled();
  static const char* kSpeeds[] = {"1x", "1/2x", "1/4x", "1/8x", "1/16x", "1/32x"};
  ImGui::SetNextItemWidth(150.0f);
  ImGui::SliderInt("slow motion (- =)", &state.slow_motion, 0, 5, kSpeeds[std::clamp(state.slow_motion, 0, 5)]);
  ImGui::Text("real-time factor %.2f (target %.3g)", state.rtf, state.speed());
}

// The UI font has no glyphs beyond Latin-1: the binding's lines in ASCII.
std::string asciiText(std::string text) {
  static const std::pair<const char*, const char*> kReplacements[] = {
      {"→", "->"}, {"v̇", "vdot"}, {"µ", "u"}, {"μ", "mu"}, {"λ", "lambda"}, {"≈", "~"}, {"×", "x"}};
  for (const auto& [from, to] : kReplacements) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + std::strlen(to))) {
      text.replace(at, std::strlen(from), to);
    }
  }
  return text;
}

void solverSection(GuiState& state, SimulationSession* session) {
  if (!ImGui::CollapsingHeader("Solver", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (session == nullptr) {
    ImGui::TextColored(kDimColour, "no scene");
    return;
  }
  const Simulation& sim = session->simulation();
  const SolverBinding& binding = sim.solverBinding();
  const bool automatic = binding.requested == "auto";
  const std::string current = sim.scene().solver;
  if (ImGui::RadioButton("auto", automatic) && !automatic) state.requests.solver = "auto";
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("the fastest exact solver by a short timing probe at the current state (probed again on apply)");
  }
  if (binding.selection) {
    ImGui::SameLine();
    ImGui::TextColored(kDimColour, "-> %s", binding.selection->picked.c_str());
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + kPanelWidth - 24.0f);
    ImGui::TextColored(kDimColour, "%s", asciiText(binding.solverLine()).c_str());
    ImGui::PopTextWrapPos();
  }
  for (const SolverInfo& info : solverRegistry()) {
    const std::string missing = missingCapability(info.capabilities, sim.constraints());
    ImGui::BeginDisabled(!missing.empty());
    const bool selected = !automatic && info.name == current;
    if (ImGui::RadioButton(info.name.c_str(), selected) && !selected) state.requests.solver = info.name;
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", info.description.c_str());
    if (!missing.empty()) {
      ImGui::SameLine();
      ImGui::TextColored(kDimColour, "(needs %s)", missing.c_str());
    }
  }
}

void settingsSection(GuiState& state, SimulationSession* session) {
  if (!ImGui::CollapsingHeader("Settings")) return;
  SolverSettings& s = state.settings;
  ImGui::BeginDisabled(s.mu_auto);
  ImGui::SetNextItemWidth(150.0f);
  ImGui::InputDouble("mu", &s.mu, 0.0, 0.0, "%.3g");
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::Checkbox("auto##mu", &s.mu_auto);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("mu = c x lambda_max(M) at the current state (paper 001 VI-D): c = %.0e for lcaba and "
                      "constrained-aba, %.0e for the proximal solvers", kAutoMuFactorPenalty, kAutoMuFactorProximal);
  if (session != nullptr && session->simulation().solverBinding().auto_mu) {
    ImGui::TextColored(kDimColour, "%s", asciiText(session->simulation().solverBinding().muLine()).c_str());
  }
  ImGui::InputDouble("tolerance", &s.tolerance, 0.0, 0.0, "%.3g");
  ImGui::InputInt("max iterations", &s.max_iterations);
  ImGui::InputDouble("soft weight", &s.soft_weight, 0.0, 0.0, "%.3g");
  ImGui::Checkbox("warm start", &s.warm_start);
  ImGui::BeginDisabled(session == nullptr);
  if (ImGui::Button("Apply on next step")) state.requests.apply_settings = true;
  ImGui::EndDisabled();
  ImGui::Separator();
  ImGui::InputDouble("Baumgarte T (s)", &state.time_constant, 0.0, 0.0, "%.3g");
  ImGui::Checkbox("projection", &state.projection);
  ImGui::BeginDisabled(session == nullptr);
  if (ImGui::Button("Apply and reset")) state.requests.reset = true;
  ImGui::EndDisabled();
  ImGui::TextColored(kDimColour, "T and projection shape the constraint\nset: they take effect from a reset.");
}

void renderingSection(GuiState& state) {
  if (!ImGui::CollapsingHeader("Rendering", ImGuiTreeNodeFlags_DefaultOpen)) return;
  OverlayToggles& t = state.toggles;
  ImGui::Checkbox("body frames", &t.body_frames);
  ImGui::Checkbox("centres of mass", &t.centers_of_mass);
  ImGui::Checkbox("constraints + closure error", &t.constraint_frames);
  ImGui::Checkbox("constraint forces (lambda)", &t.constraint_forces);
  if (t.constraint_forces && state.force_scale > 0.0) ImGui::TextColored(kDimColour, "  arrows: 1 m = %.3g N", state.force_scale);
  ImGui::Checkbox("transparent", &t.transparent);
  ImGui::Checkbox("wireframe", &t.wireframe);
  if (ImGui::Button("Reset view (Ctrl+A)")) state.requests.reset_camera = true;
}

void plot(const char* label, const SeriesBuffer& series, const char* format) {
  char overlay[64];
  std::snprintf(overlay, sizeof overlay, format, static_cast<double>(series.latest()));
  ImGui::PlotLines(label, series.data(), series.count(), series.offset(), overlay, FLT_MAX, FLT_MAX, ImVec2(0, 60));
}

}  // namespace

void drawControlPanel(GuiState& state, SimulationSession* session) {
  ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_Always);
  ImGui::SetNextWindowSizeConstraints(ImVec2(kPanelWidth, 0), ImVec2(kPanelWidth, ImGui::GetIO().DisplaySize.y - 16));
  ImGui::Begin("loopsim", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove);
  fileSection(state, session);
  simulationSection(state, session);
  solverSection(state, session);
  settingsSection(state, session);
  renderingSection(state);
  ImGui::End();
}

void drawInfoPanel(GuiState& state, SimulationSession* session) {
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - 8, 8), ImGuiCond_Always, ImVec2(1, 0));
  ImGui::SetNextWindowSizeConstraints(ImVec2(kPanelWidth, 0), ImVec2(kPanelWidth, io.DisplaySize.y - 16));
  ImGui::Begin("Info", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove);
  if (session == nullptr) {
    ImGui::TextColored(kDimColour, "no scene loaded");
    ImGui::Text("FPS %.0f", state.fps);
    ImGui::End();
    return;
  }
  const Simulation& sim = session->simulation();
  ImGui::Text("%s", sim.scene().name.c_str());
  ImGui::Text("time       %.3f s %s", sim.time(), state.running ? "" : "(paused)");
  ImGui::Text("solver     %s%s", sim.scene().solver.c_str(), sim.solverBinding().selection ? " (auto)" : "");
  ImGui::Text("solve      %.1f us (median, last 1 s)", session->recentMedianSolveUs());
  ImGui::Text("iterations %.2f", session->recentMeanIterations());
  ImGui::Text("violation  %.2e m|rad, %.2e /s", sim.positionViolation(), sim.velocityViolation());
  ImGui::Text("energy bal %.3e J", sim.energy().balance());
  ImGui::Text("FPS %.0f   RTF %.2f", state.fps, state.rtf);
  if (state.selected_body > 0 && state.selected_body < sim.model().nbodies()) {
    ImGui::Text("selected   %s%s", sim.model().body_names[static_cast<std::size_t>(state.selected_body)].c_str(),
                state.follow ? " (followed)" : "");
  }
  if (!state.divergence.empty()) ImGui::TextColored(kErrorColour, "%s", state.divergence.c_str());
  ImGui::Separator();
  ImGui::PushItemWidth(-1);
  ImGui::TextUnformatted("solve time (us)");
  plot("##solve", session->solve_us_plot, "%.1f");
  ImGui::TextUnformatted("position violation");
  plot("##violation", session->violation_plot, "%.2e");
  ImGui::TextUnformatted("energy balance (J)");
  plot("##energy", session->energy_plot, "%.2e");
  ImGui::PopItemWidth();
  ImGui::End();
}

const std::vector<std::pair<const char*, const char*>>& shortcutList() {
  static const std::vector<std::pair<const char*, const char*>> list = {
      {"Space", "run / pause"},
      {"Right", "one step (paused)"},
      {"Backspace", "reset"},
      {"- / =", "slower / faster (slow motion)"},
      {"Ctrl+L", "reload the scene from disk"},
      {"Ctrl+P", "save a screenshot (PNG, never overwrites)"},
      {"Ctrl+A", "reset the view"},
      {"Ctrl+Q", "quit"},
      {"Tab", "show / hide the panels"},
      {"F1", "this help"},
      {"Esc", "free camera (stop following)"},
      {"Left drag", "rotate the view"},
      {"Right drag", "pan"},
      {"Scroll / middle drag", "zoom"},
      {"Double-click", "select and follow a body (empty: none)"},
      {"Drop a file", "open a scene, URDF or MJCF"},
  };
  return list;
}

void drawHelpOverlay(GuiState& state) {
  if (!state.show_help) return;
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.85f);
  ImGui::Begin("Help (F1)", &state.show_help, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove);
  if (ImGui::BeginTable("keys", 2)) {
    for (const auto& [key, action] : shortcutList()) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(key);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(action);
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

void drawMessages(GuiState& state) {
  const ImGuiIO& io = ImGui::GetIO();
  if (!state.error.empty()) {
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, 8), ImGuiCond_Always, ImVec2(0.5f, 0));
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(std::max(200.0f, io.DisplaySize.x - 2 * kPanelWidth - 40), 400));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.35f, 0.05f, 0.05f, 0.92f));
    ImGui::Begin("Error", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse);
    ImGui::PushTextWrapPos(std::max(200.0f, io.DisplaySize.x - 2 * kPanelWidth - 60));
    ImGui::TextColored(ImVec4(1, 0.85f, 0.8f, 1), "%s", state.error.c_str());
    ImGui::PopTextWrapPos();
    if (ImGui::Button("Dismiss")) state.error.clear();
    ImGui::End();
    ImGui::PopStyleColor();
  }
  if (!state.status.empty() && ImGui::GetTime() - state.status_time < 6.0) {
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y - 8), ImGuiCond_Always, ImVec2(0.5f, 1));
    ImGui::SetNextWindowBgAlpha(0.6f);
    ImGui::Begin("##status", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoInputs);
    ImGui::TextUnformatted(state.status.c_str());
    ImGui::End();
  }
}

void GuiState::say(std::string message) {
  status = std::move(message);
  status_time = ImGui::GetTime();
}

}  // namespace loopsim::app
