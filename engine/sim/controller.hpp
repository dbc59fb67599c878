#pragma once
// Joint torques for the scene's actuated joints (scene.hpp ControllerSpec):
//   none                  τ = 0
//   PD hold               τ = kp (q0 ⊖ q) - kd v           (hold the initial pose)
//   gravity compensation  τ = g(q) = RNEA(q, 0, 0)         (gravity torque only)
//   sinusoid              τ = kp (r(t) - q) + kd (ṙ(t) - v) with
//                         r(t) = offset + A sin(2π f t + phase) on driven joints;
//                         actuated joints without a drive hold their initial position.
// τ is zero on every dof of an unactuated joint, and clamped to the model's
// effort limit (finite and > 0) on every actuated dof: a motor cannot exceed
// it. Saturated dofs are counted for the run summary. compute() never allocates.
#include <vector>

#include "model/data.hpp"
#include "scene/scene.hpp"

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

  const ControllerSpec& spec() const { return spec_; }
  /// 1 on the dofs of actuated joints, 0 elsewhere (size nv).
  const VectorX& actuatedMask() const { return actuated_mask_; }
  /// How many compute() calls clamped τ on each dof (size nv), and on any dof.
  const std::vector<long>& saturatedCallsPerDof() const { return saturated_per_dof_; }
  long saturatedCalls() const { return saturated_calls_; }

 private:
  const Model& model_;
  ControllerSpec spec_;
  VectorX q0_;
  VectorX actuated_mask_;
  std::vector<int> drive_of_joint_;  // per joint: index into spec_.drives or -1
  Data data_;                        // RNEA workspace (gravity compensation)
  VectorX position_error_;           // q0 ⊖ q, size nv
  VectorX zero_nv_;
  std::vector<long> saturated_per_dof_;
  long saturated_calls_ = 0;
};

/// "none", "pd_hold", "gravity_compensation", "sinusoid".
const char* controllerKindName(ControllerSpec::Kind kind);

}  // namespace loopsim
