#include "gui/record_playback_mode.hpp"

#include <GLFW/glfw3.h>

#include "gui/panels.hpp"
#include "gui/scripted_run_report.hpp"

namespace loopsim::app {

std::vector<std::string> RecordPlaybackMode::files() const {
  std::vector<std::string> files;
  for (std::size_t k = 0; k < timeline_->size(); ++k) files.push_back(timeline_->run(k).file().string());
  return files;
}

void RecordPlaybackMode::pauseAt(double t) {
  timeline_->setPlaying(false);
  timeline_->seek(t);
}

void RecordPlaybackMode::onKeys(const KeyPresses& keys, GuiRequests&) {
  if (keys.pressed(GLFW_KEY_SPACE)) timeline_->setPlaying(!timeline_->playing());
  if (keys.pressed(GLFW_KEY_RIGHT, true)) timeline_->stepRows(1);
  if (keys.pressed(GLFW_KEY_LEFT, true)) timeline_->stepRows(-1);
  if (keys.pressed(GLFW_KEY_BACKSPACE)) pauseAt(0.0);
}

void RecordPlaybackMode::afterAdvance() {
  live_.afterAdvance();
  timeline_->updateKinematics();
}

void RecordPlaybackMode::drawScene(float) {
  // One record solid in the model's colours; two records as two translucent ghosts in their colours.
  render::ModelStyle style;
  style.wireframe = context_.state.toggles.wireframe;
  for (std::size_t k = 0; k < timeline_->size(); ++k) {
    style.use_tint = timeline_->ghosts();
    style.tint = timeline_->colour(k);
    live_.modelView().draw(context_.renderer, timeline_->bodyPoses(k), style);
  }
}

void RecordPlaybackMode::drawPanels() { drawTimelinePanel(context_.state, *timeline_); }

void RecordPlaybackMode::addToReport(ScriptedRunReport& report) const { report.records(*timeline_); }

}  // namespace loopsim::app
