#pragma once
// What the GUI's modes share with the window that shows them. GuiApp owns all
// of it and outlives every mode, so a mode keeps references.
#include <cstddef>
#include <functional>
#include <string>

#include <spdlog/spdlog.h>

#include "gui/gui_app.hpp"
#include "gui/gui_state.hpp"
#include "gui/perturbation_input.hpp"
#include "render/camera.hpp"
#include "render/mesh_files.hpp"
#include "render/renderer.hpp"

namespace loopsim::app {

/// How far the command line's --set-stabilization and --switch-solver lists
/// have been carried out. One schedule for the whole run: a comparison started
/// from the session's state takes the changes after the ones the session took.
struct ScriptProgress {
  std::size_t next_switch = 0;         // in GuiOptions::solver_switches
  std::size_t next_stabilization = 0;  // in GuiOptions::stabilization_changes
};

/// What makes a --frames run exit 1 (the error is shown in the window too).
struct RunFailures {
  bool load = false;     // the last open failed
  bool change = false;   // a --switch-solver, --set-joint or stabilization change was refused
  bool compare = false;  // a list of compared solvers was refused
  bool any() const { return load || change || compare; }
};

struct GuiContext {
  const GuiOptions& options;
  GuiState& state;
  render::Renderer& renderer;
  render::MeshCache& meshes;
  const render::OrbitCamera& camera;  // the side-by-side layout goes across the view
  PerturbationInput& perturbation;    // applied before every simulated step
  ScriptProgress& script;
  RunFailures& failures;
  std::function<void()> reset_camera;  // frames what is shown now
  std::function<void(const Eigen::Vector3f&)> look_at;  // turns the camera to a point (kept as if the user had)

  /// --log-events: one line per UI action (key, button, drop), saying what it did.
  void logEvent(const std::string& what) const {
    if (options.log_events) spdlog::info("event: {}", what);
  }
};

}  // namespace loopsim::app
