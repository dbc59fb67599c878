#pragma once
// One simulation as the GUI sees it: the scene (a YAML scene, or a URDF/MJCF
// robot wrapped in one), its Simulation, the kinematics used for drawing and
// the statistics shown in panels and plots. The GUI owns a list of these; the
// renderer only ever receives body poses, so several sessions of the same
// model can be drawn side by side or as ghosts.
#include <chrono>
#include <functional>
#include <map>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "gui/series_buffer.hpp"
#include <loopsim/model/data.hpp>
#include <loopsim/record/recorder.hpp>
#include <loopsim/scene/model_scene.hpp>
#include <loopsim/scene/scene.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/sim/state_history.hpp>

namespace loopsim::app {

/// Loads a .yaml scene, or a .urdf / .xml (MJCF) model as a scene of its own
/// (no controller; a floating-base model on a ground under its feet unless
/// `model_file` says otherwise: scene/model_scene.hpp). Throws ModelError naming the file.
Scene loadSceneOrModel(const std::filesystem::path& file, const ModelSceneOptions& model_file = {});

class SimulationSession {
 public:
  /// Plots keep `plot_frames` samples (one per rendered frame); the history
  /// keeps the last `history_seconds` of states (one per step).
  SimulationSession(Scene scene, std::filesystem::path file, int plot_frames = 600, double history_seconds = 10.0);

  const std::filesystem::path& file() const { return file_; }
  Simulation& simulation() { return *simulation_; }
  const Simulation& simulation() const { return *simulation_; }
  /// The scene the next reset() starts from (its T and projection may be edited).
  Scene& sceneForReset() { return scene_; }

  /// Restarts from the scene's initial state with its current settings and solver.
  void reset();
  /// Switches the solver on the next step, state kept (scene checks as on the command line).
  void setSolver(const std::string& name, const SolverSettings& settings);
  /// Switches the contact solver (admm, pgs) on the next step, state kept; a reset keeps it.
  void setContactSolver(ContactSolverKind kind);
  /// Why the scene checks refuse a registered solver ("" when they accept it),
  /// found once for the scene: the solver panel greys it with this reason.
  const std::string& solverRefusal(const std::string& name) const;

  /// Steps until stepCount() == target_steps, divergence, or the wall-clock
  /// deadline. Returns the number of steps taken.
  long advanceTo(long target_steps, std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);
  /// Steps of scene dt for a simulated time t (rounded to the nearest step; held
  /// at most 1e9 + 1, so a time no run reaches never overflows to an early step).
  long stepsFor(double t) const;

  /// Called before every step (the GUI's perturbation sets the step's external wrench).
  std::function<void(Simulation&)> before_step;

  /// Streams every following step to a CSV record (`loopsim run --record` format, with the
  /// perturbation column group, so that a perturbed run replays bit for bit).
  void startRecording(const std::filesystem::path& csv, bool overwrite);
  void finishRecording(const std::string& command_line);
  /// Drops the record being written: its temporary file is removed.
  void discardRecording() { recorder_.reset(); }

  // History: the last seconds of states. Viewing a past state shows it (and
  // stops stepping); resuming from it restores the simulation there and drops
  // the states after it, as MuJoCo's simulate does.
  const StateHistory& history() const { return history_; }
  double historySeconds() const { return history_seconds_; }
  /// A new length (s): the ring is rebuilt, keeping only the current state.
  void setHistorySeconds(double seconds);
  /// The index in history() of the state shown when it is a past one.
  std::optional<std::size_t> viewedIndex() const { return viewed_; }
  bool viewingPast() const { return viewed_.has_value(); }
  /// Moves the view by `delta` states (negative: back); at the newest state it shows the simulation again.
  void moveView(long delta);
  void viewIndex(std::size_t index);
  /// The simulated time shown (the viewed state's or the simulation's).
  double shownTime() const;
  /// Continues the simulation from the viewed state, dropping the later ones.
  void resumeFromView();
  bool recording() const { return recorder_ != nullptr; }

  /// The joint sliders (while paused): sets a 1-dof joint's position, stops
  /// the motion (v = 0) and re-projects the other joints onto the constraints
  /// with this one held, so loops stay closed; the controller then holds the
  /// new pose. The history restarts from it (the past is another run). Throws
  /// ModelError (state unchanged) when the loops cannot close there or the
  /// pose cannot be held.
  void setJointPosition(int joint, double value);

  /// The control sliders (as MuJoCo's actuator sliders): moves the PD target of an actuated
  /// 1-dof joint to `value` while the simulation goes on, the target's other joints
  /// re-projected onto the loops as a joint slider does; the controller's holding
  /// feed-forward follows. Throws ModelError (target unchanged) naming the joint when
  /// controlRefusal says why not, or when the target pose cannot close or be held.
  void setControlTarget(int joint, double value);
  /// Keyframes (MuJoCo's keys): the current state and PD target kept in memory; loading one
  /// makes it the current state (the history restarts there). Throws ModelError for an index
  /// out of range.
  struct Keyframe {
    SimulationSnapshot state;
    VectorX held_pose;
  };
  std::size_t saveKeyframe();  // its index
  void loadKeyframe(std::size_t index);
  const std::vector<Keyframe>& keyframes() const { return keyframes_; }
  /// Why `joint` has no control slider ("" when it has one).
  std::string controlRefusal(int joint) const;
  /// Where `body` was (world position) in the newest kept state in which it is finite and
  /// within `max_travel` of where it was in the oldest kept state: a diverged run's last
  /// sane place, for the camera.
  std::optional<Eigen::Vector3d> lastSaneBodyPosition(int body, double max_travel) const;
  /// Forward kinematics at the shown q (for drawing and picking).
  void updateKinematics();
  const Data& kinematics() const { return kinematics_; }
  const std::vector<Eigen::Matrix4f>& bodyPoses() const { return body_poses_; }

  /// Pushes the per-frame plot samples.
  void sampleFrame();
  /// Median solve time (µs) and mean iterations over the last second of steps.
  double recentMedianSolveUs();
  double recentMeanIterations() const;

  SeriesBuffer solve_us_plot, violation_plot, energy_plot;
  SeriesBuffer time_plot;  // the simulated time of each plotted sample (the plots' time axis)
  SeriesBuffer contacts_plot;  // active contacts, on scenes with contact geometry

 private:
  void recordStepStatistics();
  /// `q` with 1-dof `joint` at `value` (checked against its slider range) and the other
  /// joints moved along the loops' branch to close them (element: who asks, for errors).
  VectorX poseWithJointAt(VectorX q, int joint, double value, const char* element) const;

  std::map<std::string, std::string> solver_refusals_;  // per registered solver
  Scene scene_;
  std::filesystem::path file_;
  std::unique_ptr<Simulation> simulation_;
  double history_seconds_;
  StateHistory history_;
  std::optional<std::size_t> viewed_;
  SimulationSnapshot restore_scratch_;
  std::unique_ptr<SimulationRecorder> recorder_;
  Data kinematics_;
  std::vector<Eigen::Matrix4f> body_poses_;
  // The last second of per-step solve times and iterations (rings).
  std::vector<double> recent_solve_us_, recent_iterations_, median_scratch_;
  std::size_t recent_next_ = 0, recent_count_ = 0;
  std::vector<Keyframe> keyframes_;
};

}  // namespace loopsim::app
