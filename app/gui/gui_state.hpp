#pragma once
// What the panels show and edit besides the simulation itself, and the
// actions they request; GuiApp carries the requests out after drawing the UI
// (so panels never load files or rebuild solvers themselves).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gui/overlays.hpp"
#include "gui/widget_log.hpp"
#include "render/window.hpp"
#include <loopsim/solvers/solver.hpp>

namespace loopsim::app {

struct GuiRequests {
  bool toggle_running = false;  // run / pause (Space, the panel's button)
  int steps = 0;  // single steps asked for (Right, or the Step button) while paused
  bool reset = false;
  bool reload = false;
  bool screenshot = false;
  bool reset_camera = false;
  bool apply_settings = false;  // μ, tolerance, iterations, soft weight: new solver on the next step
  bool apply_stabilization = false;  // Baumgarte T and projection on the next step, state kept
  std::optional<std::string> open;    // a scene or model file
  std::optional<std::string> solver;  // switch on the next step
  std::optional<ContactSolverKind> contact_solver;  // switch on the next step
  long view_delta = 0;                       // history: move the shown state (Left / Right while paused)
  std::optional<std::size_t> view_index;     // history slider
  bool resume_from_view = false;             // Enter: continue from the shown past state
  std::optional<double> history_seconds;     // a new history length
  std::optional<std::vector<std::string>> open_records;  // the timeline: one record, or two overlaid
  bool close_records = false;
  bool start_comparison = false;      // GuiState::compare_solvers from the scene's start
  bool compare_from_here = false;     // ... from the state shown now (C)
  std::optional<std::pair<int, double>> set_joint;  // a joint slider (joint, position), while paused
  std::optional<std::pair<int, double>> set_control;  // a control slider (joint, PD target), running or paused
  bool save_keyframe = false;                 // the current state as a new keyframe
  std::optional<std::size_t> load_keyframe;   // a saved keyframe as the current state
  bool copy_pose = false;                     // q to the clipboard
  bool print_model = false, print_data = false;  // to new text files in the working directory
  bool stop_comparison = false;
  std::optional<std::string> toggled;  // a Rendering checkbox clicked, "LABEL on|off": already applied, only logged
};

struct GuiState {
  bool running = true;
  int slow_motion = 0;  // speed 1 / 2^slow_motion
  bool show_ui = true;
  bool show_info_panel = true;
  bool mujoco_perturb_buttons = true;  // Ctrl+left turns, Ctrl+right pulls (MuJoCo's); off: the other way  // the right-hand Info panel (Shift+Tab, as MuJoCo's right UI)
  bool show_help = false;
  OverlayToggles toggles;
  int selected_body = -1;
  bool follow = false;

  std::string error;      // a failed load or switch: shown until dismissed
  std::string warning;    // what the opened scene's start warned about (a pose beyond the
                          // effort limits, supports that would pull or slide): shown until dismissed
  std::string status;     // the last action's outcome, shown for a few seconds
  double status_time = 0.0;  // ImGui time when it was said
  std::string divergence; // why and when the simulation stopped
  bool divergence_dismissed = false;  // its message's Dismiss pressed (the Info panel still says it)

  double fps = 0.0;       // measured over the last second
  double rtf = 0.0;       // simulated time / wall time over the last second
  double force_scale = 0.0;  // N per metre of λ arrow (0: none drawn)

  // Scene picker and path field.
  std::vector<std::string> scene_files;
  int scene_index = -1;
  std::string open_path;
  std::string record_path, overlay_record_path;  // the timeline's fields
  bool timeline = false;  // records are shown instead of the simulation

  // Settings being edited (applied on request).
  SolverSettings settings;
  double history_seconds = 10.0;  // edited in the panel, applied on Enter
  int keyframe_index = 0;         // the keyframe the panel's Load button loads
  double time_constant = 0.1;
  bool projection = false;

  // Solver comparison (docs/gui.md): the solvers ticked in the panel, the
  // reference ("" = kkt or the first exact one), the layout, and what is on.
  std::vector<std::string> compare_solvers;
  // On scenes with contacts or limits: the contact solvers ticked (admm, pgs);
  // each ticked solver then runs with each of them (comparedRuns).
  std::vector<std::string> compare_contact_solvers;
  std::string compare_reference;
  bool compare_side_by_side = false;
  bool compare_ghost_outlines = true;  // ghosts as coloured outlines over the solid reference (else translucent)
  bool comparing = false;

  GuiRequests requests;
  WidgetLog widgets;  // --log-widgets

  // This frame's opaque panels, in ImGui's coordinates (pixels from the top left):
  // the 3D view is not drawn under them and Window::fillBehindUi fills them.
  // Filled by the panels, cleared each frame.
  using PanelRect = render::Window::UiRect;
  std::vector<PanelRect> opaque_panels;

  // This frame's docked layout, as MuJoCo's simulate docks its UI: the side
  // panels in columns, the comparison or timeline and the status line at the
  // bottom between them, messages at the top. What they leave free is the
  // area the camera frames (render::ViewArea). Reset before the panels draw.
  struct DockedPanel {
    std::string name;
    PanelRect rect;
    // Its contents' natural width (text and items unclipped, last frame) and the width it
    // has for them: more than that is text running off the panel.
    float content_width = 0, inner_width = 0;
  };
  struct Layout {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // the free area, ImGui pixels from the top left
    std::vector<DockedPanel> panels;       // docked this frame
  } layout;
  enum class Dock { kLeft, kRight, kTop, kBottom };
  /// Notes the current ImGui window as docked on `side`: the free area shrinks past it.
  void dock(const char* name, Dock side);

  double speed() const { return 1.0 / static_cast<double>(1 << slow_motion); }
  void say(std::string message);
  /// The runs a comparison starts: the ticked solvers, or with contact solvers
  /// ticked, SOLVER+CONTACT for each pair (SolverComparison's names).
  std::vector<std::string> comparedRuns() const {
    if (compare_contact_solvers.empty()) return compare_solvers;
    std::vector<std::string> runs;
    for (const std::string& solver : compare_solvers) {
      for (const std::string& contact : compare_contact_solvers) runs.push_back(solver + "+" + contact);
    }
    return runs;
  }
};

}  // namespace loopsim::app
