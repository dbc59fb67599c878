#include <loopsim/solvers/loops/cluster_rnea.hpp>

#include <loopsim/algorithms/articulated_first_pass.hpp>
#include <loopsim/linalg/kernels/frame_products.hpp>
#include <loopsim/model/joint_motion.hpp>
#include <loopsim/solvers/loops/cluster_shape.hpp>

namespace loopsim {

ClusterRnea::ClusterRnea(const ConstraintSet& set, const std::vector<int>& independent_dofs)
    : set_(set),
      structure_(set, independent_dofs, "cluster-rnea"),
      spanning_(structure_, &set),
      kinematics_(structure_),
      data_(set.model()),
      rigid_inertias_(rigidInertiaMatrices(set.model())),
      from_joints_(spanning_.canUpdateFromJoints()),
      frame_constraints_(!from_joints_ && (set.hasInternalLoops() || set.hasWorldConstraints())),
      cdata_(set),
      zero_tau_(VectorX::Zero(set.model().nv)),
      qdd_(VectorX::Zero(set.model().nv)) {
  for (const BodyCluster& cl : structure_.clusters()) a_.push_back(VectorX::Zero(6 * cl.bodyCount()));
}

bool ClusterRnea::compute(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                          const Eigen::Ref<const VectorX>& ydd, std::span<const Force> fext,
                          Eigen::Ref<VectorX> tau_independent) {
  const Model& m = set_.model();
  const auto& clusters = structure_.clusters();
  // Kinematics, I_i, v ×* I v - f_ext, then K, G_k, g_k and S_k, c_k at the state.
  // The velocity-product accelerations only for frame constraints' bias (couplings have none).
  articulatedFirstPass(m, data_, q, v, zero_tau_, fext, frame_constraints_, &rigid_inertias_);
  double pivot_ratio = 1.0;
  if (from_joints_) {
    pivot_ratio = spanning_.updateFromJoints(data_, q, v);  // couplings and planar loops in closed form
  } else if (set_.dimension() > 0) {
    evaluateConstraints(set_, data_, q, v, cdata_, kConstraintErrors | kConstraintJacobian);
    pivot_ratio = spanning_.update(cdata_);
  }
  kinematics_.update(data_, spanning_);

  spanning_.spanningAcceleration(ydd, qdd_);  // q̈ = G ÿ + g (eq. 3): the armature's share below
  // Forward pass (eqs. 33-34), clusters from the root; backward pass (eq. 35),
  // clusters from the leaves: children have already added their forces onto
  // this cluster's bodies.
  int offset = 0;  // the cluster's first entry in ydd
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    withClusterShape(clusters[k], [&](auto shape) { forwardCluster<decltype(shape)>(static_cast<int>(k), offset, ydd); });
    offset += clusters[k].independentCount();
  }
  for (int k = static_cast<int>(clusters.size()) - 1; k >= 0; --k) {
    offset -= clusters[k].independentCount();
    withClusterShape(clusters[k], [&](auto shape) { backwardCluster<decltype(shape)>(k, offset, tau_independent); });
  }
  return pivot_ratio > kSingularPivotRatio;
}

void ClusterRnea::projectOnIndependent(const Eigen::Ref<const VectorX>& spanning_force, Eigen::Ref<VectorX> out) const {
  spanning_.projectOnIndependent(spanning_force, out);
}

template <class Shape>
void ClusterRnea::forwardCluster(int k, int offset, const Eigen::Ref<const VectorX>& ydd) {
  using Stacked = typename Shape::Stacked;
  const BodyCluster& cl = structure_.clusters()[k];
  const auto y = ydd.segment(offset, cl.independentCount());
  auto a = shaped<Stacked>(a_[k]);
  // a_k = ^kX_λ a_λ + S_k ÿ_k + c_k (eq. 33), each body from its output body.
  // Motions and forces by their 3-vector halves through the frame kernels: a
  // 6-vector built from halves just stored was read 2-wide across the seam
  // (docs/performance.md).
  for (int p = 0; p < cl.bodyCount(); ++p) {
    const Motion m = kernels::toChildFrame(kinematics_.outputPlacement(cl.bodies[p]), data_.a_gf[cl.output[p]]);
    a.template segment<3>(6 * p) = m.w;
    a.template segment<3>(6 * p + 3) = m.v;
  }
  a += shaped<const Stacked>(kinematics_.c(k));
  a.noalias() += shaped<const typename Shape::Subspace>(kinematics_.S(k)).lazyProduct(y);
  for (int p = 0; p < cl.bodyCount(); ++p) {
    const int b = cl.bodies[p];
    data_.a_gf[b].w = a.template segment<3>(6 * p);
    data_.a_gf[b].v = a.template segment<3>(6 * p + 3);
    const Vector6 Ia = data_.Ia[b] * a.template segment<6>(6 * p);  // f^net = I a + v ×* I v - f_ext (eq. 34)
    data_.f[b].n = Ia.head<3>() + data_.pa[b].n;
    data_.f[b].f = Ia.tail<3>() + data_.pa[b].f;
  }
}

template <class Shape>
void ClusterRnea::backwardCluster(int k, int offset, Eigen::Ref<VectorX> tau_independent) {
  using Stacked = typename Shape::Stacked;
  const Model& m = set_.model();
  const BodyCluster& cl = structure_.clusters()[k];
  auto f = shaped<Stacked>(a_[k]);  // the accelerations are done with: reuse for stack(f^J)
  for (int p = 0; p < cl.bodyCount(); ++p) {
    f.template segment<3>(6 * p) = data_.f[cl.bodies[p]].n;
    f.template segment<3>(6 * p + 3) = data_.f[cl.bodies[p]].f;
  }
  auto tau = tau_independent.segment(offset, cl.independentCount());
  tau.noalias() = shaped<const typename Shape::Subspace>(kinematics_.S(k)).transpose().lazyProduct(f);  // eq. 31
  const auto G = shaped<const typename Shape::Spanning>(spanning_.G(k));
  for (int d = 0; d < cl.dofCount(); ++d) {
    const int dof = cl.dofs[d];
    if (m.armature[dof] != 0.0) tau.noalias() += G.row(d).transpose() * (m.armature[dof] * qdd_[dof]);
  }
  for (int p = 0; p < cl.bodyCount(); ++p) {
    const int o = cl.output[p];
    if (o == 0) continue;
    const Force onto_output = kernels::toParentFrame(kinematics_.outputPlacement(cl.bodies[p]),
                                                     f.template segment<3>(6 * p), f.template segment<3>(6 * p + 3));
    data_.f[o].n += onto_output.n;
    data_.f[o].f += onto_output.f;
  }
}

}  // namespace loopsim
