#pragma once
// The live simulation: the open scene's session and its drawing, run, paused,
// stepped, reset, browsed in its history and edited (joints, stabilization),
// with the command line's scripted changes at their steps. A comparison or
// records on the timeline are shown over it while the session waits.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gui/gui_context.hpp"
#include "gui/gui_mode.hpp"
#include "gui/sim_session.hpp"
#include "render/model_view.hpp"

namespace loopsim::app {

class LiveSessionMode final : public GuiMode {
 public:
  /// The scene's simulation and its drawing; throws (ModelError, ...) when either cannot be made.
  LiveSessionMode(GuiContext& context, Scene scene, const std::filesystem::path& file);

  SimulationSession& session() { return *session_; }
  const SimulationSession& session() const { return *session_; }
  const render::ModelView& modelView() const { return *view_; }

  /// `gui --record`: every following step into GuiOptions::record (throws when it cannot be written).
  void startRecording();
  /// Ends the record being written, if any.
  void finishRecording();
  /// Drops the record being written, if any (its temporary file is removed), as
  /// an interrupted `run` does. True when there was one.
  bool discardRecording();
  /// Steps to target_steps, making the --set-stabilization and --switch-solver changes at their steps.
  void stepWithSwitches(long target_steps, std::optional<Clock::time_point> deadline);
  /// Physics goes on from the session's time, owing nothing (the session waited behind a comparison).
  void catchUp() { target_time_ = session_->simulation().time(); }

  void onKeys(const KeyPresses& keys, GuiRequests& requests) override;
  void showHistory(long delta, std::optional<std::size_t> index) override;
  void resumeFromView() override;
  /// Paused at the newest state only: the session re-projects the loops.
  void setJoint(int joint, double value) override;
  /// A control slider: the joint's PD target (the simulation goes on); refused while recording.
  void setControl(int joint, double value);
  /// Keyframes: the current state (and PD target) kept; loading one makes it the current
  /// state, paused (a record in progress ends first: it cannot jump).
  void saveKeyframe();
  void loadKeyframe(std::size_t index);
  /// Recorded as a change of the run: the record still replays.
  void setStabilization(double time_constant, bool projection) override;
  void reset() override;
  void step() override;

  void advance(const FrameBudget& budget) override;
  void afterAdvance() override;
  void drawScene(float model_scale) override;
  void drawPanels() override {}

  double shownTime() const override { return session_->simulation().time(); }
  std::string whereNow() const override;
  std::vector<Eigen::Matrix4f> interactionPoses() const override { return session_->bodyPoses(); }
  bool perturbable() const override { return true; }
  bool viewBounds(Eigen::Vector3f& lo, Eigen::Vector3f& hi) const override;
  void addToReport(ScriptedRunReport&) const override {}  // the report's session lines, for every mode

 private:
  GuiContext& context_;
  std::unique_ptr<SimulationSession> session_;
  std::unique_ptr<render::ModelView> view_;
  bool recording_ = false;
  bool divergence_reported_ = false;
  double target_time_ = 0.0;  // where physics should be after this frame
};

}  // namespace loopsim::app
