// RNEA at zero acceleration in the world frame (Featherstone, RBDA §5.3:
// the recursion holds in any one frame). With CRBA's world motion subspaces
// oS and the bodies' world inertias already formed, nothing is transformed
// per body: velocities and accelerations add along the tree,
//   ov_i = ov_λ(i) + oS_i q̇_i,   oa_i = oa_λ(i) + ov_i × (oS_i q̇_i)
// (a joint's subspace moves with its child body: d(oS_i)/dt = ov_i × oS_i),
// and body forces add into their parents as they are, τ_i = oS_iᵀ f_subtree.
// The body-frame form (rnea.cpp) pays a motion transform per body for v,
// for a and for f.
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/joint_motion.hpp>

namespace loopsim {

const VectorX& biasForcesInWorldFrame(const Model& model, Data& data, const Eigen::Ref<const VectorX>& v,
                                      std::span<const Force> fext) {
  detail::requireSize(v, model.nv, "v");
  detail::requireFext(model, fext);
  data.ov[0].setZero();
  data.oa_gf[0] = Motion(Vector3::Zero(), -model.gravity);  // gravity as the base's acceleration
  // A body's parent is most often the body just before it: its velocity and
  // acceleration are taken from these locals, not reloaded from the stores
  // just made (a reload wider than the pieces GCC stored them in cannot be
  // forwarded; docs/performance.md).
  Motion ov_last, oa_last;
  for (int i = 1; i < model.nbodies(); ++i) {
    const int p = model.parent[i], iv = model.idx_v[i];
    Motion vJ;  // oS_i q̇_i
    detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const auto S = data.oS.middleCols<NV>(iv);
      const auto qd = v.segment<NV>(iv);
      vJ.w.noalias() = S.template topRows<3>() * qd;
      vJ.v.noalias() = S.template bottomRows<3>() * qd;
    });
    const bool chain = p == i - 1 && p > 0;
    const Motion ov = (chain ? ov_last : data.ov[p]) + vJ;
    const Motion oa = (chain ? oa_last : data.oa_gf[p]) + ov.cross(vJ);
    data.ov[i] = ov_last = ov;
    data.oa_gf[i] = oa_last = oa;
    const InertiaAtOrigin& I = data.oI[i];
    data.of[i] = I * oa + ov.crossDual(I * ov);
    if (!fext.empty()) data.of[i] -= data.oMi[i].act(fext[i]);  // fext is given in the body frame
  }
  // Backward: the subtree force of a body whose parent comes right before it
  // is carried to that parent in a local, for the same reason.
  Force carried;
  int carried_to = 0;
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    const int iv = model.idx_v[i];
    Force f = data.of[i];
    if (carried_to == i) f += carried;
    detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const auto S = data.oS.middleCols<NV>(iv);
      data.tau.segment<NV>(iv).noalias() = S.template topRows<3>().transpose() * f.n;
      data.tau.segment<NV>(iv).noalias() += S.template bottomRows<3>().transpose() * f.f;
    });
    const int p = model.parent[i];
    carried_to = p == i - 1 ? p : 0;
    if (carried_to > 0) {
      carried = f;
    } else if (p > 0) {
      data.of[p] += f;
    }
  }
  return data.tau;
}

void bodyMotionsFromWorldFrame(const Model& model, Data& data, std::span<const int> bodies) {
  // A spatial acceleration transforms like a velocity: a_b = ᵇX₀ oa_b; the
  // world pass's carries gravity as the base's acceleration, taken out here.
  const Motion gravity_removed(Vector3::Zero(), model.gravity);
  for (int b : bodies) {
    const SE3& oMb = data.oMi[b];
    data.v[b] = oMb.actInv(data.ov[b]);
    data.a[b] = oMb.actInv(data.oa_gf[b] + gravity_removed);
  }
}

}  // namespace loopsim
