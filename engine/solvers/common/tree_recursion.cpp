#include <loopsim/solvers/common/tree_recursion.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include <loopsim/model/joint_motion.hpp>
#include <loopsim/constraints/constraint_link_targets.hpp>
#include <loopsim/model/errors.hpp>

// The backward, rollout and reduced sweeps' joint steps are [[gnu::flatten]]
// (as lcaba's per-link steps): otherwise this file's inlining budget decides
// whether the small Eigen assignments in them (Rᵀx in toChildFrame, R x in
// toParentFrame) stay inline, and a change elsewhere in the file can turn
// them into calls; with these attributes none is.

namespace loopsim {

using kernels::toChildFrame;

namespace {

// Alg. 1 lines 10 and 12 (eqs. 42c-d) for a one-dof joint on the rows
// [b, b + n), written over K's columns (column-major) so that each statement
// is one vector operation over the rows: the per-row form moved one 6-vector
// at a time through shuffles. The same arithmetic as the general path in
// eliminateJoint: ks = (K S)ᵀ, ksd = D⁻¹ ks, l += K c + ksd u_c,
// K ← (K - ksd Uᵀ) moved to the parent's frame like a force.
template <bool Bias>
void carryRowsOneDof(const Model& model, int i, const SE3& liMi, const double* U, double dinv, double u_c,
                     const Vector6& c, int b, int n, Eigen::Matrix<double, Eigen::Dynamic, 6>& K, double* ks_out,
                     double* ksd_out, double* l) {
  double* k0 = K.col(0).data() + b;
  double* k1 = K.col(1).data() + b;
  double* k2 = K.col(2).data() + b;
  double* k3 = K.col(3).data() + b;
  double* k4 = K.col(4).data() + b;
  double* k5 = K.col(5).data() + b;
  // S_i = [axis; 0] (revolute) or [0; axis] (prismatic): the columns S reads.
  const int s_col = model.joint_types[i] == JointType::Revolute ? 0 : 3;
  const double* s0 = K.col(s_col).data() + b;
  const double* s1 = K.col(s_col + 1).data() + b;
  const double* s2 = K.col(s_col + 2).data() + b;
  // Loop invariants in locals: the stores to K must not make them reloads.
  const double a0 = model.joint_axes[i][0], a1 = model.joint_axes[i][1], a2 = model.joint_axes[i][2];
  const double U0 = U[0], U1 = U[1], U2 = U[2], U3 = U[3], U4 = U[4], U5 = U[5];
  const double c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3], c4 = c[4], c5 = c[5];
  const Matrix3& R = liMi.R;
  const double R00 = R(0, 0), R01 = R(0, 1), R02 = R(0, 2), R10 = R(1, 0), R11 = R(1, 1), R12 = R(1, 2),
               R20 = R(2, 0), R21 = R(2, 1), R22 = R(2, 2);
  const double t0 = liMi.t[0], t1 = liMi.t[1], t2 = liMi.t[2];
#pragma GCC ivdep
  for (int r = 0; r < n; ++r) {
    const double ks = a0 * s0[r] + a1 * s1[r] + a2 * s2[r];
    const double ksd = dinv * ks;
    ks_out[r] = ks;
    ksd_out[r] = ksd;
    if constexpr (Bias) {
      l[r] += (k0[r] * c0 + k1[r] * c1 + k2[r] * c2 + k3[r] * c3 + k4[r] * c4 + k5[r] * c5) + ksd * u_c;
    }
    const double m0 = k0[r] - U0 * ksd, m1 = k1[r] - U1 * ksd, m2 = k2[r] - U2 * ksd;
    const double m3 = k3[r] - U3 * ksd, m4 = k4[r] - U4 * ksd, m5 = k5[r] - U5 * ksd;
    const double f0 = R00 * m3 + R01 * m4 + R02 * m5;
    const double f1 = R10 * m3 + R11 * m4 + R12 * m5;
    const double f2 = R20 * m3 + R21 * m4 + R22 * m5;
    k0[r] = R00 * m0 + R01 * m1 + R02 * m2 + (t1 * f2 - t2 * f1);
    k1[r] = R10 * m0 + R11 * m1 + R12 * m2 + (t2 * f0 - t0 * f2);
    k2[r] = R20 * m0 + R21 * m1 + R22 * m2 + (t0 * f1 - t1 * f0);
    k3[r] = f0;
    k4[r] = f1;
    k5[r] = f2;
  }
}

}  // namespace

TreeRecursion::TreeRecursion(const ConstraintSet& set, const VectorX& added_inertia, std::string_view owner)
    : data(set.model()),
      cdata(set),
      K(Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(set.dimension(), 6)),
      l(VectorX::Zero(set.dimension())),
      L(MatrixX::Zero(set.dimension(), set.dimension())),
      target(VectorX::Zero(set.dimension())),
      KS(MatrixX::Zero(set.dimension(), set.model().nv)),
      KSDinv(Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(set.dimension(), 6)),
      solved(set.model().nbodies(), false),
      delta_force(set.model().nbodies(), Force(Vector6::Zero())),
      set_(set),
      model_(set.model()),
      added_inertia_(added_inertia),
      m_(set.dimension()),
      delta_a_(set.model().nbodies(), Motion(Vector6::Zero())),
      delta_u_(VectorX::Zero(set.model().nv)) {
  const std::string element(owner);
  const std::string alternative = "; the joint-space ones (kkt, ltl; dense, ltl-osim) do";
  for (const Constraint& c : set.constraints()) {
    if (c.kind == ConstraintKind::Coupling) {
      throw ModelError(model_.source_file, element,
                       "does not support joint couplings (constraint '" + c.name + "')" + alternative);
    }
    if (c.body2 != 0) {
      throw ModelError(model_.source_file, element,
                       "does not support internal loops (constraint '" + c.name + "' joins two moving bodies)" +
                           alternative);
    }
  }
  // Constraints sorted by body (stable): with depth-first body numbering,
  // every subtree's rows are contiguous.
  std::vector<int> order(set.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return set[a].body1 < set[b].body1; });
  for (int c : order) {
    constraint_order_.push_back(c);
    constraint_first_row_.push_back(static_cast<int>(row_global_.size()));
    for (int r = 0; r < set[c].dimension(); ++r) {
      row_global_.push_back(set.rowOffset(c) + r);
      row_body_.push_back(set[c].body1);
      row_constraint_.push_back(c);
      row_local_.push_back(r);
    }
  }
  const int nb = model_.nbodies();
  rows_begin_.assign(nb, 0);
  rows_end_.assign(nb, 0);
  own_rows_end_.assign(nb, 0);
  auto first_row_at_or_after = [&](int body) {
    return static_cast<int>(std::lower_bound(row_body_.begin(), row_body_.end(), body) - row_body_.begin());
  };
  for (int i = 0; i < nb; ++i) {
    rows_begin_[i] = first_row_at_or_after(i);
    own_rows_end_[i] = first_row_at_or_after(i + 1);
    rows_end_[i] = first_row_at_or_after(i == 0 ? nb : model_.subtree_end[i]);
    if (i > 0) (rows_end_[i] > rows_begin_[i] ? constrained_bodies_ : unconstrained_bodies_).push_back(i);
  }
  // Constant per body: the first pass copies them instead of recomputing them.
  rigid_inertias_ = rigidInertiaMatrices(model_);
}

void TreeRecursion::forwardSweep(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                 const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                                 FirstPassGravity gravity) {
  // No data.a: line 5's rows need only K¹ and k_link (below).
  articulatedFirstPass(model_, data, q, v, tau, fext, /*with_accelerations=*/false, &rigid_inertias_, gravity);
  std::fill(solved.begin(), solved.end(), false);
  if (m_ == 0) return;

  // Constraint rows: K¹ a₁ = k_link on the true acceleration, i.e. on ABA's
  // a_gf = a - X g: K¹ a_gf = k_link + K¹ X_{1←0} a_gf,0 (line 5: l = -k);
  // with gravity as bias force a_gf,0 = 0 and the gravity term vanishes.
  // Line 5 needs K¹ and k_link only: J̇v's link part enters l through c_i
  // in pass 2 (eq. 42d).
  evaluateLinkTargets(set_, data, q, v, cdata);
  // Per constraint: gravity in its body's frame once, K¹ times it as one 6 x 6 product.
  const bool gravity_in_a_gf = gravity == FirstPassGravity::InWorldAcceleration;
  for (std::size_t k = 0; k < constraint_order_.size(); ++k) {
    const int c = constraint_order_[k], b = constraint_first_row_[k], dim = set_[c].dimension();
    Vector6 k_gravity = Vector6::Zero();  // rows past dim unused
    if (gravity_in_a_gf) k_gravity.noalias() = cdata.K1[c] * data.oMi[set_[c].body1].actInv(data.a_gf[0]).toVector();
    for (int r = b; r < b + dim; ++r) {
      K.row(r) = cdata.K1[c].row(r - b);
      target[r] = cdata.k_link[row_global_[r]] + k_gravity[r - b];
      l[r] = -target[r];
    }
  }
}

[[gnu::flatten]] void TreeRecursion::forwardSweepPositions(const Eigen::Ref<const VectorX>& q) {
  detail::setPlacements(model_, data, q);
  for (int i = 1; i < model_.nbodies(); ++i) data.Ia[i] = rigid_inertias_[i];
  if (m_ == 0) return;
  evaluatePositionErrors(set_, data, q, cdata);  // fills K¹
  for (int r = 0; r < m_; ++r) K.row(r) = cdata.K1[row_constraint_[r]].row(row_local_[r]);
}

[[gnu::flatten]] void TreeRecursion::eliminateJoint(int i, bool carry_rows, bool bias, bool accumulate_L) {
  const int p = model_.parent[i];
  detail::withJointNv(model_.joint_nv[i], [&](auto nv_tag) {
    constexpr int NV = decltype(nv_tag)::value;
    using VectorNV = Eigen::Matrix<double, NV, 1>;
    const int iv = model_.idx_v[i];
    // Line 7: D_i = S_iᵀ H_i^A S_i, plus armature and the per-step added inertia.
    factorJoint<NV>(model_, data, i, &added_inertia_);
    const auto U = data.U.middleCols<NV>(iv);
    const Matrix6& Ia = data.Ia[i];
    const auto Dinv = data.Dinv[i].topLeftCorner<NV, NV>();
    auto u = data.u.segment<NV>(iv);
    if (bias) u -= subspaceTransposeTimes<NV>(model_, i, data.pa[i]);  // τ_i - S_iᵀ p_i^A
    const Vector6 c = data.c[i].toVector();
    const Eigen::Matrix<double, 6, NV> UDinv = U * Dinv;

    const int b = rows_begin_[i], n = rows_end_[i] - rows_begin_[i];
    if (carry_rows && n > 0) {
      // (The rows of one subtree are few: dynamic-size block products cost
      // more than their arithmetic, hence plain loops.)
      const VectorNV u_c = bias ? VectorNV(u - U.transpose() * c) : VectorNV::Zero();
      const SE3& liMi = data.liMi[i];
      if constexpr (NV == 1) {
        double* ks = KS.col(iv).data() + b;
        double* ksd = KSDinv.col(0).data() + b;
        if (bias) {
          carryRowsOneDof<true>(model_, i, liMi, U.data(), Dinv(0, 0), u_c[0], c, b, n, K, ks, ksd, l.data() + b);
        } else {
          carryRowsOneDof<false>(model_, i, liMi, U.data(), Dinv(0, 0), 0.0, c, b, n, K, ks, ksd, nullptr);
        }
      } else {  // multi-dof joints: row by row with fixed-size vectors
        for (int r = b; r < b + n; ++r) {
          Vector6 k_row = K.row(r).transpose();
          const VectorNV ks = subspaceTransposeTimes<NV>(model_, i, k_row);  // (K S_i)ᵀ
          const VectorNV ksd = Dinv * ks;                                    // D⁻¹ (K S_i)ᵀ
          KS.row(r).template segment<NV>(iv) = ks.transpose();
          KSDinv.row(r).template head<NV>() = ksd.transpose();
          // Line 12 (eq. 42d): l += K {c + S D⁻¹ (u - Uᵀ c)}.
          if (bias) l[r] += k_row.dot(c) + ksd.dot(u_c);
          // Line 10 (eq. 42c): K ← K P_iᵀ = K - (K S) D⁻¹ Uᵀ, then into the
          // parent's frame (a row on motions maps like a force).
          k_row.noalias() -= U * ksd;
          const Force k_parent = kernels::toParentFrame(liMi, k_row);
          K.row(r).head<3>() = k_parent.n.transpose();
          K.row(r).tail<3>() = k_parent.f.transpose();
        }
      }
      // Line 11 (eq. 42e): L += (K S) D⁻¹ (K S)ᵀ on the subtree's block, column
      // by column (a rank-NV update) in plain loops over the contiguous
      // columns: Eigen's dynamic-size segments cost more per call than these
      // few multiply-adds (docs/performance.md).
      if (accumulate_L) {
        const Eigen::Index ld = L.outerStride();
        for (int k = 0; k < NV; ++k) {
          const double* ks = KS.col(iv + k).data() + b;
          const double* ksd = KSDinv.col(k).data() + b;
          for (int col = 0; col < n; ++col) {
            const double scale = ks[col];
            double* L_col = L.data() + (b + col) * ld + b;
            for (int r = 0; r < n; ++r) L_col[r] += scale * ksd[r];
          }
        }
      }
    }
    if (p == 0) return;
    // Lines 8-9 (eq. 42a-b), ABA's form: Ia^A = Ia - U D⁻¹ Uᵀ, pa^A = pa + Ia^A c + U D⁻¹ u.
    const Matrix6 Ia_art = Ia - UDinv * U.transpose();
    addTransformedInertia(data.liMi[i], Ia_art, data.Ia[p]);
    if (!bias) return;
    const Force pa_art = kernels::plusBlockTimes<NV>(kernels::plusMatrixTimes(data.pa[i], Ia_art, data.c[i]), UDinv,
                                                    VectorNV(u));
    data.pa[p] += kernels::toParentFrame(data.liMi[i], pa_art.n, pa_art.f);
  });
}

[[gnu::flatten]] void TreeRecursion::rolloutJoint(int i, const Eigen::Ref<const VectorX>& lambda, bool with_rows,
                                                  Eigen::Ref<VectorX> vdot) {
  detail::withJointNv(model_.joint_nv[i], [&](auto nv_tag) {
    constexpr int NV = decltype(nv_tag)::value;
    const int iv = model_.idx_v[i];
    const Motion a_pre = toChildFrame(data.liMi[i], data.a_gf[model_.parent[i]]) + data.c[i];
    Eigen::Matrix<double, NV, 1> rhs =
        data.u.segment<NV>(iv) - kernels::blockTransposeTimes<NV>(data.U.middleCols<NV>(iv), a_pre);
    const int b = rows_begin_[i], n = rows_end_[i] - rows_begin_[i];
    // Line 16: the constraint forces of the subtree, (K S)ᵀ λ.
    // (A plain loop over the contiguous column: a dynamic-size dot costs more per call.)
    if (with_rows && n > 0) {
      const double* lam = lambda.data() + b;
      for (int k = 0; k < NV; ++k) {
        const double* ks = KS.col(iv + k).data() + b;
        double sum = 0.0;
        for (int r = 0; r < n; ++r) sum += ks[r] * lam[r];
        rhs[k] += sum;
      }
    }
    auto qdd = vdot.segment<NV>(iv);
    qdd.noalias() = data.Dinv[i].topLeftCorner<NV, NV>() * rhs;
    data.a_gf[i] = a_pre + detail::subspaceMotion<NV>(model_, i, Eigen::Matrix<double, NV, 1>(qdd));  // line 17
  });
}

void TreeRecursion::rollout(const Eigen::Ref<const VectorX>& lambda, bool with_rows, Eigen::Ref<VectorX> vdot) {
  for (int i = 1; i < model_.nbodies(); ++i) {
    if (!solved[i]) rolloutJoint(i, lambda, with_rows, vdot);
  }
}

void TreeRecursion::rolloutConstrained(Eigen::Ref<VectorX> vdot) {
  for (const int i : constrained_bodies_) rolloutJoint(i, l, false, vdot);
}

void TreeRecursion::rolloutUnconstrained(Eigen::Ref<VectorX> vdot) {
  for (const int i : unconstrained_bodies_) rolloutJoint(i, l, false, vdot);
}

void TreeRecursion::addRowPenalty(int r, double w, double g) {
  const int body = row_body_[r];
  const Vector6 k_row = cdata.K1[row_constraint_[r]].row(row_local_[r]).transpose();
  data.Ia[body].noalias() += (w * k_row) * k_row.transpose();
  data.pa[body] = Force(data.pa[body].toVector() - g * k_row);
}

void TreeRecursion::addPenalties(double w, const Eigen::Ref<const VectorX>& g) {
  for (std::size_t k = 0; k < constraint_order_.size(); ++k) {
    const int c = constraint_order_[k], b = constraint_first_row_[k], dim = set_[c].dimension();
    const int body = set_[c].body1;
    const ConstraintRows& K1 = cdata.K1[c];  // rows past dim are zero
    Vector6 g_c = Vector6::Zero();
    for (int r = 0; r < dim; ++r) g_c[r] = g[b + r];
    data.Ia[body].noalias() += w * (K1.transpose() * K1);
    data.pa[body] = Force(data.pa[body].toVector() - K1.transpose() * g_c);
  }
}

double TreeRecursion::rowError(int r) const {
  const Vector6 k_row = cdata.K1[row_constraint_[r]].row(row_local_[r]).transpose();
  return k_row.dot(data.a_gf[row_body_[r]].toVector()) - target[r];
}

void TreeRecursion::rowErrors(Eigen::Ref<VectorX> errors) const {
  for (std::size_t k = 0; k < constraint_order_.size(); ++k) {
    const int c = constraint_order_[k], b = constraint_first_row_[k], dim = set_[c].dimension();
    const Vector6 e = cdata.K1[c] * data.a_gf[set_[c].body1].toVector();  // rows past dim unused
    for (int r = 0; r < dim; ++r) errors[b + r] = e[r] - target[b + r];
  }
}

void TreeRecursion::addRowForces(const Eigen::Ref<const VectorX>& g) {
  for (std::size_t k = 0; k < constraint_order_.size(); ++k) {
    const int c = constraint_order_[k], b = constraint_first_row_[k], dim = set_[c].dimension();
    Vector6 g_c = Vector6::Zero();  // K¹'s rows past dim meet zeros
    for (int r = 0; r < dim; ++r) g_c[r] = g[b + r];
    Force& f = delta_force[set_[c].body1];
    f = Force(f.toVector() + cdata.K1[c].transpose() * g_c);
  }
}

[[gnu::flatten]] void TreeRecursion::reducedSweeps(std::vector<Force>& delta_force, Eigen::Ref<VectorX> vdot) {
  // Only the bodies whose subtree holds rows (their force changes and the
  // accelerations the rows read): Δf is zero elsewhere, and the other bodies'
  // accelerations follow from their parents' in rolloutUnconstrained().
  // Alg. 2 lines 1-6: Δu_i = S_iᵀ Δf_i, Δf_π(i) += Δf_i - U_i D_i⁻¹ Δu_i.
  for (auto it = constrained_bodies_.rbegin(); it != constrained_bodies_.rend(); ++it) {
    const int i = *it;
    detail::withJointNv(model_.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const int iv = model_.idx_v[i];
      const Force& df = delta_force[i];
      auto du = delta_u_.segment<NV>(iv);
      du = subspaceTransposeTimes<NV>(model_, i, df);
      const int p = model_.parent[i];
      if (p == 0) return;
      const Eigen::Matrix<double, NV, 1> Dinv_du = data.Dinv[i].topLeftCorner<NV, NV>() * du;
      const Force passed =
          kernels::plusBlockTimes<NV>(df, data.U.middleCols<NV>(iv), Eigen::Matrix<double, NV, 1>(-Dinv_du));
      delta_force[p] += kernels::toParentFrame(data.liMi[i], passed.n, passed.f);
    });
  }
  // Lines 7-12: Δa_0 = 0, Δv̇_i = D_i⁻¹(Δu_i - U_iᵀ Δa_pre), Δa_i = Δa_pre + S_i Δv̇_i.
  delta_a_[0] = Motion(Vector6::Zero());
  for (const int i : constrained_bodies_) {
    detail::withJointNv(model_.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const int iv = model_.idx_v[i];
      const Motion da_pre = toChildFrame(data.liMi[i], delta_a_[model_.parent[i]]);
      const Eigen::Matrix<double, NV, 1> dqdd =
          data.Dinv[i].topLeftCorner<NV, NV>() *
          (delta_u_.segment<NV>(iv) - kernels::blockTransposeTimes<NV>(data.U.middleCols<NV>(iv), da_pre));
      vdot.segment<NV>(iv) += dqdd;
      delta_a_[i] = da_pre + detail::subspaceMotion<NV>(model_, i, dqdd);
      data.a_gf[i] = data.a_gf[i] + delta_a_[i];
    });
    delta_force[i] = Force(Vector6::Zero());
  }
}

double TreeRecursion::residual() const {
  // Per constraint, one 6 x 6 product (as rowErrors) instead of a strided
  // row read per row.
  double worst = 0.0;
  for (std::size_t k = 0; k < constraint_order_.size(); ++k) {
    const int c = constraint_order_[k], b = constraint_first_row_[k], dim = set_[c].dimension();
    const Vector6 e = cdata.K1[c] * data.a_gf[set_[c].body1].toVector();  // rows past dim unused
    for (int r = 0; r < dim; ++r) worst = std::max(worst, std::abs(e[r] - target[b + r]));
  }
  return worst;
}

}  // namespace loopsim
