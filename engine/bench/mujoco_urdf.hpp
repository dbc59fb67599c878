#pragma once
// A URDF as MuJoCo should read it for a comparison with loopsim: every
// <inertial> exactly as written (no inertia from geometry, no balancing),
// fixed links fused, visuals dropped (the <collision> elements stay, as geoms),
// and for a floating base a URDF `floating` joint from MuJoCo's world to the
// root link (MuJoCo's importer turns it into a free joint, kMujocoFreeJoint).
#include <mujoco/mujoco.h>

#include <stdexcept>
#include <string>

#include <loopsim/model/model.hpp>

namespace loopsim::mujoco_peer {

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

/// Writes loopsim's (q, v) into MuJoCo's qpos / qvel of the model mujocoUrdf
/// made, or of an MJCF loopsim read: joints by name; quaternions as [w x y z]
/// (loopsim: [x y z w]); the free joint's linear velocity in the world frame
/// (loopsim: base frame).
inline void writeMujocoState(const Model& model, const VectorX& q, const VectorX& v, const mjModel* m, mjData* d) {
  for (int j = 1; j <= model.njoints(); ++j) {
    const JointType type = model.joint_types[j];
    // A free joint keeps its MJCF name; a URDF's floating base is kMujocoFreeJoint.
    int id = mj_name2id(m, mjOBJ_JOINT, model.joint_names[j].c_str());
    if (id < 0 && type == JointType::Floating) id = mj_name2id(m, mjOBJ_JOINT, kMujocoFreeJoint);
    if (id < 0) throw std::runtime_error("MuJoCo has no joint " + model.joint_names[j]);
    const int iq = model.idx_q[j], iv = model.idx_v[j];
    double* qpos = d->qpos + m->jnt_qposadr[id];
    double* qvel = d->qvel + m->jnt_dofadr[id];
    if (type == JointType::Spherical) {  // ours [x y z w], MuJoCo's [w x y z]; ω in the joint frame both
      qpos[0] = q[iq + 3];
      for (int k = 0; k < 3; ++k) qpos[1 + k] = q[iq + k];
      for (int k = 0; k < 3; ++k) qvel[k] = v[iv + k];
      continue;
    }
    if (type != JointType::Floating) {
      qpos[0] = q[iq];
      qvel[0] = v[iv];
      continue;
    }
    const Quaternion quat(q[iq + 6], q[iq + 3], q[iq + 4], q[iq + 5]);
    for (int k = 0; k < 3; ++k) qpos[k] = q[iq + k];
    qpos[3] = quat.w();
    qpos[4] = quat.x();
    qpos[5] = quat.y();
    qpos[6] = quat.z();
    const Vector3 linear = quat.normalized().toRotationMatrix() * v.segment<3>(iv + 3);
    for (int k = 0; k < 3; ++k) {
      qvel[k] = linear[k];
      qvel[3 + k] = v[iv + k];
    }
  }
}

}  // namespace loopsim::mujoco_peer
