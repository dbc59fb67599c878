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

// Needs data.oMi and data.S. Writes M(l, k) only on the ancestor pattern.
void compositeInertiaSweep(const Model& model, Data& data) {
  MatrixX& M = data.M;
  Matrix6X& oS = data.oS;
  for (int i = 1; i < model.nbodies(); ++i) {
    data.oYcrb[i] = InertiaAtOrigin::from(model.body_inertias[i], data.oMi[i]);
    const SE3& oMi = data.oMi[i];
    for (int k = model.idx_v[i]; k < model.idx_v[i] + model.joint_nv[i]; ++k) {
      const Motion s = oMi.act(Motion(data.S.col(k)));
      oS.col(k) << s.w, s.v;
    }
  }
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    // Every descendant (a higher index, depth-first numbering) has been added.
    const InertiaAtOrigin& Yc = data.oYcrb[i];
    const int iv = model.idx_v[i];
    for (int k = iv; k < iv + model.joint_nv[i]; ++k) {
      const Force F = Yc * Motion(oS.col(k));
      Vector6 F6;
      F6 << F.n, F.f;
      // The path to the root, dofs in decreasing order: joint i's own dofs
      // from k down, then every ancestor's.
      for (int l = k; l >= iv; --l) {
        const double m = oS.col(l).dot(F6);
        M(l, k) = m;
        M(k, l) = m;
      }
      for (int j = model.parent[i]; j > 0; j = model.parent[j]) {
        const int jv = model.idx_v[j];
        for (int l = jv; l < jv + model.joint_nv[j]; ++l) {
          const double m = oS.col(l).dot(F6);
          M(l, k) = m;
          M(k, l) = m;
        }
      }
    }
    const int p = model.parent[i];
    if (p > 0) data.oYcrb[p] += Yc;
  }
  M.diagonal() += model.armature;
}

}  // namespace

const MatrixX& crba(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q) {
  detail::requireSize(q, model.nq, "q");
  data.oMi[0] = SE3::Identity();
  for (int i = 1; i < model.nbodies(); ++i) {
    data.liMi[i] = detail::jointPlacement(model, i, q);
    data.oMi[i] = data.oMi[model.parent[i]] * data.liMi[i];
    detail::writeMotionSubspace(model, i, data.S);
  }
  data.M.setZero();  // callers may have written anywhere in M
  compositeInertiaSweep(model, data);
  return data.M;
}

const MatrixX& crbaAtKinematics(const Model& model, Data& data) {
  compositeInertiaSweep(model, data);
  return data.M;
}

}  // namespace loopsim
