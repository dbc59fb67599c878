// Recursive Newton-Euler (Featherstone, RBDA Table 5.1) in body frames, the
// joints' products through S_i's structure (detail::subspaceMotion).
// Gravity enters as the base acceleration a_0 = -g, so data.a_gf holds body
// accelerations with gravity folded in.
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/joint_motion.hpp>

namespace loopsim {

namespace {

template <int NV>
using ConstSegment = Eigen::Map<const Eigen::Matrix<double, NV, 1>>;

// Backward: project the body forces onto the joints and accumulate them into
// the parents. a == nullptr means a = 0 (no armature term).
void backwardPass(const Model& model, Data& data, const double* a, VectorX& tau_out) {
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const int iv = model.idx_v[i];
      tau_out.segment<NV>(iv) = detail::subspaceTransposeTimes<NV>(model, i, data.f[i]);
      if (a != nullptr) {
        tau_out.segment<NV>(iv) += model.armature.segment<NV>(iv).cwiseProduct(ConstSegment<NV>(a + iv));
      }
    });
    const int p = model.parent[i];
    if (p > 0) data.f[p] += kernels::toParentFrame(data.liMi[i], data.f[i].n, data.f[i].f);
  }
}

// tau_out = M a + h - Σ Jᵀ fext; a == nullptr means a = 0 (nonlinear effects).
void rneaInto(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
              const double* a, std::span<const Force> fext, VectorX& tau_out) {
  detail::requireSize(q, model.nq, "q");
  detail::requireSize(v, model.nv, "v");
  detail::requireFext(model, fext);
  data.v[0].setZero();
  data.a_gf[0] = Motion(Vector3::Zero(), -model.gravity);

  // Forward: velocities, accelerations, body forces f_i = I a + v x* I v - fext.
  detail::RevoluteTrig trig;  // sin and cos eight joints at a time
  for (int i = 1; i < model.nbodies(); ++i) {
    const int p = model.parent[i];
    // Body frames only: RNEA needs no world placement (data.oMi is not written).
    detail::setJointPlacement(model, i, q, data.liMi[i], &trig);
    const SE3& liMi = data.liMi[i];
    detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const int iv = model.idx_v[i];
      const Motion vJ = detail::subspaceMotion<NV>(model, i, v.segment<NV>(iv));
      data.v[i] = kernels::toChildFrame(liMi, data.v[p]) + vJ;
      data.c[i] = data.v[i].cross(vJ);
      data.a_gf[i] = kernels::toChildFrame(liMi, data.a_gf[p]) + data.c[i];
      if (a != nullptr) {
        data.a_gf[i] += detail::subspaceMotion<NV>(model, i, Eigen::Matrix<double, NV, 1>(ConstSegment<NV>(a + iv)));
      }
    });
    const Inertia& I = model.body_inertias[i];
    data.f[i] = I * data.a_gf[i] + data.v[i].crossDual(I * data.v[i]);
    if (!fext.empty()) data.f[i] -= fext[i];
  }
  backwardPass(model, data, a, tau_out);
}

}  // namespace

const VectorX& rnea(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                    const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& a,
                    std::span<const Force> fext) {
  detail::requireSize(a, model.nv, "a");
  rneaInto(model, data, q, v, a.data(), fext, data.tau);
  return data.tau;
}

const VectorX& nonLinearEffects(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                                const Eigen::Ref<const VectorX>& v) {
  rneaInto(model, data, q, v, nullptr, {}, data.nle);
  return data.nle;
}

}  // namespace loopsim
