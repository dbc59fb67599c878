#include "gui/panels.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // ImGuiWindow::Hidden

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "gui/joint_sliders.hpp"
#include <loopsim/sim/solver_comparison.hpp>
#include <loopsim/solvers/registry.hpp>

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

// A reason in a few words for the narrow panel: up to its first clause (" (", ":" or ";"),
// at most max_chars and cut at a word; the whole reason goes in the item's tooltip.
std::string shortReason(const std::string& text, std::size_t max_chars = 30) {
  std::size_t end = text.size();
  for (const char* stop : {" (", ": ", "; "}) end = std::min(end, text.find(stop));
  std::string brief = text.substr(0, end);
  if (brief.size() > max_chars) {
    const std::size_t space = brief.rfind(' ', max_chars);
    brief = brief.substr(0, space == std::string::npos || space == 0 ? max_chars : space);
  }
  return brief.size() < text.size() ? brief + "..." : brief;
}

// The last item's tooltip: `text` wrapped to a readable width.
void wrappedTooltip(const std::string& text) {
  if (!ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
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
        state.widgets.noteLastItem("scenes/" + name);
      }
      ImGui::EndCombo();  // ends the popup, whose End() gives back the combo box as the last item
    }
    state.widgets.noteLastItem("scenes/");
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
  // MuJoCo's "Print model" / "Print data": text files in the working directory, never replacing one.
  ImGui::BeginDisabled(session == nullptr || state.comparing || state.timeline);
  if (ImGui::Button("Print model")) state.requests.print_model = true;
  state.widgets.noteLastItem("Print model");
  ImGui::SameLine();
  if (ImGui::Button("Print data")) state.requests.print_data = true;
  state.widgets.noteLastItem("Print data");
  ImGui::SameLine();
  if (ImGui::Button("Copy q")) state.requests.copy_pose = true;
  state.widgets.noteLastItem("Copy q");
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("the shown q to the clipboard, full precision");
  // Records on the timeline (a `--record` CSV with its JSON summary beside it).
  ImGui::SetNextItemWidth(-90.0f);
  inputText("record##path", state.record_path);
  ImGui::SetNextItemWidth(-90.0f);
  inputText("overlay##path", state.overlay_record_path);
  if (ImGui::Button("Open record") && !state.record_path.empty()) {
    std::vector<std::string> files{state.record_path};
    if (!state.overlay_record_path.empty()) files.push_back(state.overlay_record_path);
    state.requests.open_records = files;
  }
  if (state.timeline) {
    ImGui::SameLine();
    if (ImGui::Button("Close record")) state.requests.close_records = true;
  }
}

void simulationSection(GuiState& state, SimulationSession* session) {
  if (!ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::BeginDisabled(session == nullptr);
  const char* run_label = state.running ? "Pause (Space)" : "Run (Space)";
  if (ImGui::Button(run_label, ImVec2(130, 0))) state.requests.toggle_running = true;
  state.widgets.noteLastItem(run_label);
  ImGui::SameLine();
  if (ImGui::Button("Step (Right)")) ++state.requests.steps;
  state.widgets.noteLastItem("Step (Right)");
  if (ImGui::Button("Reset (Backspace)", ImVec2(130, 0))) state.requests.reset = true;
  state.widgets.noteLastItem("Reset (Backspace)");
  ImGui::EndDisabled();
  if (session != nullptr && !state.comparing && !state.timeline) {
    // History: the last seconds of states; Left / Right move through them while paused, Enter resumes.
    const StateHistory& history = session->history();
    int index = static_cast<int>(session->viewedIndex().value_or(history.size() - 1));
    char label[64];
    std::snprintf(label, sizeof label, "t = %.3f s%s", history.time(static_cast<std::size_t>(index)),
                  session->viewingPast() ? " (past)" : "");
    ImGui::SetNextItemWidth(200.0f);
    if (ImGui::SliderInt("history", &index, 0, static_cast<int>(history.size()) - 1, label)) {
      state.requests.view_index = static_cast<std::size_t>(index);
    }
    ImGui::BeginDisabled(!session->viewingPast());
    if (ImGui::Button("Resume from here (Enter)")) state.requests.resume_from_view = true;
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
      ImGui::SetTooltip("continue from the shown state; the later states are dropped%s",
                        session->recording() ? " and the record ends here" : "");
    }
    ImGui::SetNextItemWidth(100.0f);
    if (ImGui::InputDouble("history length (s)", &state.history_seconds, 0.0, 0.0, "%.3g",
                           ImGuiInputTextFlags_EnterReturnsTrue) &&
        state.history_seconds > 0.0) {
      state.requests.history_seconds = state.history_seconds;
    }
  }
  if (session != nullptr && !state.comparing && !state.timeline) {
    // Keyframes (MuJoCo's keys): the current state kept in memory, loaded back paused.
    if (ImGui::Button("Save key")) state.requests.save_keyframe = true;
    state.widgets.noteLastItem("Save key");
    const int keys = static_cast<int>(session->keyframes().size());
    ImGui::BeginDisabled(keys == 0);
    ImGui::SameLine();
    state.keyframe_index = std::clamp(state.keyframe_index, 0, std::max(0, keys - 1));
    char key_label[64];
    if (keys == 0) std::snprintf(key_label, sizeof key_label, "no keys");
    else std::snprintf(key_label, sizeof key_label, "key %d: t = %.3f s", state.keyframe_index + 1,
                       session->keyframes()[static_cast<std::size_t>(state.keyframe_index)].state.time);
    ImGui::SetNextItemWidth(130.0f);
    ImGui::SliderInt("##keyframe", &state.keyframe_index, 0, std::max(0, keys - 1), key_label);
    ImGui::SameLine();
    if (ImGui::Button("Load key")) state.requests.load_keyframe = static_cast<std::size_t>(state.keyframe_index);
    state.widgets.noteLastItem("Load key");
    ImGui::EndDisabled();
  }
  static const char* kSpeeds[] = {"1x", "1/2x", "1/4x", "1/8x", "1/16x", "1/32x"};
  ImGui::SetNextItemWidth(150.0f);
  ImGui::SliderInt("slow motion (- =)", &state.slow_motion, 0, 5, kSpeeds[std::clamp(state.slow_motion, 0, 5)]);
  ImGui::Text("real-time factor %.2f (target %.3g)", state.rtf, state.speed());
}

// The UI font has no glyphs beyond Latin-1: the binding's lines in ASCII.
std::string asciiText(std::string text) {
  static const std::pair<const char*, const char*> kReplacements[] = {
      {"→", "->"}, {"v̇", "vdot"}, {"µ", "u"}, {"μ", "mu"}, {"λ", "lambda"}, {"Λ", "Lambda"}, {"≈", "~"}, {"×", "x"}};
  for (const auto& [from, to] : kReplacements) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + std::strlen(to))) {
      text.replace(at, std::strlen(from), to);
    }
  }
  return text;
}

void solverSection(GuiState& state, SimulationSession* session) {
  const bool open = ImGui::CollapsingHeader("Solver", ImGuiTreeNodeFlags_DefaultOpen);
  state.widgets.noteLastItem("Solver");
  if (!open) return;
  if (session == nullptr) {
    ImGui::TextColored(kDimColour, "no scene");
    return;
  }
  const Simulation& sim = session->simulation();
  const SolverBinding& binding = sim.solverBinding();
  const bool automatic = binding.requested == "auto";
  const std::string current = sim.scene().solver;
  if (ImGui::RadioButton("auto", automatic) && !automatic) state.requests.solver = "auto";
  state.widgets.noteLastItem("auto");
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("the fastest exact solver by a short timing probe at the current state (probed again on apply)");
  }
  if (binding.selection) {
    ImGui::SameLine();
    ImGui::TextColored(kDimColour, "-> %s (why: hover)", binding.selection->picked.c_str());
    wrappedTooltip(asciiText(binding.solverLine()));
  }
  // Two columns of solvers; those the scene refuses are greyed, and why is said once per
  // reason under them (in short; whole on hover, as over a greyed solver).
  struct Greyed {
    std::string brief, full, solvers;
  };
  std::vector<Greyed> greyed;
  if (ImGui::BeginTable("##solvers", 2)) {
    for (const SolverInfo& info : solverRegistry()) {
      // A missing capability, else why the scene checks refuse it (e.g. loops the declared
      // independent joints cannot cluster).
      const std::string missing = missingCapability(info.capabilities, sim.constraints());
      const std::string refusal = asciiText(session->solverRefusal(info.name));
      const bool selected = !automatic && info.name == current;
      ImGui::TableNextColumn();
      ImGui::BeginDisabled(!missing.empty() || !refusal.empty());
      if (ImGui::RadioButton(info.name.c_str(), selected) && !selected) state.requests.solver = info.name;
      state.widgets.noteLastItem(info.name);
      ImGui::EndDisabled();
      const std::string why = !missing.empty() ? "cannot take " + missing : refusal;
      wrappedTooltip(why.empty() ? info.description : info.description + "\n\n" + why);
      if (why.empty() || (missing.empty() && selected)) continue;
      const std::string brief = !missing.empty() ? "no " + shortReason(missing) : info.name + ": " + shortReason(refusal);
      const auto same = std::find_if(greyed.begin(), greyed.end(), [&](const Greyed& g) { return g.brief == brief; });
      if (same == greyed.end()) greyed.push_back({brief, why, info.name});
      else same->solvers += ", " + info.name;
    }
    ImGui::EndTable();
  }
  ImGui::PushTextWrapPos(0.0f);  // the window's right edge
  for (const Greyed& g : greyed) {
    ImGui::TextColored(kDimColour, "greyed: %s", g.brief.c_str());
    wrappedTooltip(g.solvers + ": " + g.full);
  }
  ImGui::PopTextWrapPos();
  if (const UnilateralStep* step = sim.unilateralStep()) {
    // Contacts and joint limits: their velocity-level cone problem's solver.
    ImGui::TextUnformatted("contact solver");
    for (ContactSolverKind kind : kContactSolverKinds) {
      ImGui::SameLine();
      const std::string label = std::string(contactSolverName(kind)) + "##contact";
      const bool selected = step->solverKind() == kind;
      if (ImGui::RadioButton(label.c_str(), selected) && !selected) state.requests.contact_solver = kind;
      state.widgets.noteLastItem(label);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", contactSolverDescription(kind));
    }
  }
}

void settingsSection(GuiState& state, SimulationSession* session) {
  const bool open = ImGui::CollapsingHeader("Settings");
  state.widgets.noteLastItem("Settings");
  if (!open) return;
  SolverSettings& s = state.settings;
  ImGui::BeginDisabled(s.mu_auto);
  ImGui::SetNextItemWidth(150.0f);
  // Unset: the field shows the μ in use (a penalty solver's default is auto); typing one sets it.
  const bool bound = session != nullptr;
  double mu = s.mu ? *s.mu : bound ? session->simulation().scene().solver_settings.muValue() : kDefaultMu;
  if (ImGui::InputDouble("mu", &mu, 0.0, 0.0, "%.3g")) s.mu = mu;
  state.widgets.noteLastItem("mu");
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::Checkbox("auto##mu", &s.mu_auto);
  state.widgets.noteLastItem("auto##mu");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("at the current state (paper 001 VI-D): mu = %.0e x lambda_max(M) for the proximal "
                      "solvers; %.0e x the constraint-space inertia's largest eigenvalue for lcaba and constrained-aba",
                      kAutoMuFactorProximal, kAutoMuFactorConstraintInertia);
  if (session != nullptr && session->simulation().solverBinding().auto_mu) {
    ImGui::PushTextWrapPos(0.0f);  // the window's right edge
    ImGui::TextColored(kDimColour, "%s", asciiText(session->simulation().solverBinding().muLine()).c_str());
    ImGui::PopTextWrapPos();
  }
  if (session != nullptr && !session->simulation().solverBinding().mu_warning.empty()) {
    ImGui::PushTextWrapPos(0.0f);  // the window's right edge
    ImGui::TextColored(ImVec4(1.0f, 0.7f, 0.3f, 1.0f), "%s",
                       asciiText(session->simulation().solverBinding().mu_warning).c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::SetNextItemWidth(150.0f);
  ImGui::InputDouble("tolerance", &s.tolerance, 0.0, 0.0, "%.3g");
  state.widgets.noteLastItem("tolerance");
  // Typed, without -/+ buttons, like the fields above: with them ImGui's last item is the group of
  // frame, buttons and label, so --log-widgets could not give the frame alone (its centre may be a button).
  ImGui::SetNextItemWidth(150.0f);
  ImGui::InputInt("max iterations", &s.max_iterations, 0, 0);
  state.widgets.noteLastItem("max iterations");
  ImGui::SetNextItemWidth(150.0f);
  ImGui::InputDouble("soft weight", &s.soft_weight, 0.0, 0.0, "%.3g");
  state.widgets.noteLastItem("soft weight");
  ImGui::Checkbox("warm start", &s.warm_start);
  state.widgets.noteLastItem("warm start");
  ImGui::BeginDisabled(session == nullptr);
  if (ImGui::Button("Apply on next step")) state.requests.apply_settings = true;
  state.widgets.noteLastItem("Apply on next step");
  ImGui::EndDisabled();
  ImGui::Separator();
  ImGui::SetNextItemWidth(150.0f);
  ImGui::InputDouble("Baumgarte T (s)", &state.time_constant, 0.0, 0.0, "%.3g");
  state.widgets.noteLastItem("Baumgarte T (s)");
  ImGui::Checkbox("projection", &state.projection);
  state.widgets.noteLastItem("projection");
  ImGui::BeginDisabled(session == nullptr);
  if (ImGui::Button("Apply on next step##stabilization")) state.requests.apply_stabilization = true;
  state.widgets.noteLastItem("Apply on next step##stabilization");
  ImGui::SameLine();
  if (ImGui::Button("Apply and reset")) state.requests.reset = true;
  ImGui::EndDisabled();
  ImGui::TextColored(kDimColour, "T <= 0: no Baumgarte terms. A live change\nis recorded: the record still replays.");
}

void compareSection(GuiState& state, SimulationSession* session) {
  const bool open = ImGui::CollapsingHeader("Compare solvers", state.comparing ? ImGuiTreeNodeFlags_DefaultOpen : 0);
  state.widgets.noteLastItem("Compare solvers");
  if (!open) return;
  if (session == nullptr) {
    ImGui::TextColored(kDimColour, "no scene");
    return;
  }
  const Simulation& sim = session->simulation();
  std::vector<std::string>& chosen = state.compare_solvers;
  ImGui::BeginDisabled(state.comparing);
  for (const SolverInfo& info : solverRegistry()) {
    std::string missing = missingCapability(info.capabilities, sim.constraints());
    if (!missing.empty()) missing = "cannot take " + missing;
    else missing = session->solverRefusal(info.name);
    const auto at = std::find(chosen.begin(), chosen.end(), info.name);
    bool ticked = at != chosen.end();
    ImGui::BeginDisabled(!missing.empty());
    if (ImGui::Checkbox((info.name + "##compare").c_str(), &ticked)) {
      if (ticked) chosen.push_back(info.name);
      else chosen.erase(at);
    }
    state.widgets.noteLastItem(info.name + "##compare");
    ImGui::EndDisabled();
    if (!missing.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
      ImGui::SetTooltip("%s", asciiText(missing).c_str());
    }
  }
  if (sim.unilateralStep() != nullptr) {
    // Each ticked solver with each ticked contact solver (none ticked: the scene's).
    ImGui::TextUnformatted("with contact solver");
    std::vector<std::string>& contacts = state.compare_contact_solvers;
    for (ContactSolverKind kind : kContactSolverKinds) {
      const std::string name = contactSolverName(kind);
      ImGui::SameLine();
      const auto at = std::find(contacts.begin(), contacts.end(), name);
      bool ticked = at != contacts.end();
      if (ImGui::Checkbox((name + "##compare-contact").c_str(), &ticked)) {
        if (ticked) contacts.push_back(name);
        else contacts.erase(at);
        state.compare_reference.clear();
      }
      state.widgets.noteLastItem(name + "##compare-contact");
    }
  }
  const std::vector<std::string> runs = state.comparedRuns();
  const std::string automatic = "auto (" + SolverComparison::defaultReference(runs) + ")";
  if (ImGui::BeginCombo("reference", state.compare_reference.empty() ? automatic.c_str() : state.compare_reference.c_str())) {
    if (ImGui::Selectable(automatic.c_str(), state.compare_reference.empty())) state.compare_reference.clear();
    for (const std::string& name : runs) {
      if (ImGui::Selectable(name.c_str(), name == state.compare_reference)) state.compare_reference = name;
    }
    ImGui::EndCombo();
  }
  ImGui::EndDisabled();
  ImGui::Checkbox("side by side (else overlaid)", &state.compare_side_by_side);
  ImGui::Checkbox("ghosts as outlines (else translucent)", &state.compare_ghost_outlines);
  if (!state.comparing) {
    const int k = static_cast<int>(runs.size());
    ImGui::BeginDisabled(k < SolverComparison::kMinSolvers || k > SolverComparison::kMaxSolvers);
    if (ImGui::Button("Start comparison (from t = 0)")) state.requests.start_comparison = true;
    state.widgets.noteLastItem("Start comparison (from t = 0)");
    if (ImGui::Button("Compare from here (C)")) state.requests.compare_from_here = true;
    state.widgets.noteLastItem("Compare from here (C)");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
      ImGui::SetTooltip("every ticked solver from the state shown now (t = %.3f s)", session->shownTime());
    }
    ImGui::EndDisabled();
    ImGui::TextColored(kDimColour, "tick 2 to 6 runs (%d ticked)", k);
  } else {
    if (ImGui::Button("Stop comparison")) state.requests.stop_comparison = true;
    state.widgets.noteLastItem("Stop comparison");
  }
}

void renderingSection(GuiState& state) {
  if (!ImGui::CollapsingHeader("Rendering", ImGuiTreeNodeFlags_DefaultOpen)) return;
  OverlayToggles& t = state.toggles;
  const auto checkbox = [&state](const char* label, bool& value) {
    if (ImGui::Checkbox(label, &value)) state.requests.toggled = std::string(label) + (value ? " on" : " off");
    state.widgets.noteLastItem(label);
  };
  checkbox("body frames", t.body_frames);
  checkbox("centres of mass", t.centers_of_mass);
  checkbox("constraints + closure error", t.constraint_frames);
  checkbox("constraint forces (lambda)", t.constraint_forces);
  checkbox("contacts and their forces", t.contacts);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("contact points; normal forces green, friction forces orange");
  if ((t.constraint_forces || t.contacts) && state.force_scale > 0.0) ImGui::TextColored(kDimColour, "  arrows: 1 m = %.3g N", state.force_scale);
  checkbox("friction cones", t.friction_cones);
  // The collision geometry: off, translucent over the visuals, or alone.
  ImGui::TextUnformatted("collision geometry");  // its choices on the next line: the panel's width
  int collision = static_cast<int>(t.collision);
  const char* names[] = {"off", "over visuals", "instead"};
  for (int k = 0; k < 3; ++k) {
    if (k > 0) ImGui::SameLine();
    const std::string label = std::string("collision ") + names[k];
    if (ImGui::RadioButton((std::string(names[k]) + "##collision").c_str(), &collision, k) &&
        collision != static_cast<int>(t.collision)) {
      t.collision = static_cast<CollisionDisplay>(collision);
      state.requests.toggled = label;
    }
    state.widgets.noteLastItem(label);
  }
  checkbox("transparent", t.transparent);
  checkbox("wireframe", t.wireframe);
  checkbox("MuJoCo perturbation buttons", state.mujoco_perturb_buttons);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("on (MuJoCo's simulate): Ctrl+drag turns the selected body, Ctrl+right-drag pulls it; off: the "
                      "other way round");
  }
  if (ImGui::Button("Reset view (Ctrl+A)")) state.requests.reset_camera = true;
}

// A step of 1, 2 or 5 times a power of ten, about span / 4.
double niceStep(double span) {
  const double rough = std::max(span, 1e-9) / 4.0;
  const double decade = std::pow(10.0, std::floor(std::log10(rough)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * decade >= rough) return m * decade;
  }
  return 10.0 * decade;
}

// A profiler-style plot of `series` against the simulated time in `times` (same ring):
// the value axis labelled at its ends (`format`), the time axis in seconds before now
// with ticks, and the latest value over the top right.
void timePlot(const char* title, const SeriesBuffer& series, const SeriesBuffer& times, const char* format) {
  ImGui::TextUnformatted(title);
  const float width = std::max(120.0f, ImGui::GetContentRegionAvail().x), height = 64.0f, axis = 14.0f;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(width, height + axis));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const int n = std::min(series.count(), times.count());
  if (n < 2) {
    draw->AddRectFilled(ImVec2(origin.x, origin.y + 2.0f), ImVec2(origin.x + width, origin.y + height), IM_COL32(20, 20, 24, 255));
    return;
  }
  const auto value = [&](const SeriesBuffer& b, int k) { return b.data()[(b.offset() + k) % b.capacity()]; };
  float lo = FLT_MAX, hi = -FLT_MAX;
  for (int k = 0; k < n; ++k) {
    lo = std::min(lo, value(series, k));
    hi = std::max(hi, value(series, k));
  }
  if (lo == 0.0f && hi == 0.0f) hi = 1.0f;  // all zero (no contacts): the line at the bottom
  if (std::strcmp(format, "%.0f") == 0 && hi - lo < 2.0f) {  // counts: whole numbers at the ends
    lo = std::floor(lo) - (hi - lo < 1.0f ? 1.0f : 0.0f);
    hi = lo + 2.0f;
  }
  // A flat line sits mid-height of a range at least 2 % of its size (or 1e-12).
  const float least = std::max(1e-12f, 0.02f * std::max(std::abs(hi), std::abs(lo)));
  if (hi - lo < least) {
    const float middle = 0.5f * (hi + lo);
    lo = middle - 0.5f * least;
    hi = middle + 0.5f * least;
  }
  // The value labels first: the plot starts right of the wider one.
  char hi_text[48], lo_text[48];
  std::snprintf(hi_text, sizeof hi_text, format, static_cast<double>(hi));
  std::snprintf(lo_text, sizeof lo_text, format, static_cast<double>(lo));
  const float label_width = std::max(ImGui::CalcTextSize(hi_text).x, ImGui::CalcTextSize(lo_text).x) + 6.0f;
  const float left = origin.x + label_width, right = origin.x + width - 2.0f, top = origin.y + 2.0f, bottom = origin.y + height;
  draw->AddRectFilled(ImVec2(left, top), ImVec2(right, bottom), IM_COL32(20, 20, 24, 255));
  const float t_last = value(times, n - 1), t_first = value(times, 0);
  const float span = std::max(1e-6f, t_last - t_first);
  const auto x_of = [&](float t) { return right - (t_last - t) / span * (right - left); };
  const auto y_of = [&](float v) { return bottom - (v - lo) / (hi - lo) * (bottom - top); };
  char text[48];
  // Value axis: the shown range's ends.
  draw->AddText(ImVec2(origin.x, top), IM_COL32(170, 170, 170, 255), hi_text);
  draw->AddText(ImVec2(origin.x, bottom - ImGui::GetFontSize()), IM_COL32(170, 170, 170, 255), lo_text);
  // Time axis: ticks at whole steps before now.
  const double step = niceStep(span);
  for (double back = 0.0; back <= span + 1e-9; back += step) {
    const float x = x_of(t_last - static_cast<float>(back));
    draw->AddLine(ImVec2(x, top), ImVec2(x, bottom), IM_COL32(60, 60, 70, 255));
    std::snprintf(text, sizeof text, back == 0.0 ? "now" : "-%.3g s", back);
    const float w = ImGui::CalcTextSize(text).x;
    draw->AddText(ImVec2(std::clamp(x - 0.5f * w, left, right - w), bottom + 1.0f), IM_COL32(170, 170, 170, 255), text);
  }
  std::vector<ImVec2> points;
  points.reserve(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) points.emplace_back(x_of(value(times, k)), y_of(value(series, k)));
  draw->AddPolyline(points.data(), n, IM_COL32(110, 180, 255, 255), ImDrawFlags_None, 1.5f);
  std::snprintf(text, sizeof text, format, static_cast<double>(series.latest()));
  draw->AddText(ImVec2(right - ImGui::CalcTextSize(text).x - 4.0f, top + 2.0f), IM_COL32(255, 255, 255, 255), text);
}

// Begins an opaque panel (square corners, as MuJoCo's) that draws no background itself: GuiApp
// fills the rectangles noted here behind the UI (Window::fillBehindUi) and leaves the 3D view
// out of them. Its rectangle is noted unless only its title bar shows or it is not drawn this
// frame (a new auto-sized window's first).
void beginOpaquePanel(GuiState& state, const char* name, ImGuiWindowFlags extra_flags = 0) {
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0, 0, 0, 0));
  ImGui::Begin(name, nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove | extra_flags);
  ImGui::PopStyleColor();
  ImGui::PopStyleVar();
  if (ImGui::IsWindowCollapsed() || ImGui::GetCurrentWindowRead()->Hidden) return;
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  state.opaque_panels.push_back({pos.x, pos.y, pos.x + size.x, pos.y + size.y});
}

// Places the next window at the bottom of the free area, as wide as it (the comparison, the timeline).
void placeAtBottom(const GuiState& state) {
  const GuiState::Layout& l = state.layout;
  const float width = std::max(200.0f, l.x1 - l.x0);
  ImGui::SetNextWindowPos(ImVec2(0.5f * (l.x0 + l.x1), l.y1), ImGuiCond_Always, ImVec2(0.5f, 1));
  ImGui::SetNextWindowSizeConstraints(ImVec2(width, 0), ImVec2(width, std::max(120.0f, 0.6f * (l.y1 - l.y0))));
}

}  // namespace

void GuiState::dock(const char* name, Dock side) {
  if (ImGui::GetCurrentWindowRead()->Hidden) return;  // a new auto-sized window's first frame: no size yet
  const ImGuiWindow* window = ImGui::GetCurrentWindowRead();
  const ImVec2 pos = window->Pos, size = window->Size;
  const PanelRect rect{pos.x, pos.y, pos.x + size.x, pos.y + size.y};
  layout.panels.push_back({name, rect, window->ContentSizeIdeal.x, window->ContentRegionRect.GetWidth()});
  constexpr float kGap = 8.0f;
  switch (side) {
    case Dock::kLeft: layout.x0 = std::max(layout.x0, rect.x1 + kGap); break;
    case Dock::kRight: layout.x1 = std::min(layout.x1, rect.x0 - kGap); break;
    case Dock::kTop: layout.y0 = std::max(layout.y0, rect.y1 + kGap); break;
    case Dock::kBottom: layout.y1 = std::min(layout.y1, rect.y0 - kGap); break;
  }
}

void drawControlPanel(GuiState& state, SimulationSession* session) {
  ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_Always);
  ImGui::SetNextWindowSizeConstraints(ImVec2(kPanelWidth, 0), ImVec2(kPanelWidth, ImGui::GetIO().DisplaySize.y - 16));
  beginOpaquePanel(state, "loopsim");
  state.dock("loopsim", GuiState::Dock::kLeft);
  state.widgets.noteTitleBar("loopsim");
  fileSection(state, session);
  // A record on the timeline is played by the timeline panel: the live run's
  // controls would act on nothing shown.
  if (!state.timeline) {
    simulationSection(state, session);
    solverSection(state, session);
    settingsSection(state, session);
  }
  jointSlidersSection(state, session);
  controlSlidersSection(state, session);
  compareSection(state, session);
  renderingSection(state);
  ImGui::End();
}

void drawInfoPanel(GuiState& state, SimulationSession* session) {
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - 8, 8), ImGuiCond_Always, ImVec2(1, 0));
  ImGui::SetNextWindowSizeConstraints(ImVec2(kPanelWidth, 0), ImVec2(kPanelWidth, io.DisplaySize.y - 16));
  beginOpaquePanel(state, "Info");
  state.dock("Info", GuiState::Dock::kRight);
  if (session == nullptr) {
    ImGui::TextColored(kDimColour, "no scene loaded");
    ImGui::Text("FPS %.0f", state.fps);
    ImGui::End();
    return;
  }
  const Simulation& sim = session->simulation();
  ImGui::Text("%s", sim.scene().name.c_str());
  if (state.timeline) {
    ImGui::TextColored(kDimColour, "showing records on the timeline (the\nsimulation waits at t = %.3f s)", sim.time());
    ImGui::Text("FPS %.0f", state.fps);
    ImGui::End();
    return;
  }
  if (state.comparing) {
    // The session waits while the comparison runs: its figures would be stale.
    ImGui::TextColored(kDimColour, "comparing solvers: see the Comparison\npanel (the session resumes at\nt = %.3f s when it stops)", sim.time());
    ImGui::Text("FPS %.0f   RTF %.2f", state.fps, state.rtf);
    ImGui::End();
    return;
  }
  ImGui::Text("time       %.3f s %s", session->shownTime(), session->viewingPast() ? "(history)" : state.running ? "" : "(paused)");
  ImGui::Text("solver     %s%s", sim.scene().solver.c_str(), sim.solverBinding().selection ? " (auto)" : "");
  ImGui::Text("solve      %.1f us (median, last 1 s)", session->recentMedianSolveUs());
  if (sim.scene().projection && sim.constraints().dimension() > 0 &&
      session->simulation().solver().sharedProjectionTerms() != nullptr) {
    // The projection evaluated this solver's M, J and Λ at the new q: the
    // solve median alone would flatter joint-space solvers against the others.
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("With projection on, each step's projection evaluates M, J and the Delassus\n"
                        "matrix at the new q and this solver's next solve keeps them: the solve\n"
                        "time leaves them out (the step time includes them).");
    }
  }
  ImGui::Text("iterations %.2f", session->recentMeanIterations());
  ImGui::Text("violation  %.2e m|rad, %.2e /s", sim.positionViolation(), sim.velocityViolation());
  ImGui::Text("energy bal %.3e J", sim.energy().balance());
  if (sim.unilateralStep()) {
    const UnilateralStepResult& contact = sim.lastUnilateralStep();
    ImGui::Text("contacts   %d, limits %d", contact.contacts, contact.active_rows);
    if (contact.contacts + contact.active_rows > 0) {
      ImGui::Text("  %s: %d it, residual %.1e%s", contactSolverName(sim.unilateralStep()->solverKind()),
                  contact.solve.iterations, contact.solve.residuals.worst(), contact.solve.converged ? "" : " (cap)");
    }
  }
  ImGui::Text("FPS %.0f   RTF %.2f", state.fps, state.rtf);
  if (state.selected_body > 0 && state.selected_body < sim.model().nbodies()) {
    ImGui::Text("selected   %s%s", sim.model().body_names[static_cast<std::size_t>(state.selected_body)].c_str(),
                state.follow ? " (followed)" : "");
  }
  if (!state.divergence.empty()) {
    ImGui::PushTextWrapPos(0.0f);  // the window's right edge
    ImGui::TextColored(kErrorColour, "%s", state.divergence.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Separator();
  timePlot("solve time (us, median of the last 1 s)", session->solve_us_plot, session->time_plot, "%.1f");
  timePlot("position violation (m or rad)", session->violation_plot, session->time_plot, "%.2e");
  timePlot("energy balance (J)", session->energy_plot, session->time_plot, "%.2e");
  if (sim.unilateralStep()) timePlot("contacts", session->contacts_plot, session->time_plot, "%.0f");
  ImGui::End();
}

void drawTimelinePanel(GuiState& state, RecordTimeline& timeline) {
  placeAtBottom(state);
  beginOpaquePanel(state, "Record timeline");
  state.dock("Record timeline", GuiState::Dock::kBottom);
  const RecordedRun& first = timeline.run(0);
  if (timeline.ghosts()) {
    // The legend: each record's colour swatch and file.
    for (std::size_t k = 0; k < timeline.size(); ++k) {
      const Eigen::Vector4f c = timeline.colour(k);
      if (k > 0) ImGui::SameLine(0.0f, 24.0f);
      ImGui::ColorButton(("##record" + std::to_string(k)).c_str(), ImVec4(c[0], c[1], c[2], 1.0f), ImGuiColorEditFlags_NoTooltip,
                         ImVec2(12, 12));
      ImGui::SameLine();
      ImGui::Text("%zu: %s (ghost)", k + 1, timeline.run(k).file().filename().c_str());
    }
  } else {
    ImGui::Text("%s", first.file().filename().c_str());
  }
  if (ImGui::Button(timeline.playing() ? "Pause (Space)" : "Play (Space)", ImVec2(110, 0))) timeline.setPlaying(!timeline.playing());
  ImGui::SameLine();
  float t = static_cast<float>(timeline.time());
  ImGui::SetNextItemWidth(std::clamp(ImGui::GetContentRegionAvail().x - 260.0f, 120.0f, 360.0f));
  if (ImGui::SliderFloat("##time", &t, static_cast<float>(first.time(0)), static_cast<float>(first.duration()), "t = %.3f s")) {
    timeline.setPlaying(false);
    timeline.seek(static_cast<double>(t));
  }
  ImGui::SameLine();
  static const double kSpeeds[] = {0.125, 0.25, 0.5, 1.0, 2.0, 4.0};
  static const char* kSpeedNames[] = {"1/8x", "1/4x", "1/2x", "1x", "2x", "4x"};
  int speed = 3;
  for (int k = 0; k < 6; ++k) {
    if (kSpeeds[k] == timeline.speed()) speed = k;
  }
  ImGui::SetNextItemWidth(80.0f);
  if (ImGui::Combo("speed", &speed, kSpeedNames, 6)) timeline.setSpeed(kSpeeds[speed]);
  const std::size_t row = timeline.shownRow(0);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text("row %zu of %zu, t = %.6f s (the recorded q exactly; Left / Right: one row)", row + 1, first.rows(), first.time(row));
  ImGui::PopTextWrapPos();
  if (timeline.size() == 2) {
    const double d = timeline.divergenceNow();
    if (std::isnan(d)) ImGui::TextUnformatted("divergence |q_2 (-) q_1| = - (no row of the second record at this time)");
    else ImGui::Text("divergence |q_2 (-) q_1| = %.3e", d);
    // log10 of the divergence over the whole record, with the shown time marked.
    std::vector<float> values;
    values.reserve(timeline.divergence().size());
    for (const double x : timeline.divergence()) values.push_back(x > 0.0 ? static_cast<float>(std::max(-17.0, std::log10(x))) : -17.0f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = std::max(200.0f, ImGui::GetContentRegionAvail().x), height = 70.0f;
    ImGui::PlotLines("##divergence", values.data(), static_cast<int>(values.size()), 0, "log10 divergence", -17.0f, FLT_MAX,
                     ImVec2(width, height));
    const float x = origin.x + width * static_cast<float>(row) / static_cast<float>(std::max<std::size_t>(1, first.rows() - 1));
    ImGui::GetWindowDrawList()->AddLine(ImVec2(x, origin.y), ImVec2(x, origin.y + height), IM_COL32(255, 255, 255, 200));
  }
  ImGui::End();
}

void drawComparisonPanel(GuiState& state, ComparisonView& view) {
  const SolverComparison& comparison = view.comparison();
  placeAtBottom(state);
  beginOpaquePanel(state, "Comparison");
  state.dock("Comparison", GuiState::Dock::kBottom);
  ImGui::Text("t = %.3f s   reference %s (solid), the others %s%s", comparison.time(), comparison.reference().name.c_str(),
              state.compare_ghost_outlines ? "outlined" : "translucent", state.running ? "" : "   (paused)");
  // History of all K in lockstep: Left / Right / the slider show a past step, Enter resumes every solver from it.
  int index = static_cast<int>(view.viewedIndex().value_or(view.historySize() - 1));
  char label[64];
  std::snprintf(label, sizeof label, "t = %.3f s%s", view.shownTime(), view.viewingPast() ? " (past)" : "");
  ImGui::SetNextItemWidth(260.0f);
  if (ImGui::SliderInt("history##compare", &index, 0, static_cast<int>(view.historySize()) - 1, label)) {
    state.requests.view_index = static_cast<std::size_t>(index);
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(!view.viewingPast());
  if (ImGui::Button("Resume all from here (Enter)")) state.requests.resume_from_view = true;
  ImGui::EndDisabled();
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("solvers", 8, flags)) {
    for (const char* header : {"solver", "status", "solve us", "iter", "closure err", "energy bal J", "divergence", "> 1e-6 at"}) {
      ImGui::TableSetupColumn(header);
    }
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < view.size(); ++i) {
      const ComparedSolver& s = comparison.solvers()[i];
      const Simulation& sim = *s.simulation;
      const Eigen::Vector4f c = view.colour(i);
      const bool is_reference = static_cast<int>(i) == comparison.referenceIndex();
      ImGui::TableNextColumn();
      ImGui::ColorButton(("##colour" + std::to_string(i)).c_str(), ImVec4(c[0], c[1], c[2], 1.0f),
                         ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
      ImGui::SameLine();
      ImGui::Text("%s%s", s.name.c_str(), is_reference ? " (ref)" : "");
      ImGui::TableNextColumn();
      if (s.running()) ImGui::TextUnformatted("running");
      else ImGui::TextColored(kErrorColour, "stopped %.3f s", s.failure_time);
      if (!s.running() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.failure.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.1f", s.recentMedianSolveUs());
      ImGui::TableNextColumn();
      ImGui::Text("%d", sim.lastStep().iterations);
      ImGui::TableNextColumn();
      ImGui::Text("%.2e", sim.positionViolation());
      ImGui::TableNextColumn();
      ImGui::Text("%.2e", sim.energy().balance());
      ImGui::TableNextColumn();
      if (is_reference) ImGui::TextUnformatted("-");
      else ImGui::Text("%.2e", s.divergence);
      ImGui::TableNextColumn();
      if (is_reference) ImGui::TextUnformatted("-");
      else if (std::isnan(s.first_exceeded_time)) ImGui::TextUnformatted("never");
      else ImGui::Text("%.3f s", s.first_exceeded_time);
    }
    ImGui::EndTable();
  }
  ImGui::PushTextWrapPos(0.0f);  // long reasons wrap at the panel's edge instead of widening it
  for (const ComparedSolver& s : comparison.solvers()) {
    if (!s.running()) ImGui::TextColored(kErrorColour, "%s: %s", s.name.c_str(), s.failure.c_str());
  }
  if (!std::isnan(comparison.referenceStopTime())) {
    ImGui::TextColored(kErrorColour, "the reference stopped: divergences end at t = %.3f s", comparison.referenceStopTime());
  }
  ImGui::PopTextWrapPos();

  // Divergence from the reference over the last frames, log10 scale, one line per solver.
  ImGui::TextUnformatted("divergence |q (-) q_ref| (log scale, last 10 s; dashed: 1e-6)");
  const float width = std::max(300.0f, ImGui::GetContentRegionAvail().x), height = 90.0f;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(width, height));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float left = origin.x + 42.0f, right = origin.x + width - 4.0f, top = origin.y + 4.0f, bottom = origin.y + height - 4.0f;
  float lo = -17.0f, hi = -5.0f;  // decades shown: at least the floor to 1e-5 (the 1e-6 line inside)
  for (std::size_t i = 0; i < view.size(); ++i) {
    const SeriesBuffer& series = view.divergencePlot(i);
    for (int k = 0; k < series.count(); ++k) hi = std::max(hi, std::ceil(series.data()[(series.offset() + k) % series.capacity()]));
  }
  auto y_of = [&](float decade) { return bottom - (decade - lo) / (hi - lo) * (bottom - top); };
  draw->AddRectFilled(ImVec2(left, top), ImVec2(right, bottom), IM_COL32(20, 20, 24, 255));
  for (int d = static_cast<int>(lo); d <= static_cast<int>(hi); d += 3) {
    const float y = y_of(static_cast<float>(d));
    draw->AddLine(ImVec2(left, y), ImVec2(right, y), IM_COL32(70, 70, 80, 255));
    char label[16];
    std::snprintf(label, sizeof label, "1e%d", d);
    draw->AddText(ImVec2(origin.x, y - 7.0f), IM_COL32(170, 170, 170, 255), label);
  }
  for (float x = left; x < right; x += 8.0f) {
    draw->AddLine(ImVec2(x, y_of(-6.0f)), ImVec2(std::min(x + 4.0f, right), y_of(-6.0f)), IM_COL32(200, 200, 200, 160));
  }
  for (std::size_t i = 0; i < view.size(); ++i) {
    if (static_cast<int>(i) == comparison.referenceIndex()) continue;
    const SeriesBuffer& series = view.divergencePlot(i);
    if (series.count() < 2) continue;
    const Eigen::Vector4f c = view.colour(i);
    std::vector<ImVec2> points;
    points.reserve(static_cast<std::size_t>(series.count()));
    for (int k = 0; k < series.count(); ++k) {
      const float v = series.data()[(series.offset() + k) % series.capacity()];
      const float x = left + (right - left) * static_cast<float>(k) / static_cast<float>(series.capacity() - 1);
      points.emplace_back(x, y_of(std::clamp(v, lo, hi)));
    }
    draw->AddPolyline(points.data(), static_cast<int>(points.size()),
                      ImGui::ColorConvertFloat4ToU32(ImVec4(c[0], c[1], c[2], 1.0f)), ImDrawFlags_None, 1.5f);
  }
  ImGui::End();
}

const std::vector<std::pair<const char*, const char*>>& shortcutList() {
  static const std::vector<std::pair<const char*, const char*>> list = {
      {"Space", "run / pause"},
      {"Right", "one step (paused; in the history: the next state)"},
      {"Left", "one state back in the history (pauses; a comparison: all solvers)"},
      {"Enter", "resume from the shown past state (the later ones are dropped)"},
      {"Backspace", "reset (a comparison: restart from where it started)"},
      {"C", "compare the ticked solvers from the shown state"},
      {"- / = (keypad - / +)", "slower / faster (slow motion)"},
      {"Ctrl+L", "reload the scene from disk"},
      {"Ctrl+P", "save a screenshot (PNG, never overwrites)"},
      {"Ctrl+A", "reset the view"},
      {"Ctrl+Q", "quit"},
      {"Tab", "show / hide the panels"},
      {"Shift+Tab", "show / hide the Info panel"},
      {"F5", "fullscreen / window"},
      {"F1", "this help"},
      {"Esc", "free camera (stop following)"},
      {"Left drag", "rotate the view"},
      {"Right drag", "pan"},
      {"Scroll / middle drag", "zoom"},
      {"Double-click", "select and follow a body (empty: none)"},
      {"Ctrl+drag", "turn the selected body (recorded; MuJoCo's buttons, Rendering panel)"},
      {"Ctrl+right drag", "pull the selected body toward the cursor (recorded)"},
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

namespace {

// A message docked at the top of the free area, wrapped to its width, until its button is
// pressed (then `dismissed` is called).
template <class OnDismiss>
void drawDismissableMessage(GuiState& state, const char* title, const std::string& text, const ImVec4& background,
                            const ImVec4& colour, const char* button, OnDismiss dismissed) {
  const GuiState::Layout& l = state.layout;
  const float width = std::max(200.0f, l.x1 - l.x0);
  ImGui::SetNextWindowPos(ImVec2(0.5f * (l.x0 + l.x1), l.y0), ImGuiCond_Always, ImVec2(0.5f, 0));
  ImGui::SetNextWindowSizeConstraints(ImVec2(width, 0), ImVec2(width, std::max(80.0f, 0.4f * (l.y1 - l.y0))));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, background);
  ImGui::Begin(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse);
  ImGui::PushTextWrapPos(0.0f);  // the window's right edge
  ImGui::TextColored(colour, "%s", text.c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::Button(button)) dismissed();
  state.dock(title, GuiState::Dock::kTop);
  ImGui::End();
  ImGui::PopStyleColor();
}

}  // namespace

void drawMessages(GuiState& state) {
  const ImGuiIO& io = ImGui::GetIO();
  if (!state.error.empty()) {
    drawDismissableMessage(state, "Error", state.error, ImVec4(0.35f, 0.05f, 0.05f, 0.92f), ImVec4(1, 0.85f, 0.8f, 1),
                           "Dismiss", [&state] { state.error.clear(); });
  }
  if (!state.divergence.empty() && !state.divergence_dismissed && state.show_ui) {
    drawDismissableMessage(state, "Diverged", state.divergence + "\nThe camera looks at the red body's last sane place; "
                           "Left steps back through the history, Backspace resets.", ImVec4(0.35f, 0.05f, 0.05f, 0.92f),
                           ImVec4(1, 0.85f, 0.8f, 1), "Dismiss##diverged", [&state] { state.divergence_dismissed = true; });
  }
  if (!state.warning.empty() && state.error.empty() && state.show_ui) {
    drawDismissableMessage(state, "Warning", state.warning, ImVec4(0.33f, 0.24f, 0.02f, 0.92f), ImVec4(1, 0.93f, 0.7f, 1),
                           "Dismiss##warning", [&state] { state.warning.clear(); });
  }
  if (!state.show_ui && !state.status.empty() && ImGui::GetTime() - state.status_time < 6.0) {
    // Panels hidden: the last action's outcome floats for a few seconds instead of the status line.
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y - 8), ImGuiCond_Always, ImVec2(0.5f, 1));
    ImGui::SetNextWindowBgAlpha(0.6f);
    ImGui::Begin("##status", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoInputs);
    ImGui::TextUnformatted(state.status.c_str());
    ImGui::End();
  }
}

void drawStatusLine(GuiState& state) {
  const GuiState::Layout& l = state.layout;
  const float width = std::max(200.0f, l.x1 - l.x0);
  ImGui::SetNextWindowPos(ImVec2(l.x0, l.y1), ImGuiCond_Always, ImVec2(0, 1));
  ImGui::SetNextWindowSizeConstraints(ImVec2(width, 0), ImVec2(width, 200));
  beginOpaquePanel(state, "##status line", ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs);
  // The last action's outcome, bright for a few seconds, then dimmed until the next one.
  if (state.status.empty()) ImGui::TextColored(kDimColour, "F1: keys and mouse");
  else if (ImGui::GetTime() - state.status_time < 6.0) ImGui::TextUnformatted(state.status.c_str());
  else ImGui::TextColored(kDimColour, "%s", state.status.c_str());
  state.dock("status line", GuiState::Dock::kBottom);
  ImGui::End();
}

void drawViewLegend(const GuiState& state, const ComparisonView& view) {
  // Top left of the free area, over the 3D view: which colour is which run, and how it is drawn.
  ImGui::SetNextWindowPos(ImVec2(state.layout.x0, state.layout.y0), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.55f);
  ImGui::Begin("##legend", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoInputs |
                                        ImGuiWindowFlags_NoFocusOnAppearing);
  const SolverComparison& comparison = view.comparison();
  for (std::size_t i = 0; i < view.size(); ++i) {
    const Eigen::Vector4f c = view.colour(i);
    const bool is_reference = static_cast<int>(i) == comparison.referenceIndex();
    ImGui::ColorButton(("##legend" + std::to_string(i)).c_str(), ImVec4(c[0], c[1], c[2], 1.0f), ImGuiColorEditFlags_NoTooltip,
                       ImVec2(12, 12));
    ImGui::SameLine();
    ImGui::Text("%s  %s", comparison.solvers()[i].name.c_str(),
                is_reference ? "reference, solid" : state.compare_ghost_outlines ? "outline" : "translucent");
  }
  ImGui::End();
}

void GuiState::say(std::string message) {
  status = std::move(message);
  status_time = ImGui::GetTime();
}

}  // namespace loopsim::app
