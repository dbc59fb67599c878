#include <loopsim/algorithms/articulated_first_pass.hpp>

#include <loopsim/model/joint_motion.hpp>

namespace loopsim {

// Not [[gnu::flatten]], unlike the recursions' other sweeps: it was slower so
// (docs/performance.md).
AlignedVector<Matrix6> rigidInertiaMatrices(const Model& model) {
  AlignedVector<Matrix6> out(model.nbodies(), Matrix6::Zero());
  for (int i = 1; i < model.nbodies(); ++i) out[i] = model.body_inertias[i].matrix();
  return out;
}

void articulatedFirstPass(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                          const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                          std::span<const Force> fext, bool with_accelerations,
                          const AlignedVector<Matrix6>* rigid_inertias, FirstPassGravity gravity) {
  const int nb = model.nbodies();
  // Paper 000 Alg. 1 lines 1-5: X, v_i, a_b,i = c_i, H_i and the bias force.
  // data.a holds the velocity-product accelerations (v̇ = 0) the constraint
  // terms need, as forwardKinematics(q, v, 0) would.
  // Placements in a pass of their own (detail::setPlacements: fused with the
  // velocities, the spilled v_p halves and t x w were reloaded two-wide, a
  // store-forwarding stall; docs/performance.md).
  detail::setPlacements(model, data, q);
  data.v[0].setZero();
  data.a[0].setZero();
  for (int i = 1; i < nb; ++i) {
    const int p = model.parent[i];
    const SE3& liMi = data.liMi[i];
    detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      detail::jointVelocity<NV>(model, i, liMi, data.v[p], v.segment<NV>(model.idx_v[i]), data.v[i], data.c[i]);
    });
    if (with_accelerations) data.a[i] = kernels::toChildFrame(liMi, data.a[p]) + data.c[i];
    const Inertia& I = model.body_inertias[i];
    data.Ia[i] = rigid_inertias == nullptr ? I.matrix() : (*rigid_inertias)[i];
    data.pa[i] = data.v[i].crossDual(I * data.v[i]);
    if (!fext.empty()) data.pa[i] -= fext[i];
    if (gravity == FirstPassGravity::AsBiasForce) {
      // I_i (0, R_iᵀ(-g)): a uniform linear acceleration is the same motion in every frame.
      const Vector3 f = I.mass * (data.oMi[i].R.transpose() * -model.gravity);
      data.pa[i] += Force(I.com.cross(f), f);
    }
  }
  data.a_gf[0] = gravity == FirstPassGravity::AsBiasForce ? Motion::Zero() : Motion(Vector3::Zero(), -model.gravity);
  data.u = tau;
}

}  // namespace loopsim
