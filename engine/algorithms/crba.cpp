// Composite rigid-body algorithm (Featherstone, RBDA Table 6.2), with the
// composite inertias and motion subspaces expressed in the world frame: then
// M(l, k) = S_lᵀ (Ic_i S_k) for every dof l on the path from k's joint to the
// root needs no force transform along that path, and composite inertias in
// one frame add linearly (InertiaAtOrigin). Same M as the body-frame sweep to
// round-off; it is the world-frame convention Pinocchio's CRBA also uses.
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/joint_motion.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/linalg/kernels/column_fills.hpp>
#include <loopsim/linalg/kernels/mirror_triangle.hpp>

namespace loopsim {

namespace {

// One past the last dof of body i's subtree (depth-first numbering: its
// descendants' dofs are contiguous after its own).
inline int subtreeDofEnd(const Model& model, int i) {
  const int last = model.subtree_end[i] - 1;
  return model.idx_v[last] + model.joint_nv[last];
}

// Body i's inertia and motion subspace in the world frame, from data.oMi[i]
// and data.S; the inertia goes into oYcrb (where the sweep accumulates the
// composites) and, with kKeepBody, also into oI (for the world-frame RNEA).
template <bool kKeepBody>
inline void worldInertiaAndSubspace(const Model& model, Data& data, int i) {
  Matrix6X& oS = data.oS;
  data.oYcrb[i].assign(model.body_inertias[i], data.oMi[i]);
  if constexpr (kKeepBody) data.oI[i] = data.oYcrb[i];
  // The subspace is the joints' twists at the world origin (lever p_i).
  const Vector3& lever = data.oMi[i].t;
  for (int k = model.idx_v[i]; k < model.idx_v[i] + model.joint_nv[i]; ++k) {
    Vector3 w, lin;
    detail::dofTwistAtPoint(model, data, i, k, lever, w, lin);
    oS.col(k).head<3>() = w;
    oS.col(k).tail<3>() = lin;
  }
}

// M's strictly upper triangle from the lower one, once the sweep is done.
// kUpperFromWholeLower: it is mirrored from the whole lower triangle (which
// must then be complete: the sweep clears its off-pattern), where the kernel
// transposes register tiles; else copied over the pattern only (the upper
// off-pattern cleared beforehand), in a pass of its own: copied right after
// its column's stores, the loads would wait on them.
inline constexpr bool kUpperFromWholeLower = kernels::kMirrorsInTiles;

inline void fillUpperTriangle(const Model& model, MatrixX& M) {
  if constexpr (kUpperFromWholeLower) {
    kernels::mirrorLowerTriangle(M.data(), static_cast<int>(M.rows()), M.outerStride());
  } else {
    for (int i = 1; i < model.nbodies(); ++i) {
      const int end = subtreeDofEnd(model, i);
      for (int l = model.idx_v[i]; l < model.idx_v[i] + model.joint_nv[i]; ++l)
        M.row(l).segment(l + 1, end - l - 1) = M.col(l).segment(l + 1, end - l - 1).transpose();
    }
  }
}

// Needs data.oYcrb and data.oS of every body (worldInertiaAndSubspace).
// Writes M(l, k) only on the ancestor pattern, and with `zero_off_pattern`
// zeros in the rest of the lower triangle.
void compositeInertiaSweep(const Model& model, Data& data, MassMatrixFill fill, bool zero_off_pattern) {
  MatrixX& M = data.M;
  const Matrix6X& oS = data.oS;
  auto& oF = data.oF;
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    // Every descendant (a higher index, depth-first numbering) has been added,
    // and its columns F_k = Ic_k S_k are in oF: the descendants' dofs are the
    // contiguous range [iv, end), so M(k, l) = F_kᵀ S_l for joint i's dofs l
    // is one sweep down a column of M, with no walk up the tree.
    const InertiaAtOrigin& Yc = data.oYcrb[i];
    const int iv = model.idx_v[i], nvi = model.joint_nv[i];
    const int end = subtreeDofEnd(model, i);
    for (int l = iv; l < iv + nvi; ++l) {
      // F = Ic S_l: n = I_o w + h × v, f = m v + w × h, straight from and
      // into the columns (through Motion and Force temporaries the compiler
      // re-read its own narrow stores with wide loads: store-forwarding stalls).
      const Vector3 w = oS.col(l).head<3>(), v = oS.col(l).tail<3>();
      const Vector3 n = Yc.I_o * w + Yc.h.cross(v), f = Yc.mass * v + w.cross(Yc.h);
      oF.col(l).head<3>() = n;
      oF.col(l).tail<3>() = f;
      // Joint i's own block, row l: M(l, k) = S_kᵀ F_l for k ≤ l, with F_l
      // still in registers (read back from oF, the wide loads waited on the
      // narrow stores just made: store forwarding fails).
      for (int k = iv; k <= l; ++k) M(l, k) = oS.col(k).head<3>().dot(n) + oS.col(k).tail<3>().dot(f);
    }
    const int own_end = iv + nvi;
    for (int l = iv; l < own_end; ++l) {
      // The descendants' rows: M(k, l) = F_kᵀ S_l for k in [own_end, end),
      // down column l with oF stored by rows (each row contiguous in k).
      kernels::combineSixRows(oS.col(l).data(), oF.data(), oF.outerStride(), own_end, end, &M(0, l));
      // Rows past the subtree are exactly column l's entries off the pattern
      // below the diagonal: contiguous, and half of clearing all of M.
      if (zero_off_pattern) kernels::setZero(&M(0, l), end, model.nv);
    }
    const int p = model.parent[i];
    if (p > 0) data.oYcrb[p] += Yc;
  }
  M.diagonal() += model.armature;
  if (fill == MassMatrixFill::Symmetric) fillUpperTriangle(model, M);
}

}  // namespace

const MatrixX& crba(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q, MassMatrixFill fill) {
  detail::requireSize(q, model.nq, "q");
  detail::setPlacements</*kUnitAxisProducts=*/true>(model, data, q);
  // A pass of its own: fused into the placements loop it was slower.
  for (int i = 1; i < model.nbodies(); ++i) worldInertiaAndSubspace<false>(model, data, i);
  // Callers may have written anywhere in M. Where the upper triangle is
  // copied over the pattern only, its off-pattern needs clearing: one
  // contiguous clear (row by row it would be strided stores).
  const bool symmetric = fill == MassMatrixFill::Symmetric;
  if (symmetric && !kUpperFromWholeLower) data.M.setZero();
  compositeInertiaSweep(model, data, fill, /*zero_off_pattern=*/!symmetric || kUpperFromWholeLower);
  return data.M;
}

void worldInertiasAndSubspaces(const Model& model, Data& data) {
  for (int i = 1; i < model.nbodies(); ++i) worldInertiaAndSubspace<true>(model, data, i);
}

void placeBodiesInWorld(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q) {
  forwardKinematics(model, data, q);
  worldInertiasAndSubspaces(model, data);
}

const MatrixX& crbaAtWorldInertias(const Model& model, Data& data, MassMatrixFill fill) {
  compositeInertiaSweep(model, data, fill, /*zero_off_pattern=*/false);
  return data.M;
}

}  // namespace loopsim
