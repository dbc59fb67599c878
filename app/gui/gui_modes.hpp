#pragma once
// Which modes the window has and how one gives way to another: the live
// session of the open scene, and over it, while the session waits, either a
// comparison of solvers or records on the timeline. Opening a scene or
// records replaces them all; a comparison starts and stops over the session.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gui/comparison_mode.hpp"
#include "gui/gui_context.hpp"
#include "gui/gui_mode.hpp"
#include "gui/live_session_mode.hpp"
#include "gui/record_playback_mode.hpp"
#include "render/window.hpp"

namespace loopsim::app {

class GuiModes {
 public:
  GuiModes(GuiContext& context, render::Window& window) : context_(context), window_(window) {}

  /// What the command line opens: the scene (with --solver, --record, --perturb, --set-joint), the
  /// records (--play, --seek), the comparison (--compare, --compare-from).
  void openCommandLine();

  /// Records on the timeline or a comparison over the session, else the session; null: nothing open.
  GuiMode* shown() const;
  LiveSessionMode* live() const { return live_.get(); }
  ComparisonMode* comparison() const { return comparison_.get(); }
  RecordPlaybackMode* playback() const { return playback_.get(); }

  /// A scene or robot file (or a record's own scene, `loaded`) in place of whatever is open; when
  /// it fails, the error is shown and what was open stays.
  void open(const std::string& path, bool from_command_line = false, bool keep_camera = false,
            std::optional<Scene> loaded = std::nullopt);
  /// One record, or two overlaid, on the timeline over a session of the first one's scene.
  void openRecords(const std::vector<std::string>& files);
  void closeRecords();
  /// False (the error shown) when the ticked list is refused.
  bool startComparison(bool from_shown_state);
  void stopComparison();

 private:
  /// The command line's scheduled times (--switch-solver, --set-stabilization,
  /// --compare-from) at the opened scene's dt: a refusal shows in the window
  /// (false: no comparison is started).
  bool checkScheduledTimes();
  GuiContext& context_;
  render::Window& window_;
  // The modes over the session hold it by reference: declared after it, destroyed before it.
  std::unique_ptr<LiveSessionMode> live_;
  std::unique_ptr<ComparisonMode> comparison_;
  std::unique_ptr<RecordPlaybackMode> playback_;
};

}  // namespace loopsim::app
