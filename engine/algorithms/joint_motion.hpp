#pragma once
// Internal to engine/algorithms: per-joint transforms, motion subspaces and
// argument checks shared by the recursions. Not part of the public API.
//
// Every joint's motion subspace S_i is constant in the body frame (revolute
// [axis; 0], prismatic [0; axis], spherical [I; 0], floating I), so the
// recursions need no S-dot term: c_i = v_i x (S_i qd_i).
#include <span>
#include <stdexcept>
#include <string>

#include <loopsim/model/data.hpp>

namespace loopsim::detail {

/// Unit quaternion stored [x y z w] at q[iq..iq+3] (normalised on read so a
/// slightly drifted state still yields a rotation).
inline Quaternion quaternionAt(const Eigen::Ref<const VectorX>& q, int iq) {
  return Quaternion(q[iq + 3], q[iq], q[iq + 1], q[iq + 2]).normalized();
}

/// liMi = joint_placement_i * X_J(q_i).
inline SE3 jointPlacement(const Model& model, int i, const Eigen::Ref<const VectorX>& q) {
  const SE3& P = model.joint_placements[i];
  const int iq = model.idx_q[i];
  switch (model.joint_types[i]) {
    case JointType::Revolute:
      return {P.R * Eigen::AngleAxisd(q[iq], model.joint_axes[i]).toRotationMatrix(), P.t};
    case JointType::Prismatic:
      return {P.R, P.t + P.R * (model.joint_axes[i] * q[iq])};
    case JointType::Spherical:
      return {P.R * quaternionAt(q, iq).toRotationMatrix(), P.t};
    case JointType::Floating:
      return {P.R * quaternionAt(q, iq + 3).toRotationMatrix(), P.t + P.R * q.segment<3>(iq)};
  }
  return P;
}

/// Writes S_i into its columns of S (body frame).
inline void writeMotionSubspace(const Model& model, int i, Matrix6X& S) {
  auto block = S.middleCols(model.idx_v[i], model.joint_nv[i]);
  switch (model.joint_types[i]) {
    case JointType::Revolute:
      block.col(0) << model.joint_axes[i], Vector3::Zero();
      break;
    case JointType::Prismatic:
      block.col(0) << Vector3::Zero(), model.joint_axes[i];
      break;
    case JointType::Spherical:
      block.topRows<3>().setIdentity();
      block.bottomRows<3>().setZero();
      break;
    case JointType::Floating:
      block.setIdentity();
      break;
  }
}

/// Calls f(std::integral_constant<int, nv>{}) for the joint's dof count, so
/// the recursions work on fixed-size 6 x nv blocks (nv in {1, 3, 6}).
template <class F>
inline void withJointNv(int nv, F&& f) {
  switch (nv) {
    case 1: f(std::integral_constant<int, 1>{}); return;
    case 3: f(std::integral_constant<int, 3>{}); return;
    default: f(std::integral_constant<int, 6>{}); return;
  }
}

/// Argument checks: cheap, and they throw only on misuse (never in a valid call).
inline void requireSize(const Eigen::Ref<const VectorX>& x, int n, const char* what) {
  if (x.size() != n) {
    throw std::invalid_argument(std::string(what) + " has size " + std::to_string(x.size()) + ", expected " +
                                std::to_string(n));
  }
}
inline void requireFext(const Model& model, std::span<const Force> fext) {
  if (!fext.empty() && static_cast<int>(fext.size()) != model.nbodies()) {
    throw std::invalid_argument("fext has " + std::to_string(fext.size()) + " entries, expected nbodies = " +
                                std::to_string(model.nbodies()));
  }
}

}  // namespace loopsim::detail
