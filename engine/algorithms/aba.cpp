// Articulated-body algorithm (Featherstone, RBDA Table 7.1) in body frames,
// with joint armature added to D_i = S_iᵀ Ia_i S_i + armature_i.
#include <loopsim/algorithms/articulated_first_pass.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/joint_motion.hpp>

namespace loopsim {

namespace {

// ddq = M⁻¹(τ + τ_extra + Σ Jᵀ fext - h); tau_extra may be null.
void abaImpl(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
             const Eigen::Ref<const VectorX>& tau, const VectorX* tau_extra, std::span<const Force> fext) {
  detail::requireSize(q, model.nq, "q");
  detail::requireSize(v, model.nv, "v");
  detail::requireSize(tau, model.nv, "tau");
  detail::requireFext(model, fext);
  const int nb = model.nbodies();

  // The joints' products go through S_i's structure (detail::subspaceMotion,
  // factorJoint), as in the constrained recursions: no dense 6 x nv products.

  // Pass 1 (root to leaves): placements, velocities, c_i, rigid-body Ia and pa.
  articulatedFirstPass(model, data, q, v, tau, fext, /*with_accelerations=*/false);

  // Pass 2 (leaves to root): articulated inertias and bias forces.
  for (int i = nb - 1; i >= 1; --i) {
    const int p = model.parent[i];
    detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const int iv = model.idx_v[i];
      detail::factorJoint<NV>(model, data, i);  // U = Ia S, D⁻¹ with armature
      const auto U = data.U.middleCols<NV>(iv);
      const auto Dinv = data.Dinv[i].topLeftCorner<NV, NV>();
      const Force& pa = data.pa[i];
      auto u = data.u.segment<NV>(iv);
      u = tau.segment<NV>(iv) - detail::subspaceTransposeTimes<NV>(model, i, pa);
      if (tau_extra != nullptr) u += tau_extra->segment<NV>(iv);
      if (p == 0) return;
      // Ia^A = Ia − U D⁻¹ Uᵀ
      const Eigen::Matrix<double, 6, NV> UDinv = U * Dinv;
      const Matrix6 Ia_art = data.Ia[i] - UDinv * U.transpose();
      // pa^A = pa + Ia^A c + U D⁻¹ u (by halves: kernels/block_products.hpp)
      const Force pa_art = kernels::plusBlockTimes<NV>(kernels::plusMatrixTimes(pa, Ia_art, data.c[i]), UDinv, u);
      // Ia_λ += X*_{λ←i} Ia^A X_{i←λ},  pa_λ += X*_{λ←i} pa^A
      addTransformedInertia(data.liMi[i], Ia_art, data.Ia[p]);
      data.pa[p] += kernels::toParentFrame(data.liMi[i], pa_art.n, pa_art.f);
    });
  }

  // Pass 3 (root to leaves): accelerations.
  data.a_gf[0] = Motion(Vector3::Zero(), -model.gravity);
  for (int i = 1; i < nb; ++i) {
    detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const int iv = model.idx_v[i];
      const Motion a_pre = kernels::toChildFrame(data.liMi[i], data.a_gf[model.parent[i]]) + data.c[i];
      auto qdd = data.ddq.segment<NV>(iv);
      qdd.noalias() = data.Dinv[i].topLeftCorner<NV, NV>() *
                      (data.u.segment<NV>(iv) - kernels::blockTransposeTimes<NV>(data.U.middleCols<NV>(iv), a_pre));
      data.a_gf[i] = a_pre + detail::subspaceMotion<NV>(model, i, qdd);
    });
  }
}

}  // namespace

const VectorX& aba(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                   const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                   std::span<const Force> fext) {
  abaImpl(model, data, q, v, tau, nullptr, fext);
  return data.ddq;
}

const VectorX& forwardDynamics(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                               const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                               std::span<const Force> fext) {
  passiveForces(model, data, q, v);
  abaImpl(model, data, q, v, tau, &data.passive, fext);
  return data.ddq;
}

}  // namespace loopsim
