#pragma once
// The closing report of a `--frames` run: "gui: ..." lines on stdout that the
// GUI tests and scripts read (the frame rate, where the model is on screen,
// the final state at full precision, a comparison's ghosts, the records
// shown, what went wrong), and the run's exit code.
#include <span>
#include <vector>

#include <Eigen/Core>

#include "gui/comparison_view.hpp"
#include "gui/gui_app.hpp"
#include "gui/gui_state.hpp"
#include "gui/record_timeline.hpp"
#include "gui/sim_session.hpp"
#include "render/camera.hpp"
#include "render/model_view.hpp"

namespace loopsim::app {

/// What the frame loop measured.
struct ScriptedRunTotals {
  long frames = 0;
  double wall_seconds = 0.0;       // the whole loop
  double physics_seconds = 0.0;    // of it, advancing the simulation (or the playback)
  double simulated_seconds = 0.0;  // the shown time's advance
  int msaa = 0;
};

class ScriptedRunReport {
 public:
  /// Screen boxes are measured through `camera` in a width x height framebuffer, with the open
  /// model's `view` (null: nothing open). `exit_code`: the frame loop's so far (1: a screenshot failed).
  ScriptedRunReport(const render::ModelView* view, const render::OrbitCamera& camera, int width, int height, int exit_code)
      : view_(view), camera_(camera), width_(width), height_(height), exit_code_(exit_code) {}

  void frames(const ScriptedRunTotals& totals) const;
  /// The session (shown, or waiting behind another mode): on screen, its t, q and history.
  void session(const SimulationSession& session) const;
  /// The records on the timeline: the rows shown and their q; two records' ghosts and divergence.
  void records(const RecordTimeline& timeline) const;
  /// The compared solvers, each drawn at poses[i]; a stopped solver makes the run exit 3.
  void comparison(const ComparisonView& view, const std::vector<std::vector<Eigen::Matrix4f>>& poses, bool side_by_side);
  /// The error shown and the session's divergence; returns the exit code: the first of the frame
  /// loop's, 3 for a stopped compared solver, 1 when a load or a change `failed`, 3 for a diverged session.
  int finish(const GuiState& state, const SimulationSession* session, bool failed);

 private:
  /// The pixel box (x0 y0 x1 y1) of the model drawn at `poses`; false when it is off screen.
  bool screenBox(std::span<const Eigen::Matrix4f> poses, Eigen::Vector4f& box) const;

  const render::ModelView* view_;
  const render::OrbitCamera& camera_;
  int width_, height_;
  int exit_code_;
};

}  // namespace loopsim::app
