#pragma once
// Forward kinematics and frame quantities.
#include <loopsim/model/data.hpp>

namespace loopsim {

/// How a frame's spatial velocity / Jacobian is expressed.
///  Local:             in the frame's own axes, about the frame origin (body twist).
///  LocalWorldAligned: about the frame origin, in world-aligned axes
///                     (linear part = classical velocity of the origin in world axes).
///  World:             in world axes, about the world origin (spatial twist).
enum class ReferenceFrame { Local, LocalWorldAligned, World };

/// Placements liMi, oMi (and data.S, the motion subspaces in body frames).
void forwardKinematics(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q);
/// Also body velocities data.v (body frames).
void forwardKinematics(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                       const Eigen::Ref<const VectorX>& v);
/// Also body spatial accelerations data.a (body frames, gravity excluded).
void forwardKinematics(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                       const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& a);

/// One body's placement in the world at q, composed along its path to the
/// root: O(depth), no Data (a Data holds the dense nv x nv mass matrix, which
/// model generators closing many loops cannot afford per constraint).
SE3 bodyPlacement(const Model& model, const Eigen::Ref<const VectorX>& q, int body);

/// data.oMf for every frame (needs forwardKinematics first).
void updateFramePlacements(const Model& model, Data& data);
/// One frame's placement in the world (needs forwardKinematics first).
SE3 framePlacement(const Model& model, const Data& data, int frame_id);

/// Spatial velocity / acceleration of a frame (needs forwardKinematics with v / a).
Motion frameVelocity(const Model& model, const Data& data, int frame_id, ReferenceFrame rf);
Motion frameAcceleration(const Model& model, const Data& data, int frame_id, ReferenceFrame rf);
/// Classical (not spatial) linear acceleration of the frame origin with the
/// angular acceleration, in the convention rf (Local or LocalWorldAligned).
Motion frameClassicalAcceleration(const Model& model, const Data& data, int frame_id, ReferenceFrame rf);

}  // namespace loopsim
