#pragma once
// Records on the timeline, shown over the session of the record's own scene,
// which waits: played, paused, stepped a row at a time and scrubbed. Nothing
// simulates here, so nothing can be perturbed; the panels' simulation
// controls still act on the waiting session.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gui/gui_context.hpp"
#include "gui/gui_mode.hpp"
#include "gui/live_session_mode.hpp"
#include "gui/record_timeline.hpp"

namespace loopsim::app {

class RecordPlaybackMode final : public GuiMode {
 public:
  RecordPlaybackMode(GuiContext& context, LiveSessionMode& live, std::unique_ptr<RecordTimeline> timeline)
      : context_(context), live_(live), timeline_(std::move(timeline)) {}

  /// The records' files, as opened (a reload reads them again).
  std::vector<std::string> files() const;
  /// --seek: paused at t.
  void pauseAt(double t);

  void onKeys(const KeyPresses& keys, GuiRequests& requests) override;
  void showHistory(long delta, std::optional<std::size_t> index) override { live_.showHistory(delta, index); }
  void resumeFromView() override { live_.resumeFromView(); }
  void setJoint(int, double) override {}  // the records are what they are
  void setStabilization(double time_constant, bool projection) override { live_.setStabilization(time_constant, projection); }
  void reset() override { live_.reset(); }
  void step() override { live_.step(); }

  /// 1/60 s of record time per frame in a --frames run, else the wall clock's (the timeline's speed applies).
  void advance(const FrameBudget& budget) override { timeline_->advance(budget.advance); }
  void afterAdvance() override;
  void drawScene(float model_scale) override;
  void drawPanels() override;

  double shownTime() const override { return timeline_->time(); }
  std::string whereNow() const override { return live_.whereNow(); }
  std::vector<Eigen::Matrix4f> interactionPoses() const override { return live_.interactionPoses(); }
  bool perturbable() const override { return false; }
  bool viewBounds(Eigen::Vector3f& lo, Eigen::Vector3f& hi) const override { return live_.viewBounds(lo, hi); }
  void addToReport(ScriptedRunReport& report) const override;

 private:
  GuiContext& context_;
  LiveSessionMode& live_;
  std::unique_ptr<RecordTimeline> timeline_;
};

}  // namespace loopsim::app
