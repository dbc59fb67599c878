#pragma once
// Preallocated workspace for one Model. Algorithms write here and never
// allocate: every buffer is sized once by the constructor.
#include <vector>

#include <loopsim/model/model.hpp>

namespace loopsim {

struct Data {
  explicit Data(const Model& model);

  // Kinematics (per body; index 0 = world).
  std::vector<SE3> liMi;   // body i in its parent body's frame
  std::vector<SE3> oMi;    // body i in the world frame
  std::vector<Motion> v;   // body velocity, body frame
  std::vector<Motion> a;   // body acceleration, body frame (no gravity)
  std::vector<Motion> a_gf;  // acceleration including -gravity (RNEA/ABA)
  std::vector<Motion> c;   // velocity-product acceleration c_i = v_i x (S_i qd_i)
  std::vector<Force> f;    // body forces / RNEA joint forces, body frame

  // Joint motion subspaces in body frames: columns idx_v[i]..idx_v[i]+nv_i-1 of S.
  // Constant for every joint type: written once, by the constructor.
  Matrix6X S;

  // ABA workspace.
  AlignedVector<Matrix6> Ia;      // articulated inertias, body frame
  std::vector<Force> pa;          // articulated bias forces, body frame
  Matrix6X U;                     // U_i = Ia_i S_i, column-packed like S
  AlignedVector<Matrix6> Dinv;    // (S^T Ia S + armature)^-1, top-left nv_i x nv_i block used
  VectorX u;                      // tau - S^T pa, size nv

  // CRBA workspace.
  std::vector<InertiaAtOrigin> oYcrb;  // composite rigid-body inertias, world frame
  Matrix6X oS;                         // motion subspaces in the world frame, packed like S
  // CRBA: Ic_i S_k per dof k of joint i, world frame; row-major, so each of
  // the six components is contiguous over the dofs and a column of M over a
  // subtree is six axpys.
  Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::RowMajor> oF;

  // World-frame RNEA (biasForcesInWorldFrame), on CRBA's oS.
  std::vector<InertiaAtOrigin> oI;  // body inertias (not composites), world frame
  std::vector<Motion> ov;           // body velocities, world frame
  std::vector<Motion> oa_gf;        // bias accelerations with -gravity, world frame
  std::vector<Force> of;            // body forces, then subtree sums, world frame

  // Joint-space outputs.
  MatrixX M;       // joint-space inertia (with armature), full symmetric
  VectorX tau;     // RNEA output
  VectorX nle;     // nonlinear effects h(q, v)
  VectorX ddq;     // ABA output
  VectorX passive; // passive joint forces (damping + springs)

  // Frames, centre of mass, momentum.
  std::vector<SE3> oMf;   // frame placements in the world
  Vector3 com = Vector3::Zero();
  double mass = 0.0;
  Force h_world;          // spatial momentum about the world origin, world frame
};

}  // namespace loopsim
