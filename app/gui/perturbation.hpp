#pragma once
// The GUI's mouse perturbation (docs/gui.md): with a body selected, Ctrl+drag
// pulls its origin toward a target point under the cursor with a
// spring-damper force, Ctrl+right-drag turns it toward a target orientation
// with a spring-damper torque. The wrench is recomputed from the body's state
// before every step and handed to Simulation::setPerturbation (fext, in the
// body frame about its origin), so it is recorded and replays bit for bit.
// The same perturbation (target and gains) drives every solver of a comparison.
#include <Eigen/Core>
#include <Eigen/Geometry>

#include <loopsim/model/data.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim::app {

class MousePerturbation {
 public:
  enum class Mode { None, Translation, Rotation };

  /// Starts pulling `body` of `model`: its origin toward `target` (translation),
  /// or its orientation toward its current one turned by a rotation vector (rotation).
  void beginTranslation(const Model& model, int body, const Eigen::Vector3d& target);
  void beginRotation(const Model& model, int body, const Eigen::Matrix3d& orientation);
  void setTarget(const Eigen::Vector3d& target) { target_ = target; }
  /// Turns the target orientation by a world rotation vector (rad) from the one at the start.
  void setRotation(const Eigen::Vector3d& rotation_vector) { rotation_vector_ = rotation_vector; }
  void end() { mode_ = Mode::None; }

  Mode mode() const { return mode_; }
  bool active() const { return mode_ != Mode::None; }
  int body() const { return body_; }
  const Eigen::Vector3d& target() const { return target_; }

  /// Sets (or clears) the simulation's perturbation for its next step from its
  /// current state. `scratch` is a Data of the model (kinematics).
  void apply(Simulation& simulation, Data& scratch) const;
  /// The world force (translation) or torque (rotation) the last apply() set.
  const Eigen::Vector3d& lastWorldVector() const { return last_world_; }
  /// Where the body origin was at the last apply() (world).
  const Eigen::Vector3d& lastOrigin() const { return last_origin_; }

 private:
  Mode mode_ = Mode::None;
  int body_ = 0;
  Eigen::Vector3d target_ = Eigen::Vector3d::Zero();
  Eigen::Matrix3d start_orientation_ = Eigen::Matrix3d::Identity();
  Eigen::Vector3d rotation_vector_ = Eigen::Vector3d::Zero();
  double stiffness_ = 0.0, damping_ = 0.0;  // N/m and N s/m, or N m/rad and N m s/rad
  mutable Eigen::Vector3d last_world_ = Eigen::Vector3d::Zero(), last_origin_ = Eigen::Vector3d::Zero();
};

}  // namespace loopsim::app
