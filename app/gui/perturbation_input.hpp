#pragma once
// Who pushes the bodies: --perturb's scripted pull over a window of simulated
// time, and the mouse (Ctrl+drag pulls the selected body toward the cursor,
// Ctrl+right-drag turns it). Both drive one MousePerturbation, applied before
// every step of the session and of every compared solver alike.
#include <memory>

#include <Eigen/Core>

#include "gui/perturbation.hpp"
#include "render/camera.hpp"
#include "render/renderer.hpp"
#include <loopsim/model/data.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim::app {

struct GuiOptions;

class PerturbationInput {
 public:
  explicit PerturbationInput(const GuiOptions& options) : options_(options) {}

  /// A newly opened model: any perturbation ends, and --perturb names no body until setScriptedBody.
  void attach(const Model& model);
  /// --perturb's body (a body id; 0 or less: none).
  void setScriptedBody(int body) { scripted_body_ = body; }

  /// Sets the step's perturbation: --perturb's inside its time window, else the mouse's (or none).
  void beforeStep(Simulation& simulation);

  /// A Ctrl+click on `body`, drawn at `pose`, starts a perturbation of it: with
  /// `mujoco_buttons` (MuJoCo's simulate) left turns and right pulls, else the other way.
  void grab(const Model& model, int body, const Eigen::Matrix4f& pose, bool mujoco_buttons);
  /// Follows the mouse while it holds a perturbation; true while it does (the camera then stays).
  bool drag(const render::OrbitCamera& camera);
  bool active() const { return perturbation_.active(); }

  /// An arrow from the body's origin to the target (pull) or along the torque (turn), when active.
  void draw(render::Renderer& renderer, float model_scale) const;

 private:
  const GuiOptions& options_;
  MousePerturbation perturbation_;
  std::unique_ptr<Data> scratch_;  // the model's kinematics for MousePerturbation::apply
  int scripted_body_ = 0;
  Eigen::Vector3d grab_plane_point_ = Eigen::Vector3d::Zero();
  Eigen::Vector2f rotate_start_mouse_ = Eigen::Vector2f::Zero();  // where a turning drag started
  int held_button_ = 0;  // the ImGuiMouseButton that holds the perturbation
};

}  // namespace loopsim::app
