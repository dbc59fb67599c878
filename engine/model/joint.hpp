#pragma once
// Joint types. Fixed joints never reach a Model: loaders merge them into the
// parent body (inertia lumped, link kept as a named frame).
#include <string_view>

#include <loopsim/spatial/types.hpp>

namespace loopsim {

enum class JointType {
  Revolute,   // about joint_axis;  nq 1, nv 1
  Prismatic,  // along joint_axis;  nq 1, nv 1
  Spherical,  // quaternion [x y z w]; nq 4, nv 3 (angular velocity in the child frame)
  Floating,   // [position relative to the joint placement (world for roots); quaternion x y z w]; nq 7, nv 6 ([omega; v] in the child frame)
};

constexpr int jointNq(JointType t) {
  switch (t) {
    case JointType::Revolute:
    case JointType::Prismatic: return 1;
    case JointType::Spherical: return 4;
    case JointType::Floating: return 7;
  }
  return 0;
}

constexpr int jointNv(JointType t) {
  switch (t) {
    case JointType::Revolute:
    case JointType::Prismatic: return 1;
    case JointType::Spherical: return 3;
    case JointType::Floating: return 6;
  }
  return 0;
}

constexpr std::string_view jointTypeName(JointType t) {
  switch (t) {
    case JointType::Revolute: return "revolute";
    case JointType::Prismatic: return "prismatic";
    case JointType::Spherical: return "spherical";
    case JointType::Floating: return "floating";
  }
  return "?";
}

}  // namespace loopsim
