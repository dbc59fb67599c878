// Composite rigid-body algorithm (Featherstone, RBDA Table 6.2), with the
// composite inertias and motion subspaces expressed in the world frame: then
// M(l, k) = S_lᵀ (Ic_i S_k) for every dof l on the path from k's joint to the
// root needs no force transform along that path, and composite inertias in
// one frame add linearly (InertiaAtOrigin). Same M as the body-frame sweep to
// round-off; it is the world-frame convention Pinocchio's CRBA also uses.
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/joint_motion.hpp>

namespace loopsim {

namespace {

// Needs data.oMi and data.S. Writes M(l, k) only on the ancestor pattern,
// and with `zero_off_pattern` zeros in the rest of the lower triangle.
void compositeInertiaSweep(const Model& model, Data& data, MassMatrixFill fill, bool zero_off_pattern) {
  MatrixX& M = data.M;
  Matrix6X& oS = data.oS;
  auto& oF = data.oF;
  for (int i = 1; i < model.nbodies(); ++i) {
    data.oYcrb[i].assign(model.body_inertias[i], data.oMi[i]);
    const SE3& oMi = data.oMi[i];
    const int iv = model.idx_v[i];
    switch (model.joint_types[i]) {  // S_i's structure (writeMotionSubspace) spares the dense act
      case JointType::Revolute: {
        const Vector3 w = oMi.R * model.joint_axes[i];
        oS.col(iv).head<3>() = w;
        oS.col(iv).tail<3>() = oMi.t.cross(w);
        break;
      }
      case JointType::Prismatic:
        oS.col(iv) << Vector3::Zero(), oMi.R * model.joint_axes[i];
        break;
      default:
        for (int k = iv; k < iv + model.joint_nv[i]; ++k) {
          const Motion s = oMi.act(Motion(data.S.col(k)));
          oS.col(k) << s.w, s.v;
        }
    }
  }
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    // Every descendant (a higher index, depth-first numbering) has been added,
    // and its columns F_k = Ic_k S_k are in oF: the descendants' dofs are the
    // contiguous range [iv, end), so M(k, l) = F_kᵀ S_l for joint i's dofs l
    // is one sweep down a column of M, with no walk up the tree.
    const InertiaAtOrigin& Yc = data.oYcrb[i];
    const int iv = model.idx_v[i], nvi = model.joint_nv[i];
    const int last = model.subtree_end[i] - 1;
    const int end = model.idx_v[last] + model.joint_nv[last];
    for (int l = iv; l < iv + nvi; ++l) {
      // F = Ic S_l: n = I_o w + h × v, f = m v + w × h, straight from and
      // into the columns (through Motion and Force temporaries the compiler
      // re-read its own narrow stores with wide loads: store-forwarding stalls).
      const Vector3 w = oS.col(l).head<3>(), v = oS.col(l).tail<3>();
      oF.col(l).head<3>() = Yc.I_o * w + Yc.h.cross(v);
      oF.col(l).tail<3>() = Yc.mass * v + w.cross(Yc.h);
    }
    for (int l = iv; l < iv + nvi; ++l) {
      const auto s = oS.col(l);
      const int count = end - l;
      // M(k, l) = F_kᵀ S_l for k in [l, end): one pass over the six rows of oF.
      M.col(l).segment(l, count) = (s[0] * oF.row(0).segment(l, count) + s[1] * oF.row(1).segment(l, count) +
                                    s[2] * oF.row(2).segment(l, count) + s[3] * oF.row(3).segment(l, count) +
                                    s[4] * oF.row(4).segment(l, count) + s[5] * oF.row(5).segment(l, count))
                                       .transpose();
      if (fill == MassMatrixFill::Symmetric) M.row(l).segment(l, count) = M.col(l).segment(l, count).transpose();
      // Rows past the subtree are exactly column l's entries off the pattern
      // below the diagonal: contiguous, and half of clearing all of M.
      if (zero_off_pattern) M.col(l).tail(model.nv - end).setZero();
    }
    const int p = model.parent[i];
    if (p > 0) data.oYcrb[p] += Yc;
  }
  M.diagonal() += model.armature;
}

}  // namespace

const MatrixX& crba(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q, MassMatrixFill fill) {
  detail::requireSize(q, model.nq, "q");
  data.oMi[0] = SE3::Identity();
  for (int i = 1; i < model.nbodies(); ++i) {
    data.liMi[i] = detail::jointPlacement(model, i, q);
    data.oMi[i] = data.oMi[model.parent[i]] * data.liMi[i];
    detail::writeMotionSubspace(model, i, data.S);
  }
  // Callers may have written anywhere in M. Clearing the strictly upper part
  // row by row would be strided stores: one contiguous clear is cheaper.
  if (fill == MassMatrixFill::Symmetric) data.M.setZero();
  compositeInertiaSweep(model, data, fill, /*zero_off_pattern=*/fill == MassMatrixFill::LowerTriangle);
  return data.M;
}

const MatrixX& crbaAtKinematics(const Model& model, Data& data, MassMatrixFill fill) {
  compositeInertiaSweep(model, data, fill, /*zero_off_pattern=*/false);
  return data.M;
}

}  // namespace loopsim
