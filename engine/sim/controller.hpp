#pragma once
// Joint torques for the scene's actuated joints (scene.hpp ControllerSpec):
//   none                  τ = 0
//   PD hold               τ = kp (q0 ⊖ q) - kd v           (hold the initial pose)
//   gravity compensation  τ = g(q) = RNEA(q, 0, 0)         (gravity torque only)
//   sinusoid              τ = kp (r(t) - q) + kd (ṙ(t) - v) with
//                         r(t) = offset + A sin(2π f t + phase) on driven joints;
//                         actuated joints without a drive hold their initial position.
// With feedforward: hold (PD hold, sinusoid) τ also carries the constant
// holding torque τ_hold of the held pose (control/holding_forces.hpp): the
// least-effort torques that, with the constraint forces, balance gravity and
// the springs at rest there, so the PD acts on errors only and the robot does
// not sag to build them up. hold() sets it (Simulation calls it at start on the
// consistent initial pose; a GUI calls it again when it moves the pose).
// τ is zero on every dof of an unactuated joint. compute() never allocates.
// The control effort beyond the holding feed-forward is clamped to the model's
// effort limit (finite and > 0) on every actuated dof; the feed-forward itself
// is applied in full (hold() warns where it exceeds a limit). Saturated dofs
// are counted for the run summary.
#include <string>
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/control/holding_forces.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/scene/scene.hpp>

namespace loopsim {

class Controller {
 public:
  /// Validates the spec against the model (joint indices, finite gains, drives
  /// only on actuated one-dof joints); throws ModelError naming the problem.
  Controller(const Model& model, const ControllerSpec& spec, const std::vector<int>& actuated_joints,
             const VectorX& q0);

  /// Writes the applied generalised force (size nv) at time t and state (q, v).
  void compute(double t, const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
               Eigen::Ref<VectorX> tau);

  /// Makes q the held pose: the PD target (and the hold of joints without a
  /// drive) and, with feedforward: hold, recomputes τ_hold at q for the
  /// constraint set. Throws ModelError when q cannot be held with the actuated
  /// joints (the controller keeps its previous pose and τ_hold then). Allocates.
  void hold(const ConstraintSet& constraints, const Eigen::Ref<const VectorX>& q);
  /// τ_hold (size nv, zero unless feedforward: hold) and the forces it was computed with.
  const VectorX& feedforward() const { return feedforward_; }
  const HoldingForces& holding() const { return holding_; }
  /// What the last hold() warned about (a holding torque beyond an effort limit), for the window.
  const std::vector<std::string>& holdWarnings() const { return hold_warnings_; }
  const VectorX& heldPose() const { return q0_; }

  const ControllerSpec& spec() const { return spec_; }
  /// 1 on the dofs of actuated joints, 0 elsewhere (size nv).
  const VectorX& actuatedMask() const { return actuated_mask_; }
  /// ∂τ/∂v = −diag(derivativeGains()): kd on the dofs the PD terms act on
  /// (pd_hold, sinusoid), 0 elsewhere (size nv). Implicit damping integrates
  /// this part of τ implicitly.
  VectorX derivativeGains() const;
  /// How many compute() calls clamped τ on each dof (size nv), and on any dof.
  const std::vector<long>& saturatedCallsPerDof() const { return saturated_per_dof_; }
  long saturatedCalls() const { return saturated_calls_; }
  /// 1 on the dofs the last compute() saturated, 0 elsewhere (size nv).
  const VectorX& saturatedNow() const { return saturated_now_; }

 private:
  /// τ = kp (q0 ⊖ q) − kd v + τ_hold, with q0 ⊖ q formed on the actuated
  /// joints only (τ is masked to them afterwards).
  void pdOnActuatedJoints(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                          Eigen::Ref<VectorX> tau);

  const Model& model_;
  ControllerSpec spec_;
  VectorX q0_;
  VectorX actuated_mask_;
  std::vector<int> actuated_joints_;
  std::vector<int> limited_dofs_;    // actuated dofs with a finite effort limit > 0
  std::vector<int> drive_of_joint_;  // per joint: index into spec_.drives or -1
  VectorX feedforward_;              // τ_hold, size nv
  HoldingForces holding_;
  std::vector<std::string> hold_warnings_;
  Data data_;                        // RNEA workspace (gravity compensation)
  VectorX position_error_;           // q0 ⊖ q, size nv
  VectorX zero_nv_;
  std::vector<long> saturated_per_dof_;
  VectorX saturated_now_;
  long saturated_calls_ = 0;
};

/// "none", "pd_hold", "gravity_compensation", "sinusoid".
const char* controllerKindName(ControllerSpec::Kind kind);

}  // namespace loopsim
