#pragma once
// Constraints on named frames, built where the mechanism stands: what the
// scene loader does for a `constraints:` entry without placement2, for users
// who build constraint lists in code ("weld this foot where it stands",
// "connect these two points").
//
// Frame names are those of Model::frames ("world" is frame 0). Each builder
// returns a Constraint to collect into a std::vector and bind with
// ConstraintSet(model, constraints, time_constant); it throws ModelError
// naming the constraint and the frame when a frame is unknown, when the first
// frame is on the world or when both frames are on one body.
#include <string>

#include <loopsim/constraints/constraint.hpp>
#include <loopsim/model/model.hpp>

namespace loopsim {

/// Frame B's placement in body2 that makes frame A (placement1 in body1)
/// coincide with it at configuration q: closes a constraint where it stands.
SE3 placementWhereItStands(const Model& model, const VectorX& q, int body1, const SE3& placement1, int body2);

/// A 6-row weld of `frame1` to `frame2` (default: the world) at their relative
/// pose at configuration q.
Constraint weldWhereItStands(const Model& model, const VectorX& q, const std::string& name, const std::string& frame1,
                             const std::string& frame2 = "world");

/// A 3-row connect (ball joint) of the point `point1` of `frame1` (in its axes)
/// to the point of `frame2` (default: the world) that coincides with it at
/// configuration q.
Constraint connectWhereItStands(const Model& model, const VectorX& q, const std::string& name,
                                const std::string& frame1, const Vector3& point1 = Vector3::Zero(),
                                const std::string& frame2 = "world");

}  // namespace loopsim
