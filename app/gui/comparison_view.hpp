#pragma once
// The GUI side of a solver comparison (docs/gui.md): an engine SolverComparison
// (K simulations in lockstep, the same seam as `loopsim compare`) plus what
// drawing needs: each solver's body poses, its colour, and per-frame plot
// samples of its divergence from the reference (log10) and solve time.
// The reference is drawn solid in its colour, the others as translucent
// ghosts in theirs, overlaid or side by side. It keeps a history of the last
// seconds of every solver's states in lockstep (one ring per solver, one
// entry per comparison step): viewing a past state shows all K there, and
// resuming continues all K from it with the future dropped, as the session's
// history does.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "gui/series_buffer.hpp"
#include <loopsim/model/data.hpp>
#include <loopsim/scene/run_length.hpp>
#include <loopsim/scene/scene.hpp>
#include <loopsim/sim/solver_comparison.hpp>
#include <loopsim/sim/state_history.hpp>

namespace loopsim::app {

class ComparisonView {
 public:
  /// Throws ModelError (as SolverComparison) for a bad list of solvers. With
  /// `start`, every solver starts from that state (of a simulation of the
  /// same scene) instead of the scene's start.
  ComparisonView(const Scene& scene, const std::vector<std::string>& solvers, const std::string& reference,
                 double history_seconds = 10.0, const SimulationSnapshot* start = nullptr, int plot_frames = 600);

  SolverComparison& comparison() { return comparison_; }
  const SolverComparison& comparison() const { return comparison_; }
  std::size_t size() const { return comparison_.solvers().size(); }

  /// Steps the comparison until stepCount() == target_steps, nothing runs, or the deadline.
  void advanceTo(long target_steps, std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);
  long stepsFor(double t) const { return boundedStepCount(t, comparison_.dt()); }

  // History (lockstep): index i of every solver's ring is the same step.
  const StateHistory& history(std::size_t solver) const { return histories_[solver]; }
  std::size_t historySize() const { return histories_.front().size(); }
  std::optional<std::size_t> viewedIndex() const { return viewed_; }
  bool viewingPast() const { return viewed_.has_value(); }
  /// Moves the view by `delta` states (negative: back); at the newest state it shows the comparison again.
  void moveView(long delta);
  void viewIndex(std::size_t index);
  /// The simulated time shown (the viewed states' or the comparison's).
  double shownTime() const;
  /// Continues all K simulations from the viewed states, dropping the later ones.
  void resumeFromView();

  /// Forward kinematics of every solver's shown q (the viewed past state, or the current one).
  void updateKinematics();
  const std::vector<Eigen::Matrix4f>& bodyPoses(std::size_t solver) const { return body_poses_[solver]; }
  /// The solver's colour (RGB in [0, 1], alpha: 1 for the reference, kGhostAlpha for the others).
  Eigen::Vector4f colour(std::size_t solver) const;
  static constexpr float kGhostAlpha = 0.45f;

  /// Pushes one plot sample per solver (log10 of the divergence, median solve µs).
  void sampleFrame();
  const SeriesBuffer& divergencePlot(std::size_t solver) const { return log_divergence_[solver]; }

  /// Solvers that stopped since the last call (for the status line and the log).
  std::vector<std::size_t> newlyStopped();

 private:
  SolverComparison comparison_;
  std::vector<Data> kinematics_;
  std::vector<std::vector<Eigen::Matrix4f>> body_poses_;
  std::vector<SeriesBuffer> log_divergence_;
  std::vector<bool> reported_;
  long stepAt(std::size_t index) const;  // the comparison's step at a history index

  std::vector<StateHistory> histories_;
  std::optional<std::size_t> viewed_;
  std::vector<SimulationSnapshot> restore_scratch_;
};

}  // namespace loopsim::app
