#include <loopsim/solvers/loops/prox_bbo_solver.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <loopsim/model/joint_motion.hpp>
#include <loopsim/constraints/constraint_link_targets.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/solvers/loops/rooted_factor.hpp>
#include <loopsim/algorithms/articulated_first_pass.hpp>

// Frames and signs as lcaba_solver.cpp: link quantities in the link's frame,
// the force f_i kept as ABA's p_i = -f_i (data.pa), a = a_gf. A constraint's
// rows at a link are K̄ on that link's acceleration; with loopsim's λ the
// force K̄ᵀλ acts on the link, so its rows read K̄ a + l + L λ = 0 (as in
// tree_recursion.hpp, where λ = -L⁻¹(l + K a) at the root).

namespace loopsim {

ProxBboSolver::ProxBboSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      graph_(constraints),
      data_(constraints.model()),
      cdata_(constraints),
      target_(VectorX::Zero(constraints.dimension())),
      Kbar_(StackedRows::Zero(graph_.stackedRows(), 6)),
      KS_(MatrixX::Zero(graph_.stackedRows(), 6)),
      YK_(MatrixX::Zero(graph_.stackedRows(), 6)),
      yl_(VectorX::Zero(graph_.stackedRows())),
      dyl_(VectorX::Zero(graph_.stackedRows())),
      L_(MatrixX::Zero(constraints.dimension(), constraints.dimension())),
      l_(VectorX::Zero(constraints.dimension())),
      dl_(VectorX::Zero(constraints.dimension())),
      world_factor_(MatrixX::Zero(graph_.worldRows(), graph_.worldRows())),
      world_rhs_(VectorX::Zero(graph_.worldRows())),
      lambda_(VectorX::Zero(constraints.dimension())),
      lambda_prev_(VectorX::Zero(constraints.dimension())),
      dlambda_(VectorX::Zero(constraints.dimension())),
      impulse_(VectorX::Zero(constraints.dimension())),
      impulse_prev_(VectorX::Zero(constraints.dimension())),
      zero_nv_(VectorX::Zero(constraints.model().nv)),
      delta_force_(constraints.model().nbodies(), Force(Vector6::Zero())),
      delta_a_(constraints.model().nbodies(), Motion(Vector6::Zero())),
      delta_u_(VectorX::Zero(constraints.model().nv)) {
  requireProximalSettings(constraints, settings, "prox-bbo");
  for (const Constraint& c : constraints.constraints()) {
    if (c.kind == ConstraintKind::Coupling) {
      throw ModelError(model().source_file, "solver 'prox-bbo'",
                       "does not support joint couplings (constraint '" + c.name +
                           "'); the joint-space ones (kkt, ltl, prox-ltl) do");
    }
  }
  const int nb = model().nbodies();
  // As lcaba: the first pass copies the rigid inertias, and builds no data.a
  // (the link targets read none).
  rigid_inertias_ = rigidInertiaMatrices(model());
  int max_carried = 0;
  factor_.resize(nb);
  YU_.resize(nb);
  for (int i = 1; i < nb; ++i) {
    const LinkMultipliers& link = graph_.link(i);
    factor_[i] = MatrixX::Zero(link.rooted_rows, link.rooted_rows);
    YU_[i] = MatrixX::Zero(link.rooted_rows, link.carried_rows);
    max_carried = std::max(max_carried, link.carried_rows);
  }
  gather_ = MatrixX::Zero(std::max(graph_.maxRootedRows(), max_carried), std::max(max_carried, 6));
  carried_update_ = MatrixX::Zero(max_carried, max_carried);
  rooted_l_ = VectorX::Zero(graph_.maxRootedRows());
}

void ProxBboSolver::addToL(const std::vector<MultiplierBlock>& blocks, int first_row,
                           const Eigen::Ref<const MatrixX>& M, double sign) {
  for (const MultiplierBlock& a : blocks) {
    for (const MultiplierBlock& b : blocks) {
      L_.block(constraints_.rowOffset(a.constraint), constraints_.rowOffset(b.constraint), a.dim, b.dim) +=
          sign * M.block(a.row - first_row, b.row - first_row, a.dim, b.dim);
    }
  }
}

void ProxBboSolver::initialiseConstraints(const Eigen::Ref<const VectorX>* impulse_target) {
  // Eq. 42 / Alg. 4 lines 4-7: K̄ at both ends, L_jj = μ⁻¹I, l_j = -t_j - μ⁻¹λ⁰_j.
  const double mu_inv = 1.0 / settings_.muValue();
  Kbar_.setZero();
  for (const auto& [j, k] : graph_.coupledPairs()) {
    const int dj = constraints_[j].dimension(), dk = constraints_[k].dimension();
    L_.block(constraints_.rowOffset(j), constraints_.rowOffset(k), dj, dk).setZero();
    L_.block(constraints_.rowOffset(k), constraints_.rowOffset(j), dk, dj).setZero();
  }
  const Motion& a0 = data_.a_gf[0];
  for (int j = 0; j < constraints_.size(); ++j) {
    const Constraint& c = constraints_[j];
    const int dim = c.dimension(), row = constraints_.rowOffset(j);
    const ConstraintRows& K1 = cdata_.K1[j];
    const ConstraintRows& K2 = cdata_.K2[j];
    Vector6 gravity_terms = K1 * data_.oMi[c.body1].actInv(a0).toVector();
    if (c.body2 != 0) gravity_terms.noalias() += K2 * data_.oMi[c.body2].actInv(a0).toVector();
    for (int r = 0; r < dim; ++r) {
      // An impulse has no gravity (a_gf,0 = 0) and targets r itself.
      target_[row + r] =
          impulse_target != nullptr ? (*impulse_target)[row + r] : cdata_.k_link[row + r] + gravity_terms[r];
      l_[row + r] = -target_[row + r] - mu_inv * lambda_prev_[row + r];
    }
    L_.block(row, row, dim, dim).diagonal().array() += mu_inv;
    const auto& rows = graph_.endRows(j);
    Kbar_.middleRows(rows[0], dim) += K1.topRows(dim);
    if (c.body2 != 0) Kbar_.middleRows(rows[1], dim) += K2.topRows(dim);
  }
}

void ProxBboSolver::eliminateRooted(int i) {
  const LinkMultipliers& link = graph_.link(i);
  const int r = link.rooted_rows, u = link.carried_rows, rb = link.rows_begin;
  if (r == 0) return;
  // Eq. 51's factor: L_RR (positive definite: μ⁻¹I plus PSD terms).
  MatrixX& F = factor_[i];
  copyRootedPattern(link, F);
  if (!factorRooted(link, F)) {
    throw ModelError(model().source_file, "solver 'prox-bbo'", "L_RR is not positive definite (non-finite state?)");
  }
  const auto K_R = Kbar_.middleRows(rb, r);
  auto YK = YK_.middleRows(rb, r);
  YK = K_R;
  solveRootedColumns(link, F, YK);
  auto l_R = rooted_l_.head(r);
  for (const MultiplierBlock& a : link.rooted) l_R.segment(a.row, a.dim) = l_.segment(constraints_.rowOffset(a.constraint), a.dim);
  if (u > 0) {
    // Eq. 52 on the carried constraints: with Y_U = L_RR⁻¹ L_RU,
    // K̄_U -= Y_Uᵀ K̄_R, l_U -= Y_Uᵀ l_R, L_UU -= L_UR Y_U.
    auto L_RU = gather_.topLeftCorner(r, u);
    for (const MultiplierBlock& a : link.rooted) {
      for (const MultiplierBlock& b : link.carried) {
        L_RU.block(a.row, b.row - r, a.dim, b.dim) =
            L_.block(constraints_.rowOffset(a.constraint), constraints_.rowOffset(b.constraint), a.dim, b.dim);
      }
    }
    MatrixX& YU = YU_[i];
    YU = L_RU;
    solveRootedColumns(link, F, YU);
    Kbar_.middleRows(rb + r, u).noalias() -= YU.transpose() * K_R;
    for (const MultiplierBlock& b : link.carried) {
      l_.segment(constraints_.rowOffset(b.constraint), b.dim).noalias() -=
          YU.middleCols(b.row - r, b.dim).transpose() * l_R;
    }
    auto update = carried_update_.topLeftCorner(u, u);
    update.noalias() = L_RU.transpose() * YU;
    addToL(link.carried, r, update, -1.0);
  }
  // Eq. 52: H_ii += K̄_Rᵀ L_RR⁻¹ K̄_R, f_i += K̄_Rᵀ L_RR⁻¹ k̄_R (p_i += K̄_Rᵀ L_RR⁻¹ l_R).
  auto y = yl_.segment(rb, r);
  y = l_R;
  solveRooted(link, F, y);
  data_.Ia[i].noalias() += K_R.transpose() * YK;
  data_.pa[i] = Force(data_.pa[i].toVector() + K_R.transpose() * y);
}

void ProxBboSolver::copyRootedPattern(const LinkMultipliers& link, MatrixX& F) const {
  // Fill blocks read L's zeros (coupledPairs()).
  auto copyBlock = [&](const MultiplierBlock& a, const MultiplierBlock& b) {
    F.block(a.row, b.row, a.dim, b.dim) =
        L_.block(constraints_.rowOffset(a.constraint), constraints_.rowOffset(b.constraint), a.dim, b.dim);
  };
  for (std::size_t k = 0; k < link.rooted.size(); ++k) {
    copyBlock(link.rooted[k], link.rooted[k]);
    for (int below : link.below[k]) copyBlock(link.rooted[below], link.rooted[k]);
  }
}

void ProxBboSolver::eliminateLink(int i) {
  const Model& m = model();
  const LinkMultipliers& link = graph_.link(i);
  const int r = link.rooted_rows, u = link.carried_rows, rb = link.rows_begin;
  const int p = m.parent[i];
  detail::withJointNv(m.joint_nv[i], [&](auto nv_tag) {
    constexpr int NV = decltype(nv_tag)::value;
    const int iv = m.idx_v[i];
    // Line 12 (§IV-C2): U_i, D_i⁻¹ (armature and added inertia in D_i), u_i.
    detail::factorJoint<NV>(m, data_, i, &added_inertia_);
    const auto S = data_.S.middleCols<NV>(iv);
    const auto U = data_.U.middleCols<NV>(iv);
    const auto Dinv = data_.Dinv[i].topLeftCorner<NV, NV>();
    auto u_i = data_.u.segment<NV>(iv);
    u_i.noalias() -= S.transpose() * data_.pa[i].toVector();
    const Eigen::Matrix<double, 6, NV> UDinv = U * Dinv;
    const SE3& liMi = data_.liMi[i];
    const Vector6 a_known =
        p == 0 ? (liMi.actInv(data_.a_gf[0]) + data_.c[i]).toVector() : data_.c[i].toVector();

    if (u > 0) {
      // Lines 13-15, eqs. 46c-46e on the carried rows.
      auto K_U = Kbar_.middleRows(rb + r, u);
      auto KS = KS_.block(rb + r, 0, u, NV);
      KS.noalias() = K_U * S;
      auto KSD = gather_.topLeftCorner(u, NV);
      KSD.noalias() = KS * Dinv;
      auto update = carried_update_.topLeftCorner(u, u);
      update.noalias() = KSD * KS.transpose();  // eq. 46d: L_UU += (K̄S)D⁻¹(K̄S)ᵀ
      addToL(link.carried, r, update, 1.0);
      for (const MultiplierBlock& a : link.carried) {
        // Eq. 46e: l += K̄ {P_iᵀ a_b + S D⁻¹ u} (a_π joins a_b under the world).
        auto l_a = l_.segment(constraints_.rowOffset(a.constraint), a.dim);
        const auto K_a = K_U.middleRows(a.row - r, a.dim);
        l_a.noalias() += K_a * a_known;
        l_a.noalias() += KSD.middleRows(a.row - r, a.dim) * (u_i - U.transpose() * a_known);
      }
      // Eq. 46c: K̄ ← K̄ P_iᵀ, then into the parent's frame and rows.
      K_U.noalias() -= KSD * U.transpose();
      if (p != 0) {
        const int parent_rows = graph_.link(p).rows_begin;
        for (const MultiplierBlock& a : link.carried) {
          for (int k = 0; k < a.dim; ++k) {
            const Force moved = liMi.act(Force(Vector6(Kbar_.row(rb + a.row + k).transpose())));
            Kbar_.row(parent_rows + a.parent_row + k) += moved.toVector().transpose();
          }
        }
      }
    }
    if (p == 0) return;
    // Lines 16-17 (§IV-C3): ABA's articulated inertia and bias to the parent.
    const Matrix6 Ia_art = data_.Ia[i] - UDinv * U.transpose();
    addTransformedInertia(liMi, Ia_art, data_.Ia[p]);
    const Vector6 pa_art = data_.pa[i].toVector() + Ia_art * data_.c[i].toVector() + UDinv * u_i;
    data_.pa[p] += liMi.act(Force(pa_art));
  });
}

void ProxBboSolver::solveWorld(bool reduced) {
  if (graph_.worldRows() == 0) return;
  const LinkMultipliers& world = graph_.world();
  if (!reduced) {
    // L_WW, factored one multiplier at a time as at a link.
    copyRootedPattern(world, world_factor_);
    if (!factorRooted(world, world_factor_)) {
      throw ModelError(model().source_file, "solver 'prox-bbo'", "L_WW is not positive definite (non-finite state?)");
    }
  }
  // L_WW λ_W = -l_W (Δ on the reduced sweep).
  const VectorX& l = reduced ? dl_ : l_;
  VectorX& out = reduced ? dlambda_ : lambda_;
  for (const MultiplierBlock& a : world.rooted) {
    world_rhs_.segment(a.row, a.dim) = -l.segment(constraints_.rowOffset(a.constraint), a.dim);
  }
  solveRooted(world, world_factor_, world_rhs_);
  for (const MultiplierBlock& a : world.rooted) {
    out.segment(constraints_.rowOffset(a.constraint), a.dim) = world_rhs_.segment(a.row, a.dim);
  }
}

void ProxBboSolver::rollout(int i, Eigen::Ref<VectorX> vdot) {
  const Model& m = model();
  const LinkMultipliers& link = graph_.link(i);
  const int r = link.rooted_rows, rb = link.rows_begin;
  detail::withJointNv(m.joint_nv[i], [&](auto nv_tag) {
    constexpr int NV = decltype(nv_tag)::value;
    const int iv = m.idx_v[i];
    // Lines 19-21, eq. 45: v̇_i = D_i⁻¹(u_i - U_iᵀ a_pre + (K̄_U S_i)ᵀ λ_U).
    const Motion a_pre = data_.liMi[i].actInv(data_.a_gf[m.parent[i]]) + data_.c[i];
    Eigen::Matrix<double, NV, 1> rhs =
        data_.u.segment<NV>(iv) - data_.U.middleCols<NV>(iv).transpose() * a_pre.toVector();
    for (const MultiplierBlock& a : link.carried) {
      rhs.noalias() += KS_.block(rb + a.row, 0, a.dim, NV).transpose() *
                       lambda_.segment(constraints_.rowOffset(a.constraint), a.dim);
    }
    auto qdd = vdot.segment<NV>(iv);
    qdd.noalias() = data_.Dinv[i].topLeftCorner<NV, NV>() * rhs;
    data_.a_gf[i] = a_pre + Motion(data_.S.middleCols<NV>(iv) * qdd);
  });
  if (r == 0) return;
  // Lines 22-23, eq. 51: λ_R = -L_RR⁻¹(K̄_R a_i + l_R + L_RU λ_U).
  auto minus_lambda_R = rooted_l_.head(r);
  minus_lambda_R.noalias() = YK_.middleRows(rb, r) * data_.a_gf[i].toVector();
  minus_lambda_R += yl_.segment(rb, r);
  for (const MultiplierBlock& b : link.carried) {
    minus_lambda_R.noalias() +=
        YU_[i].middleCols(b.row - r, b.dim) * lambda_.segment(constraints_.rowOffset(b.constraint), b.dim);
  }
  for (const MultiplierBlock& a : link.rooted) {
    lambda_.segment(constraints_.rowOffset(a.constraint), a.dim) = -minus_lambda_R.segment(a.row, a.dim);
  }
}

void ProxBboSolver::reducedBackward(int i) {
  const Model& m = model();
  const LinkMultipliers& link = graph_.link(i);
  const int r = link.rooted_rows, rb = link.rows_begin;
  const int p = m.parent[i];
  if (r > 0) {
    // Alg. 5 line 3: Δp_i += K̄_Rᵀ L_RR⁻¹ Δl_R, Δl_U -= Y_Uᵀ Δl_R.
    auto dl_R = dyl_.segment(rb, r);
    for (const MultiplierBlock& a : link.rooted) {
      dl_R.segment(a.row, a.dim) = dl_.segment(constraints_.rowOffset(a.constraint), a.dim);
    }
    for (const MultiplierBlock& b : link.carried) {
      dl_.segment(constraints_.rowOffset(b.constraint), b.dim).noalias() -=
          YU_[i].middleCols(b.row - r, b.dim).transpose() * dl_R;
    }
    solveRooted(link, factor_[i], dl_R);
    delta_force_[i] = Force(delta_force_[i].toVector() + Kbar_.middleRows(rb, r).transpose() * dl_R);
  }
  detail::withJointNv(m.joint_nv[i], [&](auto nv_tag) {
    constexpr int NV = decltype(nv_tag)::value;
    const int iv = m.idx_v[i];
    // Lines 4-8: Δu_i = S_iᵀΔf_i, Δl_U += (K̄S)(D⁻¹Δu_i), Δf_π(i) += Δf_i - U_i D_i⁻¹ Δu_i.
    const Vector6 dp = delta_force_[i].toVector();
    auto du = delta_u_.segment<NV>(iv);
    du.noalias() = -(data_.S.middleCols<NV>(iv).transpose() * dp);
    const Eigen::Matrix<double, NV, 1> Dinv_du = data_.Dinv[i].topLeftCorner<NV, NV>() * du;
    for (const MultiplierBlock& a : link.carried) {
      dl_.segment(constraints_.rowOffset(a.constraint), a.dim).noalias() +=
          KS_.block(rb + a.row, 0, a.dim, NV) * Dinv_du;
    }
    if (p != 0) delta_force_[p] += data_.liMi[i].act(Force(Vector6(dp + data_.U.middleCols<NV>(iv) * Dinv_du)));
    delta_force_[i] = Force(Vector6::Zero());
  });
}

double ProxBboSolver::reducedForward(int i, Eigen::Ref<VectorX> vdot) {
  const Model& m = model();
  const LinkMultipliers& link = graph_.link(i);
  const int r = link.rooted_rows, rb = link.rows_begin;
  double step = 0.0;
  detail::withJointNv(m.joint_nv[i], [&](auto nv_tag) {
    constexpr int NV = decltype(nv_tag)::value;
    const int iv = m.idx_v[i];
    // Lines 11-14.
    const Motion da_pre = data_.liMi[i].actInv(delta_a_[m.parent[i]]);
    Eigen::Matrix<double, NV, 1> rhs =
        delta_u_.segment<NV>(iv) - data_.U.middleCols<NV>(iv).transpose() * da_pre.toVector();
    for (const MultiplierBlock& a : link.carried) {
      rhs.noalias() += KS_.block(rb + a.row, 0, a.dim, NV).transpose() *
                       dlambda_.segment(constraints_.rowOffset(a.constraint), a.dim);
    }
    const Eigen::Matrix<double, NV, 1> dqdd = data_.Dinv[i].topLeftCorner<NV, NV>() * rhs;
    vdot.segment<NV>(iv) += dqdd;
    step = dqdd.template lpNorm<Eigen::Infinity>();
    delta_a_[i] = da_pre + Motion(data_.S.middleCols<NV>(iv) * dqdd);
    data_.a_gf[i] = data_.a_gf[i] + delta_a_[i];
  });
  if (r > 0) {
    // Lines 15-16: Δλ_R = -L_RR⁻¹(K̄_R Δa_i + Δl_R + L_RU Δλ_U).
    auto minus_dlambda_R = rooted_l_.head(r);
    minus_dlambda_R.noalias() = YK_.middleRows(rb, r) * delta_a_[i].toVector();
    minus_dlambda_R += dyl_.segment(rb, r);
    for (const MultiplierBlock& b : link.carried) {
      minus_dlambda_R.noalias() +=
          YU_[i].middleCols(b.row - r, b.dim) * dlambda_.segment(constraints_.rowOffset(b.constraint), b.dim);
    }
    for (const MultiplierBlock& a : link.rooted) {
      dlambda_.segment(constraints_.rowOffset(a.constraint), a.dim) = -minus_dlambda_R.segment(a.row, a.dim);
    }
  }
  return step;
}

double ProxBboSolver::residual() const {
  double worst = 0.0;
  for (int j = 0; j < constraints_.size(); ++j) {
    const Constraint& c = constraints_[j];
    Vector6 error = cdata_.K1[j] * data_.a_gf[c.body1].toVector();
    if (c.body2 != 0) error.noalias() += cdata_.K2[j] * data_.a_gf[c.body2].toVector();
    for (int r = 0; r < c.dimension(); ++r) {
      worst = std::max(worst, std::abs(error[r] - target_[constraints_.rowOffset(j) + r]));
    }
  }
  return worst;
}

SolveStats ProxBboSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                                Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  if (!settings_.warm_start) lambda_prev_.setZero();
  // Alg. 6 line 1 = Alg. 4: first forward sweep (lines 1-3), then iterate().
  articulatedFirstPass(model(), data_, q, v, tau, fext, /*with_accelerations=*/false, &rigid_inertias_);
  evaluateLinkTargets(constraints_, data_, q, v, cdata_);
  const SolveStats stats = iterate(vdot, nullptr);
  lambda = lambda_;
  return stats;
}

SolveStats ProxBboSolver::solveImpulse(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& r,
                                       Eigen::Ref<VectorX> delta) {
  // Gauss' principle for an impulse is the acceleration problem with v = 0
  // (no c_i, no bias force), τ = 0, no gravity (a_gf,0 = 0) and the target r:
  // Alg. 4-6 unchanged, the reduced two-sweep iterations included. λ⁰ = 0 in
  // buffers of their own: solve()'s warm start stays.
  articulatedFirstPass(model(), data_, q, zero_nv_, zero_nv_, {}, /*with_accelerations=*/false, &rigid_inertias_);
  data_.a_gf[0] = Motion(Vector6::Zero());
  evaluateLinkTargets(constraints_, data_, q, zero_nv_, cdata_);
  lambda_.swap(impulse_);
  lambda_prev_.swap(impulse_prev_);
  lambda_prev_.setZero();
  const SolveStats stats = iterate(delta, &r);
  lambda_.swap(impulse_);
  lambda_prev_.swap(impulse_prev_);
  return stats;
}

SolveStats ProxBboSolver::iterate(Eigen::Ref<VectorX> vdot, const Eigen::Ref<const VectorX>* impulse_target) {
  const int nb = model().nbodies();
  const double mu_inv = 1.0 / settings_.muValue();
  // Alg. 4: constraint terms (lines 4-7), backward sweep (lines 8-17), the
  // world, roll-out (lines 18-23).
  initialiseConstraints(impulse_target);
  for (int i = nb - 1; i >= 1; --i) {
    eliminateRooted(i);
    eliminateLink(i);
  }
  solveWorld(false);
  for (int i = 1; i < nb; ++i) rollout(i, vdot);

  SolveStats stats;
  stats.iterations = 1;
  stats.converged = constraints_.dimension() == 0;
  double step_norm = std::numeric_limits<double>::infinity();  // ‖v̇ᵏ - v̇ᵏ⁻¹‖∞: none yet
  double previous_change = std::numeric_limits<double>::infinity();
  while (constraints_.dimension() > 0) {
    // Alg. 6 lines 5-6: Δk = μ⁻¹Δλᵏ, here as Δl = -μ⁻¹(λᵏ - λᵏ⁻¹).
    dl_ = lambda_prev_ - lambda_;
    dl_ *= mu_inv;
    const double change = dl_.lpNorm<Eigen::Infinity>();  // = ‖J v̇ᵏ - k‖∞
    lambda_prev_ = lambda_;
    if (std::min(step_norm, change) <= settings_.tolerance) {  // line 7
      stats.converged = true;
      break;
    }
    if (stats.iterations >= settings_.max_iterations || change >= previous_change) break;
    previous_change = change;
    // Line 9 = Alg. 5; lines 10-11.
    for (int i = nb - 1; i >= 1; --i) reducedBackward(i);
    solveWorld(true);
    step_norm = 0.0;
    delta_a_[0] = Motion(Vector6::Zero());
    for (int i = 1; i < nb; ++i) step_norm = std::max(step_norm, reducedForward(i, vdot));
    lambda_ += dlambda_;
    ++stats.iterations;
  }
  stats.residual = residual();
  return stats;
}

}  // namespace loopsim
