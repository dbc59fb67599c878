#pragma once
// What the window shows and steps: the live simulation (LiveSessionMode), a
// comparison of solvers (ComparisonMode) or records on a timeline
// (RecordPlaybackMode). The frame hands the shown mode its keys and the
// panels' requests, lets it advance, draw and report, and never asks which
// mode it is; only opening, closing and switching modes name one.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "gui/gui_state.hpp"
#include "render/window.hpp"

namespace loopsim::app {

class ScriptedRunReport;
using Clock = std::chrono::steady_clock;

/// This frame's key presses, from GLFW's events (Window::keyPressMods): never lost in a slow frame.
class KeyPresses {
 public:
  explicit KeyPresses(const render::Window& window) : window_(window) {}
  bool pressed(int key, bool repeat = false) const { return window_.keyPressMods(key, repeat) >= 0; }
  /// Presses in this frame (auto-repeats included when `repeat`): keys faster than frames queue.
  int count(int key, bool repeat = false) const { return window_.keyPressCount(key, repeat); }
  bool ctrlPressed(int key) const;

 private:
  const render::Window& window_;
};

/// One frame's share of physics.
struct FrameBudget {
  /// Simulated time the frame adds at speed 1: 1/60 s in a scripted run (reproducible), else the
  /// wall clock since the last frame, capped, so that a slow frame never starts a spiral of slower ones.
  double advance = 0.0;
  bool bounded = false;  // interactive: stepping stops kMaxStepping after it starts, the rest dropped
  static constexpr auto kMaxStepping = std::chrono::milliseconds(40);
  std::optional<Clock::time_point> deadline() const {
    return bounded ? std::optional(Clock::now() + kMaxStepping) : std::nullopt;
  }
};

class GuiMode {
 public:
  virtual ~GuiMode() = default;

  // Input. The frame carries the requests out in this order (GuiApp::carryOutRequests).
  /// Space, Left, Right, Enter, Backspace, C: the requests they make, or the mode's own action.
  virtual void onKeys(const KeyPresses& keys, GuiRequests& requests) = 0;
  /// Shows a past state (pausing): `delta` states from the one shown, or the history slider's `index`.
  virtual void showHistory(long delta, std::optional<std::size_t> index) = 0;
  /// Continues from the past state shown, dropping the later ones.
  virtual void resumeFromView() = 0;
  /// A joint slider's change.
  virtual void setJoint(int joint, double value) = 0;
  /// Baumgarte T and projection from the next step on.
  virtual void setStabilization(double time_constant, bool projection) = 0;
  virtual void reset() = 0;
  /// One step, while paused.
  virtual void step() = 0;

  // The frame.
  virtual void advance(const FrameBudget& budget) = 0;
  /// Reports what stopped (divergence) and updates the kinematics of what is drawn.
  virtual void afterAdvance() = 0;
  /// The bodies (between the renderer's beginScene and endScene); `model_scale` sizes frames and arrows.
  virtual void drawScene(float model_scale) = 0;
  /// The mode's own panels, beside the control and information panels.
  virtual void drawPanels() = 0;

  // What is shown.
  /// Its simulated time (the RTF and a scripted run's report measure it).
  virtual double shownTime() const = 0;
  /// "t = T s (step N)", for the event log.
  virtual std::string whereNow() const = 0;
  /// The poses that double-click picking and the mouse perturbation act on.
  virtual std::vector<Eigen::Matrix4f> interactionPoses() const = 0;
  virtual bool perturbable() const = 0;
  /// What the camera frames; false when there is nothing to frame.
  virtual bool viewBounds(Eigen::Vector3f& lo, Eigen::Vector3f& hi) const = 0;
  /// The mode's lines in a --frames run's report (after the session's).
  virtual void addToReport(ScriptedRunReport& report) const = 0;

 protected:
  /// The keys of a simulation (the session's or a comparison's): Space runs or pauses, Right steps
  /// (or, viewing the past, moves forward), Left moves back, Enter resumes, Backspace resets.
  static void simulationKeys(const KeyPresses& keys, bool viewing_past, GuiRequests& requests);
};

}  // namespace loopsim::app
