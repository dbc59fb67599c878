#pragma once
// `loopsim gui`: the window's main loop. It wires the engine (sessions) to the
// renderer and the panels: input, requested actions, physics at a fixed
// simulated time per frame, drawing, screenshots.
#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <loopsim/scene/model_scene.hpp>

#include "gui/overlays.hpp"

namespace loopsim::app {

struct GuiOptions {
  std::string scene;   // empty: start with nothing loaded
  ModelSceneOptions model_file;  // how a URDF or MJCF opens on its own (--floating, --no-ground)
  std::string solver;  // empty: the scene's
  std::vector<std::pair<double, std::string>> solver_switches;  // (simulated time, solver), sorted
  std::optional<long> frames;  // render this many frames then exit (1/60 s of simulated time each)
  // With frames: physics follows the wall clock as in an interactive window instead of
  // 1/60 s per frame (measures the real-time factor; the frames' simulated times are not reproducible).
  bool wall_clock = false;
  std::string screenshot;      // PNG written after the last frame (must not exist)
  int width = 1280, height = 720;
  int msaa = 4;
  std::optional<std::array<double, 3>> camera;  // azimuth, elevation (deg), distance (m)
  bool hide_ui = false;
  bool left_drag_pulls = false;  // --perturb-buttons left-pulls: Ctrl+left pulls, Ctrl+right turns (else MuJoCo's)
  bool paused = false;  // start paused (Space runs)
  OverlayToggles toggles;  // --show: visual toggles on from the start
  bool show_help = false;
  std::vector<std::string> compare;  // solvers compared from the start (2 to 6), empty: none
  std::vector<std::string> tick_compare;  // --tick-compare: ticked in the panel, not started (C starts them)
  std::string compare_reference;     // empty: kkt, or the first exact solver compared
  bool compare_side_by_side = false;
  bool compare_ghost_outlines = true;  // --compare-ghosts outlines (else translucent)
  // --compare-from T: the open simulation runs to T first, then the comparison starts from its state there.
  std::optional<double> compare_from;
  std::vector<std::string> play;  // records on the timeline (one, or two overlaid)
  std::optional<double> seek;     // start the timeline paused at this time
  // Scripted perturbation (the equivalent of a Ctrl+drag): pull `perturb_body`'s
  // origin toward `perturb_target` (world) from t0 to t1 of simulated time.
  std::string perturb_body;
  double perturb_t0 = 0.0, perturb_t1 = 0.0;
  std::array<double, 3> perturb_target{0.0, 0.0, 0.0};
  double history_seconds = 10.0;  // states kept for stepping back and scrubbing
  // --set-stabilization TIME:T:on|off, sorted by time: the panel's live Baumgarte T and projection.
  struct StabilizationAt {
    double time = 0.0, time_constant = 0.0;
    bool projection = false;
  };
  std::vector<StabilizationAt> stabilization_changes;
  // --set-joint NAME=VALUE: the joint sliders' action before the first step (loops re-projected).
  std::vector<std::pair<std::string, double>> set_joints;
  std::vector<std::pair<std::string, double>> set_controls;  // --set-control JOINT=VALUE: PD targets before the first step
  std::string record;  // CSV record of every step (as `loopsim run --record`)
  bool overwrite = false;
  std::string command_line;
  bool log_events = false;   // one "event: ..." line per action on the simulation and its outcome
  bool log_widgets = false;  // "widget: ..." lines: where the panels' buttons are (WidgetLog)
};

/// Exit codes: 0 done; 1 bad input (the scene failed to load or a solver
/// switch was refused in a --frames run, a screenshot or record could not be written); 2 no display; 3 the
/// simulation diverged in a --frames run (as `loopsim run`).
constexpr int kExitNoDisplay = 2;
constexpr int kExitGuiDiverged = 3;
int runGui(const GuiOptions& options);

/// The scene files of a directory (sorted *.yaml), for the picker.
std::vector<std::string> sceneFilesIn(const std::filesystem::path& dir);

}  // namespace loopsim::app
