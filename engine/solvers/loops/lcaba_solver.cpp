#include <loopsim/solvers/loops/lcaba_solver.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <loopsim/model/joint_motion.hpp>
#include <loopsim/constraints/constraint_link_targets.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/algorithms/articulated_first_pass.hpp>

// Frames and signs: every link quantity lives in its link's frame (paper
// 001's box is frame-free). H_{i,i} is data.Ia[i]; the force f_i is kept as
// ABA's bias p_i = -f_i in data.pa[i], so the paper's "f += x" is "pa -= x";
// a coupling H_{j,k} maps k's acceleration (k's frame) to a force in j's
// frame. Gravity is a bias force (FirstPassGravity::AsBiasForce), so a_gf
// is the true acceleration and a_gf[0] = 0: the μ-sized penalty terms then
// multiply accelerations that vanish at rest (algorithms/articulated_first_pass.hpp says why).
//
// The per-link steps are [[gnu::flatten]]: GCC otherwise kept small Eigen
// assignments out of line (R^T x in toChildFrame, built through the stack
// and reloaded from it; docs/performance.md).

namespace loopsim {

namespace {

// X*_{p←i} M: the columns of M are forces in i's frame, moved to p's frame
// (f_p = R f, n_p = R n + t × f_p), blockwise as SE3::act does for one force.
// (t × as cross products per column: skew(t)'s comma initializer went
// through the stack, and the product reloaded it two entries at a time.)
Matrix6 forcesToParent(const SE3& liMi, const Matrix6& M) {
  Matrix6 out;
  out.bottomRows<3>().noalias() = liMi.R * M.bottomRows<3>();
  out.topRows<3>().noalias() = liMi.R * M.topRows<3>();
  for (int c = 0; c < 6; ++c) out.col(c).head<3>() += liMi.t.cross(Vector3(out.col(c).tail<3>()));
  return out;
}

// X_{i←π(i)} m for the reduced forward sweep, a chain of dependent steps:
// R^T w and R^T v - (R^T t) × (R^T w), the cross product
// after the rotation and R^T t off the chain. kernels::toChildFrame's
// R^T (v - t × w) is the same to round-off, but in the depth-ordered sweep
// GCC spilled its t × w to the stack and reloaded it two-wide, a
// store-forwarding stall (docs/performance.md).
[[gnu::always_inline]] inline Motion motionToChild(const SE3& liMi, const Motion& m) {
  Motion out;
  out.w.noalias() = liMi.R.transpose() * m.w;
  out.v.noalias() = liMi.R.transpose() * m.v;
  const Vector3 t_child = liMi.R.transpose() * liMi.t;
  out.v -= t_child.cross(out.w);
  return out;
}

// M S_i and Mᵀ S_i through S_i's structure (detail::writeMotionSubspace:
// revolute [axis; 0], prismatic [0; axis], spherical [I; 0], floating I)
// instead of a dense 6 x 6 times 6 x nv product.
template <int NV>
[[gnu::always_inline]] inline Eigen::Matrix<double, 6, NV> timesSubspace(const Model& m, int i, const Matrix6& M) {
  if constexpr (NV == 1) {
    const Vector3& axis = m.joint_axes[i];
    return m.joint_types[i] == JointType::Revolute ? Vector6(M.leftCols<3>() * axis) : Vector6(M.rightCols<3>() * axis);
  } else if constexpr (NV == 3) {
    return M.leftCols<3>();
  } else {
    return M;
  }
}

template <int NV>
[[gnu::always_inline]] inline Eigen::Matrix<double, 6, NV> transposeTimesSubspace(const Model& m, int i,
                                                                                  const Matrix6& M) {
  if constexpr (NV == 1) {
    const Vector3& axis = m.joint_axes[i];
    return m.joint_types[i] == JointType::Revolute ? Vector6(M.topRows<3>().transpose() * axis)
                                                   : Vector6(M.bottomRows<3>().transpose() * axis);
  } else if constexpr (NV == 3) {
    return M.topRows<3>().transpose();
  } else {
    return M.transpose();
  }
}

// Calls f(std::integral_constant<int, R>{}) with R = 3 for 3-row constraints
// (connects) and R = 6 otherwise: K¹ and K² are 6 x 6 with the rows past
// dimension() zero, so the fixed 3-row blocks halve a connect's products and
// the padding keeps 5-row (revolute loop) and 6-row ones exact.
template <class F>
inline void withConstraintRows(int dim, F&& f) {
  if (dim == 3) {
    f(std::integral_constant<int, 3>{});
  } else {
    f(std::integral_constant<int, 6>{});
  }
}

}  // namespace

LcabaSolver::LcabaSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      ordering_(constraints),
      data_(constraints.model()),
      cdata_(constraints),
      coupling_(ordering_.slotCount(), Matrix6::Zero()),
      neighbour_S_(Matrix6X::Zero(6, ordering_.neighbourColumns())),
      neighbour_SDinv_(Matrix6X::Zero(6, 6 * std::max(1, ordering_.maxNeighbours()))),
      constraint_coupling_(constraints.size()),
      target_(VectorX::Zero(constraints.dimension())),
      lambda_(VectorX::Zero(constraints.dimension())),
      impulse_(VectorX::Zero(constraints.dimension())),
      zero_nv_(VectorX::Zero(constraints.model().nv)),
      delta_force_(constraints.model().nbodies(), Force(Vector6::Zero())),
      delta_a_(constraints.model().nbodies(), Motion(Vector6::Zero())),
      delta_u_(VectorX::Zero(constraints.model().nv)) {
  requireProximalSettings(constraints, settings, "lcaba");
  const double mu = settings_.muValue();
  for (int c = 0; c < constraints.size(); ++c) {
    const Constraint& con = constraints[c];
    K1t_.push_back(cdata_.K1[c].transpose());
    mu_K1tK1_.push_back(mu * K1t_.back() * cdata_.K1[c]);
    std::optional<Matrix6> K2tK2 = constantRowGramOnBody2(con);
    if (K2tK2) *K2tK2 *= mu;
    mu_K2tK2_.push_back(K2tK2);
    if (con.kind == ConstraintKind::Coupling) {
      throw ModelError(model().source_file, "solver 'lcaba'",
                       "does not support joint couplings (constraint '" + con.name +
                           "'); the joint-space ones (kkt, ltl, prox-ltl) do");
    }
    if (con.body2 != 0) {
      constraint_coupling_[c] = {con.body2, ordering_.slotOf(con.body1, con.body2), con.body1 > con.body2};
    }
  }
  end_offsets_.assign(model().nbodies() + 1, 0);
  for (int c = 0; c < constraints.size(); ++c) {
    ++end_offsets_[constraints[c].body1 + 1];
    if (constraints[c].body2 != 0) ++end_offsets_[constraints[c].body2 + 1];
  }
  for (int i = 0; i < model().nbodies(); ++i) end_offsets_[i + 1] += end_offsets_[i];
  ends_.resize(end_offsets_.back());
  std::vector<int> fill(end_offsets_.begin(), end_offsets_.end() - 1);
  for (int c = 0; c < constraints.size(); ++c) {
    ends_[fill[constraints[c].body1]++] = {c, 1};
    if (constraints[c].body2 != 0) ends_[fill[constraints[c].body2]++] = {c, 2};
  }
  mu_error_ = VectorX::Zero(constraints.dimension());
  // Constant per body (articulatedFirstPass's bind-time input): the rigid
  // inertias, so the first pass copies instead of recomputing them.
  rigid_inertias_ = rigidInertiaMatrices(constraints.model());
  for (const int k : ordering_.forwardOrder())
    (ordering_.steps()[k].carries_force_change ? reduced_order_ : free_order_).push_back(k);
}

// K¹ and K² are 6 x 6 with the constraint's rows on top and zeros below
// (ConstraintData never writes past dimension()); withConstraintRows picks
// fixed R-row blocks whose padding rows, if any, stay zero.
[[gnu::flatten]] void LcabaSolver::addConstraintTerms(const Eigen::Ref<const VectorX>* impulse_target) {
  const double mu = settings_.muValue();
  for (int c = 0; c < constraints_.size(); ++c) {
    const Constraint& con = constraints_[c];
    withConstraintRows(con.dimension(), [&](auto rows_tag) {
      constexpr int R = decltype(rows_tag)::value;
      using VectorR = Eigen::Matrix<double, R, 1>;
      const int dim = con.dimension(), row = constraints_.rowOffset(c);
      const auto K2 = cdata_.K2[c].topRows<R>();
      const int b1 = con.body1, b2 = con.body2;
      // The target K¹a₁ + K²a₂ = k_link, on true accelerations (a_gf[0] = 0:
      // for a world end eq. 35's -μ K a_0 vanishes).
      // -g = -(μ t + λ) (g = μ k - λ_paper), zero in the padding rows. Over
      // the fixed R rows, so it stays in registers: filled over the runtime
      // dim, it went through the stack and was reloaded two-wide before its
      // last narrow store retired (a store-forwarding stall).
      VectorR minus_g = VectorR::Zero();
      for (int r = 0; r < R; ++r) {
        if (r == dim) break;
        // An impulse targets r itself.
        target_[row + r] = impulse_target != nullptr ? (*impulse_target)[row + r] : cdata_.k_link[row + r];
        minus_g[r] = -(mu * target_[row + r] + lambda_[row + r]);
      }
      // Lines 5, 9, 10 (eqs. 25, 35): H₁₁ += μK¹ᵀK¹, f₁ += K¹ᵀ(μk - λ_paper).
      // K¹ is constant: K¹ᵀ and μK¹ᵀK¹ come from bind time.
      const auto K1t = K1t_[c].leftCols<R>();
      data_.Ia[b1] += mu_K1tK1_[c];
      // Six-vector products by halves (kernels::plusBlockTimes, plusMatrixTimes,
      // blockTransposeTimes, here and below): a Force assigned from a Vector6
      // had the middle pair of the sum split through the stack.
      data_.pa[b1] = kernels::plusBlockTimes<R>(data_.pa[b1], K1t, minus_g);
      if (b2 == 0) return;  // §IV-A: the world is no neighbour
      // (K²ᵀ as a contiguous 6 x R copy: the products then run on columns.)
      const Eigen::Matrix<double, 6, R> K2t = K2.transpose();
      if (mu_K2tK2_[c]) {
        data_.Ia[b2] += *mu_K2tK2_[c];
      } else {
        data_.Ia[b2].noalias() += (mu * K2t) * K2t.transpose();
      }
      data_.pa[b2] = kernels::plusBlockTimes<R>(data_.pa[b2], K2t, minus_g);
      addCoupling(constraint_coupling_[c], (mu * K1t) * K2t.transpose());  // line 9: H₁₂ += μK¹ᵀK²
    });
  }
}

[[gnu::flatten]] void LcabaSolver::eliminate(const EliminationStep& step) {
  const Model& m = model();
  const int i = step.body, p = step.parent;
  detail::withJointNv(m.joint_nv[i], [&](auto nv_tag) {
    constexpr int NV = decltype(nv_tag)::value;
    using MatrixG = Eigen::Matrix<double, 6, NV>;
    const int iv = m.idx_v[i];
    // Line 12 (§IV-C2): U_i = H_{i,i} S_i, D_i⁻¹ (armature and added inertia in D_i), u_i = τ_i + S_iᵀ f_i.
    detail::factorJoint<NV>(m, data_, i, &added_inertia_);
    const auto U = data_.U.middleCols<NV>(iv);
    const auto Dinv = data_.Dinv[i].topLeftCorner<NV, NV>();
    auto u = data_.u.segment<NV>(iv);
    u -= detail::subspaceTransposeTimes<NV>(m, i, data_.pa[i]);
    const MatrixG UDinv = U * Dinv;
    const SE3& liMi = data_.liMi[i];

    // Lines 13-19, eq. 30d: H_{j,k} -= (H_{j,i} S_i) D_i⁻¹ (H_{k,i} S_i)ᵀ over j, k ∈ N_i.
    // The stored block of the pair {i, j} is H_{i,j} when i < j, else H_{j,i}.
    const int n = static_cast<int>(step.neighbours.size());
    for (int a = 0; a < n; ++a) {
      const CouplingRef& ref = step.neighbours[a];
      auto G = neighbour_S_.middleCols<NV>(step.column + a * NV);
      G = ref.transposed ? timesSubspace<NV>(m, i, coupling_[ref.slot])
                         : transposeTimesSubspace<NV>(m, i, coupling_[ref.slot]);
      neighbour_SDinv_.middleCols<NV>(a * NV).noalias() = G * Dinv;
    }
    for (int a = 0, pair = 0; a < n; ++a) {
      const auto G_a = neighbour_S_.middleCols<NV>(step.column + a * NV);
      const auto GD_a = neighbour_SDinv_.middleCols<NV>(a * NV);
      data_.Ia[step.neighbours[a].body].noalias() -= GD_a * G_a.transpose();
      for (int b = a + 1; b < n; ++b, ++pair) {
        addCoupling(step.neighbour_pairs[pair],
                    -GD_a * neighbour_S_.middleCols<NV>(step.column + b * NV).transpose());
      }
    }
    // Eqs. 30c, 30e, 34: with P_i = I - U_i D_i⁻¹ S_iᵀ, H_{π(i),j} += X* P_i H_{i,j}
    // (on H_{π(i),π(i)} symmetrised when π(i) ∈ N_i) and f_j -= (P_i H_{i,j})ᵀ a_b,i
    // + (H_{j,i} S_i) D_i⁻¹ u_i. Under the world a_π(i) is known, as in
    // §IV-A, and zero (gravity is a bias force): a_b,i alone.
    const Motion& a_known = data_.c[i];
    for (int a = 0; a < n; ++a) {
      const CouplingRef& ref = step.neighbours[a];
      const int j = ref.body;
      const auto G_a = neighbour_S_.middleCols<NV>(step.column + a * NV);
      Matrix6 PH;  // P_i H_{i,j}
      if (ref.transposed) {
        PH = coupling_[ref.slot].transpose();
      } else {
        PH = coupling_[ref.slot];
      }
      PH.noalias() -= UDinv * G_a.transpose();
      data_.pa[j] = kernels::plusBlockTimes<NV>(kernels::plusMatrixTimes(data_.pa[j], PH.transpose(), a_known),
                                               neighbour_SDinv_.middleCols<NV>(a * NV),
                                               Eigen::Matrix<double, NV, 1>(u));
      if (p == 0) continue;
      const Matrix6 B = forcesToParent(liMi, PH);
      if (j == p) {
        data_.Ia[p] += B + B.transpose();  // eq. 34 (Alg. 1 lines 20-21)
      } else {
        addCoupling(step.parent_couplings[a], B);
      }
    }
    if (p == 0) return;
    // Lines 22-23 (§IV-C3), ABA's form: H^a = H - U D⁻¹ Uᵀ, p_π += X*(p + H^a a_b + U D⁻¹ u).
    const Matrix6 Ia_art = data_.Ia[i] - UDinv * U.transpose();
    addTransformedInertia(liMi, Ia_art, data_.Ia[p]);
    const Force pa_art = kernels::plusBlockTimes<NV>(kernels::plusMatrixTimes(data_.pa[i], Ia_art, data_.c[i]), UDinv,
                                                    Eigen::Matrix<double, NV, 1>(u));
    data_.pa[p] += kernels::toParentFrame(liMi, pa_art.n, pa_art.f);
  });
}

[[gnu::flatten]] void LcabaSolver::rollout(const EliminationStep& step, Eigen::Ref<VectorX> vdot) {
  const Model& m = model();
  const int i = step.body;
  detail::withJointNv(m.joint_nv[i], [&](auto nv_tag) {
    constexpr int NV = decltype(nv_tag)::value;
    const int iv = m.idx_v[i];
    // Line 25: u_i -= (H̄_{i,N_i} S_i)ᵀ ā_{N_i}; line 26 (§IV-C4): v̇_i, a_i.
    const Motion a_pre = kernels::toChildFrame(data_.liMi[i], data_.a_gf[step.parent]) + data_.c[i];
    Eigen::Matrix<double, NV, 1> rhs =
        data_.u.segment<NV>(iv) - kernels::blockTransposeTimes<NV>(data_.U.middleCols<NV>(iv), a_pre);
    for (int a = 0; a < static_cast<int>(step.neighbours.size()); ++a) {
      rhs -= kernels::blockTransposeTimes<NV>(neighbour_S_.middleCols<NV>(step.column + a * NV),
                                             data_.a_gf[step.neighbours[a].body]);
    }
    const Eigen::Matrix<double, NV, 1> qdd = data_.Dinv[i].topLeftCorner<NV, NV>() * rhs;
    vdot.segment<NV>(iv) = qdd;
    data_.a_gf[i] = a_pre + detail::subspaceMotion<NV>(m, i, qdd);
  });
}

[[gnu::flatten]] double LcabaSolver::updateMultipliers() {
  const double mu = settings_.muValue();
  double residual = 0.0;
  for (int c = 0; c < constraints_.size(); ++c) {
    const Constraint& con = constraints_[c];
    withConstraintRows(con.dimension(), [&](auto rows_tag) {
      constexpr int R = decltype(rows_tag)::value;
      using VectorR = Eigen::Matrix<double, R, 1>;
      const int dim = con.dimension(), row = constraints_.rowOffset(c);
      const auto K2 = cdata_.K2[c].topRows<R>();
      // Line 6: Δk = K¹a₁ + K²a₂ - k (zero in the padding rows).
      VectorR error = kernels::blockTransposeTimes<R>(K1t_[c].leftCols<R>(), data_.a_gf[con.body1]);
      if (con.body2 != 0) error += kernels::blockTransposeTimes<R>(K2.transpose(), data_.a_gf[con.body2]);
      // Over the fixed R rows, error in registers (as minus_g in addConstraintTerms).
      for (int r = 0; r < R; ++r) {
        if (r == dim) break;
        const double e = error[r] - target_[row + r];
        residual = std::max(residual, std::abs(e));
        const double step = mu * e;
        lambda_[row + r] -= step;  // line 8 (eq. 33): λ_paper += μΔk
        // Line 7's μΔk; the reduced backward sweep applies Kᵀ at each link
        // (addConstraintForceChange).
        mu_error_[row + r] = step;
      }
    });
  }
  return residual;
}

// Alg. 3 line 7 ("-=" per the errata) for link i's constraint ends: Δf =
// -μ KᵀΔk, i.e. Δp = +μ KᵀΔk. Taken here rather than accumulated into Δf by
// updateMultipliers: a link with several ends (a Digit foot: a weld and two
// rods) re-read its Δf right after each narrow store, failing store
// forwarding (docs/performance.md).
[[gnu::always_inline]] inline Force LcabaSolver::addConstraintForceChange(int i, Force dp) const {
  for (int e = end_offsets_[i]; e < end_offsets_[i + 1]; ++e) {
    const auto [c, end] = ends_[e];
    const int dim = constraints_[c].dimension(), row = constraints_.rowOffset(c);
    withConstraintRows(dim, [&](auto rows_tag) {
      constexpr int R = decltype(rows_tag)::value;
      Eigen::Matrix<double, R, 1> g = Eigen::Matrix<double, R, 1>::Zero();  // padding rows stay zero
      for (int r = 0; r < R; ++r) {  // over the fixed R rows (see addConstraintTerms' minus_g)
        if (r == dim) break;
        g[r] = mu_error_[row + r];
      }
      dp = end == 1 ? kernels::plusBlockTimes<R>(dp, K1t_[c].leftCols<R>(), g)
                    : kernels::plusBlockTimes<R>(dp, cdata_.K2[c].topRows<R>().transpose(), g);
    });
  }
  return dp;
}

[[gnu::flatten]] double LcabaSolver::reducedSweeps(Eigen::Ref<VectorX> vdot) {
  const Model& m = model();
  const auto& steps = ordering_.steps();
  // Alg. 2 lines 1-6: Δu_i = S_iᵀΔf_i, Δf_j -= (H_{j,i}S_i) D_i⁻¹ Δu_i (j ∈ N_i),
  // Δf_π(i) += Δf_i - U_i D_i⁻¹ Δu_i (ABA's signs: Δp = -Δf).
  // The links a force change reaches (reduced_order_): the others' Δu is zero.
  const auto& order = reduced_order_;  // backwards: children and neighbours first
  for (auto k = order.rbegin(); k != order.rend(); ++k) {
    const EliminationStep& step = steps[*k];
    const int i = step.body, p = step.parent;
    detail::withJointNv(m.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const int iv = m.idx_v[i];
      auto du = delta_u_.segment<NV>(iv);
      const Force dp = addConstraintForceChange(i, delta_force_[i]);
      du = -detail::subspaceTransposeTimes<NV>(m, i, dp);
      const Eigen::Matrix<double, NV, 1> Dinv_du = data_.Dinv[i].topLeftCorner<NV, NV>() * du;
      for (int a = 0; a < static_cast<int>(step.neighbours.size()); ++a) {
        const int j = step.neighbours[a].body;
        delta_force_[j] =
            kernels::plusBlockTimes<NV>(delta_force_[j], neighbour_S_.middleCols<NV>(step.column + a * NV), Dinv_du);
      }
      if (p != 0) {
        const Force up = kernels::plusBlockTimes<NV>(dp, data_.U.middleCols<NV>(iv), Dinv_du);
        delta_force_[p] += kernels::toParentFrame(data_.liMi[i], up.n, up.f);
      }
      delta_force_[i] = Force(Vector6::Zero());
    });
  }
  // Lines 7-12 (Δa_0 = 0).
  delta_a_[0] = Motion(Vector6::Zero());
  return forwardChanges<true>(reduced_order_, vdot.data());
}

double LcabaSolver::freeStepNorm() {
  // The free links' Δu is zero (delta_u_ is never written there) and they
  // have no neighbours; their v̇ and a_gf wait for iterate's roll-out.
  return forwardChanges<false>(free_order_, nullptr);
}

// Alg. 2 lines 7-12 over `order`: Δu_i -= (H̄ S)ᵀΔā_N; Δv̇_i = D_i⁻¹Δu_i -
// (U_i D_i⁻¹)ᵀΔa_π(i); Δa_i. With kApply, v̇ and a_gf take the changes.
// Returns ‖Δv̇‖∞ over the links of `order`.
template <bool kApply>
[[gnu::flatten]] double LcabaSolver::forwardChanges(const std::vector<int>& order, double* vdot) {
  const Model& m = model();
  const auto& steps = ordering_.steps();
  double step_norm = 0.0;
  for (const int k : order) {
    const EliminationStep& step = steps[k];
    const int i = step.body;
    detail::withJointNv(m.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const int iv = m.idx_v[i];
      const Motion da_pre = motionToChild(data_.liMi[i], delta_a_[step.parent]);
      Eigen::Matrix<double, NV, 1> rhs =
          delta_u_.segment<NV>(iv) - kernels::blockTransposeTimes<NV>(data_.U.middleCols<NV>(iv), da_pre);
      for (int a = 0; a < static_cast<int>(step.neighbours.size()); ++a) {
        rhs -= kernels::blockTransposeTimes<NV>(neighbour_S_.middleCols<NV>(step.column + a * NV),
                                               delta_a_[step.neighbours[a].body]);
      }
      const Eigen::Matrix<double, NV, 1> dqdd = data_.Dinv[i].topLeftCorner<NV, NV>() * rhs;
      step_norm = std::max(step_norm, dqdd.template lpNorm<Eigen::Infinity>());
      delta_a_[i] = da_pre + detail::subspaceMotion<NV>(m, i, dqdd);
      if constexpr (kApply) {
        Eigen::Map<Eigen::Matrix<double, NV, 1>>(vdot + iv) += dqdd;
        data_.a_gf[i] += delta_a_[i];
      }
    });
  }
  return step_norm;
}

SolveStats LcabaSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                              const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                              Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  if (!settings_.warm_start) lambda_.setZero();
  // Alg. 1 (= Alg. 3 line 1). First forward sweep (lines 1-3, §IV-C1) and the
  // constraint terms' inputs; the neighbour sets are the bind-time ordering's.
  // The link targets (evaluateLinkTargets: k_link on the links' true
  // accelerations, J̇v through their c_i) read no data.a, so the first pass
  // builds none. Gravity as bias forces: see the note at the top.
  articulatedFirstPass(model(), data_, q, v, tau, fext, /*with_accelerations=*/false, &rigid_inertias_,
                       FirstPassGravity::AsBiasForce);
  evaluateLinkTargets(constraints_, data_, q, v, cdata_);
  const SolveStats stats = iterate(vdot, nullptr);
  lambda = lambda_;
  return stats;
}

SolveStats LcabaSolver::solveImpulse(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& r,
                                     Eigen::Ref<VectorX> delta) {
  // Gauss' principle for an impulse is the acceleration problem with v = 0
  // (no c_i, no bias force), τ = 0, no gravity and the target r:
  // Alg. 1-3 unchanged, the reduced two-sweep iterations included. The
  // multipliers start from zero in their own buffer: solve()'s warm start stays.
  articulatedFirstPass(model(), data_, q, zero_nv_, zero_nv_, {}, /*with_accelerations=*/false, &rigid_inertias_);
  data_.a_gf[0] = Motion(Vector6::Zero());
  evaluateLinkTargets(constraints_, data_, q, zero_nv_, cdata_);
  lambda_.swap(impulse_);
  lambda_.setZero();
  const SolveStats stats = iterate(delta, &r);
  lambda_.swap(impulse_);
  return stats;
}

SolveStats LcabaSolver::iterate(Eigen::Ref<VectorX> vdot, const Eigen::Ref<const VectorX>* impulse_target) {
  const auto& steps = ordering_.steps();
  for (Matrix6& h : coupling_) h.setZero();
  addConstraintTerms(impulse_target);  // Alg. 1 lines 4-10
  for (const EliminationStep& step : steps) eliminate(step);  // backward sweep, lines 11-23
  // Lines 24-26 on the links a force change reaches; the free ones (with
  // their subtrees) roll out once, after the iterations, from the final a_π(i).
  for (const int k : reduced_order_) rollout(steps[k], vdot);

  SolveStats stats;
  stats.iterations = 1;
  stats.converged = constraints_.dimension() == 0;
  double previous_residual = std::numeric_limits<double>::infinity();
  double step_norm = std::numeric_limits<double>::infinity();  // ‖v̇ᵏ - v̇ᵏ⁻¹‖∞: none yet
  while (constraints_.dimension() > 0) {
    const double residual = updateMultipliers();  // Alg. 3 lines 5-8
    stats.residual = residual;
    // Line 9 over all links: the free links' part of ‖Δv̇‖∞ matters only when
    // the reduced sweep's part alone would pass the test.
    if (stats.iterations > 1 && residual > settings_.tolerance && step_norm <= settings_.tolerance)
      step_norm = std::max(step_norm, freeStepNorm());
    if (std::min(step_norm, residual) <= settings_.tolerance) {  // line 9
      stats.converged = true;
      break;
    }
    if (stats.iterations >= settings_.max_iterations || residual >= previous_residual) break;
    previous_residual = residual;
    step_norm = reducedSweeps(vdot);  // lines 11-12
    ++stats.iterations;
  }
  for (const int k : free_order_) rollout(steps[k], vdot);
  return stats;
}

}  // namespace loopsim
