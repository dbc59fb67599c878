// M x without forming M: RNEA (Featherstone, RBDA Table 5.1) with v = 0,
// gravity off and a = x, so every velocity product and the gravity term vanish.
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/joint_motion.hpp>

namespace loopsim {

void massMatrixTimesAtKinematics(const Model& model, Data& data, const Eigen::Ref<const VectorX>& x,
                                 Eigen::Ref<VectorX> out) {
  detail::requireSize(x, model.nv, "x");
  data.a[0].setZero();
  for (int i = 1; i < model.nbodies(); ++i) {
    detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const int iv = model.idx_v[i];
      data.a[i] = data.liMi[i].actInv(data.a[model.parent[i]]) + Motion(data.S.middleCols<NV>(iv) * x.segment<NV>(iv));
    });
    data.f[i] = model.body_inertias[i] * data.a[i];
  }
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const int iv = model.idx_v[i];
      out.segment<NV>(iv).noalias() = data.S.middleCols<NV>(iv).transpose() * data.f[i].toVector();
      out.segment<NV>(iv) += model.armature.segment<NV>(iv).cwiseProduct(x.segment<NV>(iv));
    });
    const int p = model.parent[i];
    if (p > 0) data.f[p] += data.liMi[i].act(data.f[i]);
  }
}

}  // namespace loopsim
