// Composite rigid-body algorithm (Featherstone, RBDA Table 6.2) in body frames.
#include "algorithms/dynamics.hpp"
#include "algorithms/joint_motion.hpp"

namespace loopsim {

namespace {

// The composite-inertia sweep on data.liMi and data.S. Writes M(l, k) for
// every dof l on the path from k's joint to the root (the ancestor pattern).
void compositeInertiaSweep(const Model& model, Data& data) {
  MatrixX& M = data.M;
  for (int i = 1; i < model.nbodies(); ++i) data.Ycrb[i] = model.body_inertias[i];
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    const int iv = model.idx_v[i];
    for (int k = iv; k < iv + model.joint_nv[i]; ++k) {
      // F = Ycrb_i S_k, carried up the support: M(j, k) = S_jᵀ F.
      Force F = data.Ycrb[i] * Motion(data.S.col(k));
      for (int j = i;;) {
        const int jv = model.idx_v[j];
        for (int l = jv; l < jv + model.joint_nv[j]; ++l) {
          const auto s = data.S.col(l);
          const double m = s.head<3>().dot(F.n) + s.tail<3>().dot(F.f);
          M(l, k) = m;
          M(k, l) = m;
        }
        const int p = model.parent[j];
        if (p == 0) break;
        F = data.liMi[j].act(F);
        j = p;
      }
    }
    const int p = model.parent[i];
    if (p > 0) data.Ycrb[p] += data.Ycrb[i].transformed(data.liMi[i]);
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
