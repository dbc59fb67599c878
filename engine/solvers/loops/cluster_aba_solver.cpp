#include <loopsim/solvers/loops/cluster_aba_solver.hpp>

#include <cmath>

#include <loopsim/algorithms/articulated_first_pass.hpp>
#include <loopsim/linalg/kernels/frame_products.hpp>
#include <loopsim/model/joint_motion.hpp>
#include <loopsim/solvers/loops/cluster_shape.hpp>

// Signs and frames: ABA's, as in the tree solvers. p^A is the bias force
// (v ×* I v - f_ext), a is the gravity-shifted acceleration a_gf (a_0 = -a_g,
// Alg. 1 line 38). Cluster vectors stack their bodies' 6-vectors in the
// cluster's regular order, each in its body's frame (§V-A).

namespace loopsim {

ClusterAbaSolver::ClusterAbaSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      structure_(constraints, settings.independent_dofs, "solver 'cluster-aba'"),
      spanning_(structure_, &constraints),
      kinematics_(structure_),
      data_(constraints.model()),
      rigid_inertias_(rigidInertiaMatrices(constraints.model())),
      from_joints_(spanning_.canUpdateFromJoints()),
      frame_constraints_(!from_joints_ && (constraints.hasInternalLoops() || constraints.hasWorldConstraints())),
      cdata_(constraints),
      joint_force_(VectorX::Zero(constraints.model().nv)),
      residual_(VectorX::Zero(constraints.dimension())) {
  inertias_.allocate(structure_);
  // The dependent dofs, whose joint force λ reads at an ordinary state, and
  // the bodies it sums forces over there: every body in the subtree of a
  // body that carries one (increasing: parents first).
  const Model& m = constraints.model();
  in_multiplier_subtree_.assign(m.nbodies(), 0);
  for (const BodyCluster& cl : structure_.clusters()) {
    for (int d : cl.dependent) {
      multiplier_dofs_.push_back({cl.dofs[d], cl.bodies[cl.dof_body[d]]});
      in_multiplier_subtree_[cl.bodies[cl.dof_body[d]]] = 1;
    }
  }
  for (int i = 1; i < m.nbodies(); ++i) {
    if (in_multiplier_subtree_[m.parent[i]]) in_multiplier_subtree_[i] = 1;
    if (in_multiplier_subtree_[i]) multiplier_bodies_.push_back(i);
  }
  correction_a_.assign(m.nbodies(), Motion::Zero());
  for (const BodyCluster& cl : structure_.clusters()) {
    const int n6 = 6 * cl.bodyCount(), ny = cl.independentCount();
    u_minus_.push_back(VectorX::Zero(ny));
    pA_.push_back(VectorX::Zero(n6));
    pa_.push_back(VectorX::Zero(n6));
    a_.push_back(VectorX::Zero(n6));
    u_.push_back(VectorX::Zero(ny));
    ydd_.push_back(VectorX::Zero(ny));
    joint_tau_.push_back(VectorX::Zero(cl.dofCount()));
  }
}

void ClusterAbaSolver::backwardPass(int k) {
  withClusterShape(structure_.clusters()[k], [&](auto shape) {
    factorShaped<decltype(shape)>(k);
    backwardBiasShaped<decltype(shape), Pass::Solve>(k);
  });
}

void ClusterAbaSolver::forwardPass(int k, Eigen::Ref<VectorX> vdot) {
  withClusterShape(structure_.clusters()[k], [&](auto shape) { forwardPassShaped<decltype(shape), Pass::Solve>(k, vdot); });
}

void ClusterAbaSolver::handToParent(int k) {
  const BodyCluster& cl = structure_.clusters()[k];
  VectorX& pA_parent = pA_[cl.parent];
  // By halves through the frame kernels: a Force's toVector() read 2-wide
  // across its halves' seam right after they were stored (docs/performance.md).
  for (int a = 0; a < cl.bodyCount(); ++a) {
    const int oa = structure_.positionInCluster(cl.output[a]);
    const Force f = kernels::toParentFrame(kinematics_.outputPlacement(cl.bodies[a]), pa_[k].segment<3>(6 * a),
                                           pa_[k].segment<3>(6 * a + 3));
    pA_parent.segment<3>(6 * oa) += f.n;
    pA_parent.segment<3>(6 * oa + 3) += f.f;
  }
}

void ClusterAbaSolver::fromOutputBodies(int k, const std::vector<Motion>& motions) {
  const BodyCluster& cl = structure_.clusters()[k];
  for (int p = 0; p < cl.bodyCount(); ++p) {
    const Motion m = kernels::toChildFrame(kinematics_.outputPlacement(cl.bodies[p]), motions[cl.output[p]]);
    a_[k].segment<3>(6 * p) = m.w;
    a_[k].segment<3>(6 * p + 3) = m.v;
  }
}

template <class Shape>
void ClusterAbaSolver::factorShaped(int k) {
  using Spanning = typename Shape::Spanning;
  const BodyCluster& cl = structure_.clusters()[k];
  const auto G = shaped<const Spanning>(spanning_.G(k));
  const VectorX& g = spanning_.g(k);
  // Armature and added inertia act on the spanning dofs: q̈ = G ÿ + g puts
  // Gᵀ A G into D_k and -Gᵀ A g into the cluster's generalised force.
  auto GA = shaped<Spanning>(inertias_.GA[k]);
  VectorX& joint_tau = joint_tau_[k];
  for (int d = 0; d < cl.dofCount(); ++d) {
    const int dof = cl.dofs[d];
    const double armature = model().armature[dof] + added_inertia_[dof];
    GA.row(d) = armature * G.row(d);
    joint_tau[d] -= armature * g[d];
  }
  // Lines 26-28 (eq. 49): U_k, D_k, D_k⁻¹.
  inertias_.factor(k, kinematics_.S(k), spanning_.G(k));
  if (cl.parent >= 0) inertias_.addToParent(k, structure_, kinematics_);  // lines 30-31 (eq. 55)
}

template <class Shape, ClusterAbaSolver::Pass kPass>
void ClusterAbaSolver::backwardBiasShaped(int k) {
  using Subspace = typename Shape::Subspace;
  using Stacked = typename Shape::Stacked;
  using Joint = typename Shape::Joint;
  const BodyCluster& cl = structure_.clusters()[k];
  // Line 28: u_k = τ_k - S_kᵀ p^A_k, τ_k = G_kᵀ τ_J (§V-D).
  auto u = shaped<Joint>(u_[k]);
  const auto pA = shaped<const Stacked>(pA_[k]);
  u.noalias() = shaped<const typename Shape::Spanning>(spanning_.G(k)).transpose().lazyProduct(joint_tau_[k]);
  u.noalias() -= shaped<const Subspace>(kinematics_.S(k)).transpose().lazyProduct(pA);
  if (cl.parent < 0) return;  // line 29: the world takes no articulated terms

  // Lines 32-33 (eq. 56): p^a = p^A + I^a c + U D⁻¹ u = p^A + I^A c + U D⁻¹ (u - Uᵀ c),
  // p^A_λ += ^λX*_k p^a block by block (eq. 18); the correction has c = 0.
  auto pa = shaped<Stacked>(pa_[k]);
  pa = pA;
  if constexpr (kPass == Pass::Solve) {
    const auto c = shaped<const Stacked>(kinematics_.c(k));
    inertias_.addBlocksTimes(k, kinematics_.c(k), pa_[k]);
    auto u_minus = shaped<Joint>(u_minus_[k]);  // scratch here; the forward pass sets it anew
    u_minus = u;
    u_minus.noalias() -= shaped<const Subspace>(inertias_.U[k]).transpose().lazyProduct(c);
    pa.noalias() += shaped<const Subspace>(inertias_.UDinv[k]).lazyProduct(u_minus);
  } else {
    pa.noalias() += shaped<const Subspace>(inertias_.UDinv[k]).lazyProduct(u);
  }
  handToParent(k);
}

template <class Shape, ClusterAbaSolver::Pass kPass>
void ClusterAbaSolver::forwardPassShaped(int k, Eigen::Ref<VectorX> vdot) {
  using Subspace = typename Shape::Subspace;
  using Stacked = typename Shape::Stacked;
  using Joint = typename Shape::Joint;
  const BodyCluster& cl = structure_.clusters()[k];
  auto a = shaped<Stacked>(a_[k]);
  // Line 40: a' = ^kX_λ a_λ + c_k (each body from its output body, eq. 17);
  // the correction starts from the world at rest, with c_k = 0.
  if constexpr (kPass == Pass::Solve) {
    fromOutputBodies(k, data_.a_gf);
    a += shaped<const Stacked>(kinematics_.c(k));
  } else {
    fromOutputBodies(k, correction_a_);
  }
  // Line 41 (eq. 52): ÿ_k = D⁻¹(u_k - U_kᵀ a').
  auto ydd = shaped<Joint>(ydd_[k]);
  auto u_minus = shaped<Joint>(u_minus_[k]);
  u_minus = shaped<const Joint>(u_[k]);
  u_minus.noalias() -= shaped<const Subspace>(inertias_.U[k]).transpose().lazyProduct(a);
  ydd.noalias() = shaped<const typename Shape::Square>(inertias_.Dinv[k]).lazyProduct(u_minus);
  // Line 42: a_k = a' + S_k ÿ_k; the spanning accelerations q̈_k = G_k ÿ_k + g_k (eq. 3).
  a.noalias() += shaped<const Subspace>(kinematics_.S(k)).lazyProduct(ydd);
  const auto G = shaped<const typename Shape::Spanning>(spanning_.G(k));
  // By halves: a Motion built from the 6-vector was read 2-wide across its seam (docs/performance.md).
  for (int p = 0; p < cl.bodyCount(); ++p) {
    const int b = cl.bodies[p];
    const auto w = a.template segment<3>(6 * p);
    const auto lin = a.template segment<3>(6 * p + 3);
    if constexpr (kPass == Pass::Solve) {
      data_.a_gf[b].w = w;
      data_.a_gf[b].v = lin;
    } else {
      correction_a_[b].w = w;
      correction_a_[b].v = lin;
      data_.a_gf[b].w += w;
      data_.a_gf[b].v += lin;
    }
  }
  if constexpr (kPass == Pass::Solve) {
    const VectorX& g = spanning_.g(k);
    for (int d = 0; d < cl.dofCount(); ++d) vdot[cl.dofs[d]] = G.row(d).dot(ydd) + g[d];
  } else {
    for (int d = 0; d < cl.dofCount(); ++d) vdot[cl.dofs[d]] += G.row(d).dot(ydd);  // δq̈ = G δÿ
  }
}

double ClusterAbaSolver::jointForce(int dof, int body, const Eigen::Ref<const VectorX>& tau,
                                    const Eigen::Ref<const VectorX>& vdot) const {
  const Model& m = model();
  const auto S = data_.S.col(dof);
  return S.head<3>().dot(data_.f[body].n) + S.tail<3>().dot(data_.f[body].f) +
         (m.armature[dof] + added_inertia_[dof]) * vdot[dof] -
         tau[dof];
}

void ClusterAbaSolver::netForce(int i) {
  // I a + p by halves (a 6-vector built from the halves was read across their seam).
  const Matrix6& I = data_.Ia[i];
  const Motion& a = data_.a_gf[i];
  const Vector6 Ia = I.leftCols<3>() * a.w + I.rightCols<3>() * a.v;
  data_.f[i].n = Ia.head<3>() + data_.pa[i].n;
  data_.f[i].f = Ia.tail<3>() + data_.pa[i].f;
}

void ClusterAbaSolver::jointForceOnEveryDof(const Eigen::Ref<const VectorX>& tau, const Eigen::Ref<const VectorX>& vdot) {
  const Model& m = model();
  for (int i = 1; i < m.nbodies(); ++i) netForce(i);
  for (int i = m.nbodies() - 1; i > 0; --i) {
    if (m.parent[i] > 0) data_.f[m.parent[i]] += data_.liMi[i].act(data_.f[i]);
  }
  for (int dof = 0; dof < m.nv; ++dof) joint_force_[dof] = jointForce(dof, m.dof_joint[dof], tau, vdot);
}

void ClusterAbaSolver::refine(const Eigen::Ref<const VectorX>& tau, Eigen::Ref<VectorX> vdot) {
  const auto& clusters = structure_.clusters();
  // The correction solves Gᵀ M G δÿ = -Gᵀ r, r = M q̈ + h - τ.
  jointForceOnEveryDof(tau, vdot);
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    for (int d = 0; d < cl.dofCount(); ++d) joint_tau_[k][d] = -joint_force_[cl.dofs[d]];
    pA_[k].setZero();
  }
  const int nclusters = static_cast<int>(clusters.size());
  for (int k = nclusters - 1; k >= 0; --k) {
    withClusterShape(clusters[k], [&](auto shape) { backwardBiasShaped<decltype(shape), Pass::Correction>(k); });
  }
  for (int k = 0; k < nclusters; ++k) {
    withClusterShape(clusters[k], [&](auto shape) { forwardPassShaped<decltype(shape), Pass::Correction>(k, vdot); });
  }
}

void ClusterAbaSolver::recoverMultipliers(const Eigen::Ref<const VectorX>& tau, const Eigen::Ref<const VectorX>& vdot,
                                          Eigen::Ref<VectorX> lambda) {
  const Model& m = model();
  if (spanning_.anyNearSingular()) {
    jointForceOnEveryDof(tau, vdot);  // the least squares read a whole cluster
  } else {
    // The dependent dofs' joint forces only: RNEA's backward pass over their
    // subtrees (a gear's rotor is a leaf: its own force alone).
    for (int i : multiplier_bodies_) netForce(i);
    for (auto it = multiplier_bodies_.rbegin(); it != multiplier_bodies_.rend(); ++it) {
      const int p = m.parent[*it];
      if (in_multiplier_subtree_[p]) data_.f[p] += data_.liMi[*it].act(data_.f[*it]);
    }
    for (const auto& [dof, body] : multiplier_dofs_) joint_force_[dof] = jointForce(dof, body, tau, vdot);
  }
  spanning_.multipliersFromJointForce(joint_force_, lambda);
}

SolveStats ClusterAbaSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                                   Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  const auto& clusters = structure_.clusters();
  const int nclusters = static_cast<int>(clusters.size());
  SolveStats stats;
  stats.iterations = 1;

  // Forward pass #1 (lines 1-22): joint transforms, S_i, v_i, v_i × S_i q̇_i,
  // I_k and v ×* I v (articulatedFirstPass), then K at the state, G_k, g_k
  // (line 11) and the cluster S_k, c_k (lines 8-19, cluster_kinematics.hpp).
  // The velocity-product accelerations only for frame constraints' bias (couplings have none).
  articulatedFirstPass(model(), data_, q, v, tau, fext, frame_constraints_, &rigid_inertias_);
  pivot_ratio_ = 1.0;
  if (from_joints_) {
    pivot_ratio_ = spanning_.updateFromJoints(data_, q, v);  // couplings and planar loops in closed form
  } else if (constraints_.dimension() > 0) {
    evaluateConstraints(constraints_, data_, q, v, cdata_, kConstraintErrors | kConstraintJacobian);
    pivot_ratio_ = spanning_.update(cdata_);
  }
  kinematics_.update(data_, spanning_);
  for (int k = 0; k < nclusters; ++k) {
    const BodyCluster& cl = clusters[k];
    // Lines 20-21: I^A_k = block(I_i), p^A_k = stack(v_i ×* I_i v_i - f_ext,i).
    inertias_.setBodyInertias(k, cl, data_);
    for (int p = 0; p < cl.bodyCount(); ++p) {
      pA_[k].segment<3>(6 * p) = data_.pa[cl.bodies[p]].n;
      pA_[k].segment<3>(6 * p + 3) = data_.pa[cl.bodies[p]].f;
    }
    for (int d = 0; d < cl.dofCount(); ++d) joint_tau_[k][d] = tau[cl.dofs[d]];
  }
  for (int k = nclusters - 1; k >= 0; --k) backwardPass(k);  // lines 25-35
  for (int k = 0; k < nclusters; ++k) forwardPass(k, vdot);  // lines 38-43
  refined_ = spanning_.anyNearSingular();
  if (refined_) refine(tau, vdot);

  if (constraints_.dimension() > 0) {
    recoverMultipliers(tau, vdot, lambda);
    if (from_joints_) {
      stats.residual = spanning_.residualFromJoints(vdot);
    } else {
      residual_.noalias() = cdata_.J * vdot;
      residual_ -= cdata_.k;
      stats.residual = residual_.lpNorm<Eigen::Infinity>();
    }
  }
  stats.converged = pivot_ratio_ > kSingularPivotRatio && std::isfinite(stats.residual);
  return stats;
}

}  // namespace loopsim
