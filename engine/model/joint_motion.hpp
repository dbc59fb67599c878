#pragma once
// Internal to the engine (namespace detail): per-joint transforms, motion
// subspaces, the structured joint products and argument checks shared by ABA,
// CRBA, RNEA and the constrained recursions. Not part of the public API.
//
// Every joint's motion subspace S_i is constant in the body frame (revolute
// [axis; 0], prismatic [0; axis], spherical [I; 0], floating I), so the
// recursions need no S-dot term: c_i = v_i x (S_i qd_i).
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>

#include <loopsim/linalg/fixed_cholesky.hpp>
#include <loopsim/linalg/kernels/block_products.hpp>
#include <loopsim/linalg/kernels/frame_products.hpp>
#include <loopsim/linalg/kernels/sincos_lanes.hpp>
#include <loopsim/model/data.hpp>

namespace loopsim::detail {

/// Unit quaternion stored [x y z w] at q[iq..iq+3] (normalised on read so a
/// slightly drifted state still yields a rotation).
inline Quaternion quaternionAt(const Eigen::Ref<const VectorX>& q, int iq) {
  return Quaternion(q[iq + 3], q[iq], q[iq + 1], q[iq + 2]).normalized();
}

/// cos and sin of the revolute joints' angles for a first pass that visits
/// bodies 1, 2, ... in order: computed eight bodies at a time in vector lanes
/// (kernels/sincos_lanes.hpp) instead of one libm call per joint.
class RevoluteTrig {
 public:
  void at(const Model& model, const Eigen::Ref<const VectorX>& q, int i, double& c, double& s) {
    if (i < first_ || i >= first_ + kernels::kSinCosLanes) fill(model, q, i);
    c = cos_[i - first_];
    s = sin_[i - first_];
  }

 private:
  void fill(const Model& model, const Eigen::Ref<const VectorX>& q, int first) {
    first_ = first;
    double angle[kernels::kSinCosLanes];
    for (int j = 0; j < kernels::kSinCosLanes; ++j) {
      const int b = first + j;
      angle[j] = b < model.nbodies() && model.joint_types[b] == JointType::Revolute ? q[model.idx_q[b]] : 0.0;
    }
    kernels::sinCosLanes(angle, sin_, cos_);
  }
  int first_ = -kernels::kSinCosLanes;
  double sin_[kernels::kSinCosLanes] = {}, cos_[kernels::kSinCosLanes] = {};
};

/// liMi = joint_placement_i * X_J(q_i), written into `out` in place. Returning
/// the 96-byte SE3 by value made every caller copy it with 64-byte loads over
/// the callee's 8- and 16-byte stores: a store-forwarding stall. Forced
/// inline: GCC kept it out of line (a call per body). `trig` supplies a revolute joint's cos and
/// sin (the recursions' first passes), else libm.
[[gnu::always_inline]] inline void setJointPlacement(const Model& model, int i, const Eigen::Ref<const VectorX>& q, SE3& out,
                              RevoluteTrig* trig = nullptr) {
  const SE3& P = model.joint_placements[i];
  const int iq = model.idx_q[i];
  switch (model.joint_types[i]) {
    case JointType::Revolute: {
      const JointPlacementBasis& b = model.joint_bases[i];
      double c, s;
      if (trig != nullptr) {
        trig->at(model, q, i, c, s);
      } else {
        c = std::cos(q[iq]);
        s = std::sin(q[iq]);  // GCC fuses these into one sincos call
      }
      out.R = b.axis_outer + c * b.cos_part + s * b.sin_part;
      out.t = P.t;
      return;
    }
    case JointType::Prismatic:
      out.R = P.R;
      out.t = P.t + q[iq] * model.joint_bases[i].axis_in_parent;
      return;
    case JointType::Spherical:
      out.R.noalias() = P.R * quaternionAt(q, iq).toRotationMatrix();
      out.t = P.t;
      return;
    case JointType::Floating:
      out.R.noalias() = P.R * quaternionAt(q, iq + 3).toRotationMatrix();
      out.t.noalias() = P.R * q.segment<3>(iq);
      out.t += P.t;
      return;
  }
  out = P;
}

/// Every body's liMi and oMi (oMi[0] = identity): the placements pass that
/// ABA, CRBA and the constrained recursions run first. A loop of its own:
/// fused with the velocity pass, GCC ran short of registers and reloaded
/// spilled halves two-wide over narrower stores (store-forwarding stalls).
/// kUnitAxisProducts: oMi of an unrotated unit-axis revolute joint without
/// the dense product (kernels::setTimesUnitAxisRotation), which CRBA gains
/// from. ABA reads liMi only and gained nothing from the branch per body, so
/// ABA and the recursions keep the one dense path.
template <bool kUnitAxisProducts = false>
[[gnu::always_inline]] inline void setPlacements(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q) {
  data.oMi[0] = SE3::Identity();
  RevoluteTrig trig;  // sin and cos eight joints at a time
  for (int i = 1; i < model.nbodies(); ++i) {
    const JointPlacementBasis& b = model.joint_bases[i];
    const SE3& oMp = data.oMi[model.parent[i]];
    if (kUnitAxisProducts && model.joint_types[i] == JointType::Revolute && b.unrotated && b.unit_axis >= 0) {
      // The common URDF joint (JointPlacementBasis::unrotated): both
      // rotations from cos and sin directly, oMi's without a dense product.
      double c, s;
      trig.at(model, q, i, c, s);
      SE3& liMi = data.liMi[i];
      SE3& oMi = data.oMi[i];
      s *= b.unit_axis_sign;
      // The plane rotation written directly: the same values as
      // setJointPlacement's (its basis is 0, ±1 here), without its 18 FMAs.
      kernels::setUnitAxisRotation(b.unit_axis, c, s, liMi.R);
      liMi.t = model.joint_placements[i].t;
      switch (b.unit_axis) {
        case 0: kernels::setTimesUnitAxisRotation<0>(oMp.R, c, s, oMi.R); break;
        case 1: kernels::setTimesUnitAxisRotation<1>(oMp.R, c, s, oMi.R); break;
        default: kernels::setTimesUnitAxisRotation<2>(oMp.R, c, s, oMi.R); break;
      }
      oMi.t.noalias() = oMp.R * liMi.t;
      oMi.t += oMp.t;
      continue;
    }
    setJointPlacement(model, i, q, data.liMi[i], &trig);
    data.oMi[i] = oMp * data.liMi[i];
  }
}

/// The world twist of dof k (of joint j) at a point, angular and linear
/// halves apart (kernels/block_products.hpp says why): ω = R_j S_k,ω and
/// R_j S_k,v + lever × ω, lever = p_j − p. Through S's structure
/// (writeMotionSubspace): a revolute joint or a floating joint's rotation has
/// no linear part, a prismatic one no angular part, and a floating joint's
/// columns are R's (the same values as the dense products with S's zeros and
/// ones, without them). At lever = p_j it is CRBA's world motion subspace;
/// the constraint rows take it at their frames' origins.
[[gnu::always_inline]] inline void dofTwistAtPoint(const Model& model, const Data& data, int j, int k,
                                                   const Vector3& lever, Vector3& w, Vector3& lin) {
  const SE3& oMj = data.oMi[j];
  switch (model.joint_types[j]) {
    case JointType::Revolute: {
      // A unit axis ±e_k (JointPlacementBasis::unit_axis) picks R's column.
      const JointPlacementBasis& b = model.joint_bases[j];
      if (b.unit_axis >= 0) {
        w = b.unit_axis_sign * oMj.R.col(b.unit_axis);
      } else {
        w.noalias() = oMj.R * model.joint_axes[j];
      }
      lin = lever.cross(w);
      break;
    }
    case JointType::Prismatic:
      w.setZero();
      lin.noalias() = oMj.R * model.joint_axes[j];
      break;
    case JointType::Floating: {
      const int m = k - model.idx_v[j];
      if (m < 3) {
        w = oMj.R.col(m);
        lin = lever.cross(w);
      } else {
        w.setZero();
        lin = oMj.R.col(m - 3);
      }
      break;
    }
    default:
      w.noalias() = oMj.R * data.S.col(k).head<3>();
      lin = oMj.R * data.S.col(k).tail<3>() + lever.cross(w);
  }
}

/// liMi by value, for callers outside the per-solve sweeps.
inline SE3 jointPlacement(const Model& model, int i, const Eigen::Ref<const VectorX>& q) {
  SE3 X;
  setJointPlacement(model, i, q, X);
  return X;
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

/// S_iᵀ x for joint i's motion subspace (writeMotionSubspace's structure:
/// revolute [axis; 0], prismatic [0; axis], spherical [I; 0], floating I),
/// without the dense 6 x nv product.
template <int NV>
[[gnu::always_inline]] inline Eigen::Matrix<double, NV, 1> subspaceTransposeTimes(const Model& model, int i, const Vector6& x) {
  if constexpr (NV == 1) {
    const Vector3& axis = model.joint_axes[i];
    return Eigen::Matrix<double, 1, 1>(model.joint_types[i] == JointType::Revolute ? axis.dot(x.head<3>())
                                                                                   : axis.dot(x.tail<3>()));
  } else if constexpr (NV == 3) {
    return x.head<3>();
  } else {
    return x;
  }
}

/// S_iᵀ f on a Force's halves (see kernels/block_products.hpp).
template <int NV>
[[gnu::always_inline]] inline Eigen::Matrix<double, NV, 1> subspaceTransposeTimes(const Model& model, int i,
                                                                                 const Force& x) {
  if constexpr (NV == 1) {
    const Vector3& axis = model.joint_axes[i];
    return Eigen::Matrix<double, 1, 1>(model.joint_types[i] == JointType::Revolute ? axis.dot(x.n) : axis.dot(x.f));
  } else if constexpr (NV == 3) {
    return x.n;
  } else {
    return x.toVector();
  }
}

/// S_i q̇ as a Motion (halves kept apart, see kernels/block_products.hpp). These
/// structured products are forced inline: called per joint and per row, a
/// call costs more than the body.
template <int NV>
[[gnu::always_inline]] inline Motion subspaceMotion(const Model& model, int i,
                                                    const Eigen::Matrix<double, NV, 1>& qd) {
  if constexpr (NV == 1) {
    const Vector3 d = model.joint_axes[i] * qd[0];
    return model.joint_types[i] == JointType::Revolute ? Motion(d, Vector3::Zero()) : Motion(Vector3::Zero(), d);
  } else if constexpr (NV == 3) {
    return Motion(qd, Vector3::Zero());
  } else {
    return Motion(qd.template head<3>(), qd.template tail<3>());
  }
}

/// Pass 1's velocity step (RBDA Table 7.1, paper 000 Alg. 1 line 3):
/// v_i = X_{i←π(i)} v_π(i) + S_i q̇_i and c_i = v_i × S_i q̇_i, written per
/// half with S_i's structure. Not through subspaceMotion's Motion: GCC keeps
/// that temporary on the stack in 3-vector pieces and the cross product reads
/// it back 2-wide across the seam, a store-forwarding stall.
template <int NV>
[[gnu::always_inline]] inline void jointVelocity(const Model& model, int i, const SE3& liMi, const Motion& v_parent,
                                                 const Eigen::Matrix<double, NV, 1>& qd, Motion& v_out,
                                                 Motion& c_out) {
  const Motion vp = kernels::toChildFrame(liMi, v_parent);
  if constexpr (NV == 6) {  // S = I: [ω; v] += q̇
    const Vector3 dw = qd.template head<3>(), dv = qd.template tail<3>();
    const Vector3 w = vp.w + dw, lin = vp.v + dv;
    v_out.w = w;
    v_out.v = lin;
    c_out.w = w.cross(dw);
    c_out.v = w.cross(dv) + lin.cross(dw);
  } else {
    // Revolute and spherical (S = [axis or I; 0]) turn ω; prismatic moves v.
    Vector3 d;
    if constexpr (NV == 1) {
      d = model.joint_axes[i] * qd[0];
    } else {
      d = qd;
    }
    if (NV == 3 || model.joint_types[i] == JointType::Revolute) {
      const Vector3 w = vp.w + d;
      v_out.w = w;
      v_out.v = vp.v;
      kernels::setCross(w, d, c_out.w);
      kernels::setCross(vp.v, d, c_out.v);
    } else {
      v_out.w = vp.w;
      v_out.v = vp.v + d;
      c_out.w.setZero();
      kernels::setCross(vp.w, d, c_out.v);
    }
  }
}

/// Joint i's U_i = Ia_i S_i and D_i⁻¹ = (S_iᵀ U_i + armature + added inertia)⁻¹
/// into data.U and data.Dinv (paper 000 Alg. 1 line 7, paper 001 §IV-C2).
/// S_i's structure (writeMotionSubspace: revolute [axis; 0], prismatic
/// [0; axis], spherical [I; 0], floating I) replaces the dense 6 x nv
/// products: a revolute joint's U_i is one 6x3 times 3 product, a floating
/// base's is Ia itself.
/// D_i⁻¹ through Cholesky, not cofactors: with penalties (pv-soft, constrained-aba,
/// lcaba) D mixes O(1) and O(μ) eigenvalues, and only a backward-stable
/// inverse keeps U D⁻¹ Uᵀ's error at ε μ instead of ε μ cond(D). No allocation.
/// Without `added_inertia` (ABA): armature alone.
template <int NV>
[[gnu::always_inline]] inline void factorJoint(const Model& model, Data& data, int i,
                                               const VectorX* added_inertia = nullptr) {
  using MatrixNV = Eigen::Matrix<double, NV, NV>;
  const int iv = model.idx_v[i];
  auto U = data.U.template middleCols<NV>(iv);
  const Matrix6& Ia = data.Ia[i];
  MatrixNV D;
  if constexpr (NV == 1) {
    const Vector3& axis = model.joint_axes[i];
    if (model.joint_types[i] == JointType::Revolute) {
      U.noalias() = Ia.leftCols<3>() * axis;
      D(0, 0) = axis.dot(U.template topRows<3>());
    } else {  // prismatic
      U.noalias() = Ia.rightCols<3>() * axis;
      D(0, 0) = axis.dot(U.template bottomRows<3>());
    }
  } else if constexpr (NV == 3) {  // spherical
    U = Ia.leftCols<3>();
    D = U.template topRows<3>();
  } else {  // floating
    U = Ia;
    D = Ia;
  }
  D.diagonal() += model.armature.template segment<NV>(iv);
  if (added_inertia != nullptr) D.diagonal() += added_inertia->template segment<NV>(iv);
  auto Dinv = data.Dinv[i].template topLeftCorner<NV, NV>();
  if constexpr (NV == 1) {
    Dinv(0, 0) = 1.0 / D(0, 0);
  } else {
    Dinv = fixedLdltInverse<NV>(D);
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
