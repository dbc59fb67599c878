#pragma once
// Frame Jacobians: J v = frameVelocity(frame, rf). Rows are [angular; linear].
#include <loopsim/algorithms/kinematics.hpp>

namespace loopsim {

/// Needs forwardKinematics(q) first. J must be 6 x nv; it is overwritten.
void frameJacobian(const Model& model, const Data& data, int frame_id, ReferenceFrame rf,
                   Eigen::Ref<Matrix6X> J);

/// Body Jacobian of body `body` at a point placement in that body, convention rf.
void bodyPointJacobian(const Model& model, const Data& data, int body, const SE3& placement, ReferenceFrame rf,
                       Eigen::Ref<Matrix6X> J);

}  // namespace loopsim
