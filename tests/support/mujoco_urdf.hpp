#pragma once
// A URDF as MuJoCo should read it for a comparison with loopsim: every
// <inertial> exactly as written (no inertia from geometry, no balancing),
// fixed links fused, visuals dropped (the <collision> elements stay, as geoms),
// and for a floating base a URDF `floating` joint from MuJoCo's world to the
// root link (MuJoCo's importer turns it into a free joint, kMujocoFreeJoint).
#include <stdexcept>
#include <string>

namespace loopsim::test {

constexpr const char* kMujocoFreeJoint = "mujoco_free_joint";

inline std::string mujocoUrdf(const std::string& urdf, const std::string& root_link, bool floating) {
  const auto robot = urdf.find("<robot");
  const auto open_end = robot == std::string::npos ? robot : urdf.find('>', robot);
  if (open_end == std::string::npos) throw std::runtime_error("no <robot> element");
  std::string prefix =
      "\n<mujoco><compiler inertiafromgeom=\"false\" balanceinertia=\"false\" fusestatic=\"true\" "
      "discardvisual=\"true\"/></mujoco>\n";
  if (floating) {
    prefix += "<link name=\"world\"/>\n<joint name=\"" + std::string(kMujocoFreeJoint) +
              "\" type=\"floating\"><parent link=\"world\"/><child link=\"" + root_link + "\"/></joint>\n";
  }
  return std::string(urdf).insert(open_end + 1, prefix);
}

}  // namespace loopsim::test
