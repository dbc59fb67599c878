#pragma once
// A comparison of the ticked solvers, shown over the session, which
// waits: every solver from the scene's start or from the state the session
// showed, in lockstep, the reference solid and the others ghosts (overlaid or
// side by side). Its keys and history act on all the solvers at once.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gui/comparison_view.hpp"
#include "gui/gui_context.hpp"
#include "gui/gui_mode.hpp"
#include "gui/live_session_mode.hpp"

namespace loopsim::app {

class ComparisonMode final : public GuiMode {
 public:
  /// The ticked solvers (GuiState::compare_solvers) from the scene's start or, `from_shown_state`, from
  /// the state the session shows (a past one when viewing its history). Null, the error shown, when
  /// the list is refused.
  static std::unique_ptr<ComparisonMode> start(GuiContext& context, LiveSessionMode& live, bool from_shown_state);

  const ComparisonView& view() const { return *view_; }

  void onKeys(const KeyPresses& keys, GuiRequests& requests) override;
  void showHistory(long delta, std::optional<std::size_t> index) override;
  void resumeFromView() override;
  void setJoint(int, double) override {}  // the joints are the session's (it waits)
  /// Every running solver from its next step on (the session waits meanwhile).
  void setStabilization(double time_constant, bool projection) override;
  /// Restarts from the state it started from (the scene's start, or where "compare from here" was).
  void reset() override;
  void step() override;

  void advance(const FrameBudget& budget) override;
  void afterAdvance() override;
  void drawScene(float model_scale) override;
  void drawPanels() override;

  double shownTime() const override { return view_->shownTime(); }
  std::string whereNow() const override;
  std::vector<Eigen::Matrix4f> interactionPoses() const override;
  bool perturbable() const override { return true; }
  bool viewBounds(Eigen::Vector3f& lo, Eigen::Vector3f& hi) const override;
  void addToReport(ScriptedRunReport& report) const override;

 private:
  ComparisonMode(GuiContext& context, LiveSessionMode& live, std::optional<SimulationSnapshot> start);
  /// A new comparison from the start state with the panel's settings (as a reset would use them);
  /// false, the error shown and the running comparison kept, when the list is refused.
  bool restart();
  /// Steps to target_steps, making the --set-stabilization changes at their steps.
  void advanceTo(long target_steps, std::optional<Clock::time_point> deadline);
  /// Solver i's body poses where the layout puts it (side by side: shifted across the view).
  std::vector<Eigen::Matrix4f> poses(std::size_t solver) const;

  GuiContext& context_;
  LiveSessionMode& live_;
  std::optional<SimulationSnapshot> start_;  // the state it starts from (none: the scene's start)
  std::unique_ptr<ComparisonView> view_;
  Eigen::Vector3f side_by_side_step_ = Eigen::Vector3f::Zero();  // between neighbours in the side-by-side layout
  double target_time_ = 0.0;  // where the comparison should be after this frame
};

}  // namespace loopsim::app
