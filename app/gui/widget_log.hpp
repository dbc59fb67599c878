#pragma once
// --log-widgets: where the panels' clickable widgets are on screen, one line
// per widget when it appears, moves, is hidden or goes away, so that scripts
// (the GUI tests, driving the real window with xdotool) click what a user
// clicks without guessing positions from fonts and window sizes.
//
//   widget: 'LABEL' at X0 Y0 X1 Y1     (window pixels; the box a click acts on: a slider's or a
//                                       text field's frame, without its label)
//   widget: 'LABEL' at X0 Y0 X1 Y1 disabled   (shown greyed: a click does nothing)
//   widget: 'LABEL' at X0 Y0 X1 Y1 active     (held by the mouse, or a text field taking the keys)
//   widget: 'LABEL' hidden (scrolled out below) (out of its panel's visible area: scroll the panel;
//                                                likewise "above")
//   widget: 'LABEL' hidden (under a window)     (another window is in front: click its panel's title bar)
//   widget: 'LABEL' hidden (panel not shown yet)
//   widget: 'LABEL' gone               (no longer drawn, e.g. its section was closed)
#include <map>
#include <string>

struct ImGuiWindow;

namespace loopsim::app {

class WidgetLog {
 public:
  void setEnabled(bool enabled) { enabled_ = enabled; }
  bool enabled() const { return enabled_; }

  /// Before the frame's panels are drawn.
  void beginFrame();
  /// Right after an ImGui item: remembers its rectangle under `label` (unique among the noted ones).
  void noteLastItem(const std::string& label);
  /// The current window's title bar (a click there brings the window to the front).
  void noteTitleBar(const std::string& label);
  /// After every window of the frame has ended (before ImGui::Render): prints what changed.
  void endFrame();

 private:
  struct Noted {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    ImGuiWindow* window = nullptr;
    bool disabled = false;
    bool active = false;     // held by the mouse, or a text field being edited
    bool clipped = true;     // an item inside the window's scrolled area (not its title bar)
    bool seen = false;       // noted in this frame
    std::string printed;     // the last line printed for it
  };
  bool enabled_ = false;
  std::map<std::string, Noted> widgets_;
};

}  // namespace loopsim::app
