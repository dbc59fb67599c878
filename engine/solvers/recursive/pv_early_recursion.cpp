#include <loopsim/solvers/recursive/pv_early_recursion.hpp>

#include <cmath>

#include <loopsim/model/joint_motion.hpp>

namespace loopsim {

namespace {

// Early elimination at a joint whose K S is small against its rows makes the
// pivot G tiny: K̃ᵀG⁻¹K̃ dwarfs the parent's inertia and the digits lost in
// its articulated-body projection come back amplified by G⁻¹ in eq. 62
// (relative error ~ ε/δ⁴ for ‖K S‖ = δ‖K‖). Such rows travel on instead
// (Remark 8 generalised: exact, with the joint's L^A update of eq. 57 kept
// for them, as PV keeps it), and are eliminated further up.
constexpr double kDeferRatio = 0.1;
// Slot column 7: 1 when the row carries an L^A block (the C of the header).
constexpr int kCarried = 7;

bool anyCarried(const Eigen::Matrix<double, Eigen::Dynamic, 8, Eigen::RowMajor>& rows, const int* act, int n) {
  for (int k = 0; k < n; ++k) {
    if (rows(act[k], kCarried) != 0.0) return true;
  }
  return false;
}

}  // namespace

PvEarlyRecursion::PvEarlyRecursion(const ConstraintSet& set, const VectorX& added_inertia, std::string_view owner)
    : tree_(set, added_inertia, owner) {
  const Model& model = set.model();
  const int nb = model.nbodies(), m = set.dimension();
  act_begin_.assign(nb, 0);
  act_count_.assign(nb, 0);
  rank_.assign(nb, 0);
  int total = 0;
  for (int i = 1; i < nb; ++i) {
    act_begin_[i] = total;
    total += tree_.rowsEnd(i) - tree_.rowsBegin(i);  // at most the subtree's rows are active at i
  }
  act_.assign(total, 0);
  ks_ = Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(total, 6);
  reflectors_ = Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(total, 6);
  betas_.assign(nb, Vector6::Zero());
  K_tilde_.assign(nb, Matrix6::Zero());
  l_tilde_.assign(nb, Vector6::Zero());
  sigma_.assign(nb, Matrix6::Zero());
  lambda_ = VectorX::Zero(m);
  slot_rows_ = Eigen::Matrix<double, Eigen::Dynamic, 8, Eigen::RowMajor>::Zero(m, 8);
  rows_w_ = Eigen::Matrix<double, Eigen::Dynamic, 8, Eigen::RowMajor>::Zero(m, 8);
  Kw_ = Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(m, 6);
  ksw_ = Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(m, 6);
  lw_ = VectorX::Zero(m);
  lambda_w_ = VectorX::Zero(m);
  // Rows deferred at a joint carry their L^A block like a compliance.
  slot_compliance_ = MatrixX::Zero(m, m);
  joint_compliance_ = MatrixX::Zero(m, m);
  c21_ = Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(total, 6);
}

void PvEarlyRecursion::setCompliance(const VectorX& compliance) {
  const int m = tree_.dimension();
  if ((compliance.array() == 0.0).all()) {
    compliance_.resize(0);
    return;
  }
  compliance_.resize(m);
  for (int r = 0; r < m; ++r) compliance_[r] = compliance[tree_.toGlobal(r)];
}

bool PvEarlyRecursion::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                             const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                             Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda, SolveStats& stats) {
  const Model& model = tree_.model();
  tree_.forwardSweep(q, v, tau, fext);
  dependent_rows_ = false;
  row_scale_ = 0.0;
  for (int r = 0; r < tree_.dimension(); ++r) {
    slot_rows_.row(r).head<6>() = tree_.K.row(r);
    slot_rows_(r, 6) = tree_.l[r];
    slot_rows_(r, kCarried) = hasCompliance() ? 1.0 : 0.0;
    row_scale_ = std::max(row_scale_, tree_.K.row(r).norm());
  }
  // Backward sweep: ABA's terms, then the rows of joint i eliminated early.
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    tree_.eliminateJoint(i, false);
    gatherRows(i);
    rank_[i] = 0;
    if (act_count_[i] == 0) continue;  // no rows at joint i
    if (model.joint_nv[i] == 1) {
      eliminateRowsOneDof(i);
    } else {
      eliminateRows(i);
    }
  }
  if (dependent_rows_) return false;
  // Roll-out: λ of each joint's rows (eqs. 62, 64), then q̈ (eq. 41).
  for (int i = 1; i < model.nbodies(); ++i) {
    if (model.joint_nv[i] == 1) {
      rolloutJointOneDof(i, vdot);
    } else {
      rolloutJoint(i, vdot);
    }
  }
  for (int r = 0; r < tree_.dimension(); ++r) lambda[tree_.toGlobal(r)] = lambda_[r];
  stats.iterations = 1;
  stats.path = hasCompliance() ? "early elimination + W⁻¹" : "early elimination";
  return true;
}

void PvEarlyRecursion::gatherRows(int i) {
  // Active rows at joint i: its own constraints' rows, then what each child left.
  const Model& model = tree_.model();
  int n = 0;
  int* act = act_.data() + act_begin_[i];
  for (int r = tree_.rowsBegin(i); r < tree_.ownRowsEnd(i); ++r) act[n++] = r;
  const int own = n;
  for (int child : model.children[i]) {
    for (int k = rank_[child]; k < act_count_[child]; ++k) act[n++] = act_[act_begin_[child] + k];
  }
  act_count_[i] = n;
  if (n == 0 || !(hasCompliance() || anyCarried(slot_rows_, act + own, n - own))) return;
  // Their C: the own rows' W⁻¹, each child's travelling block (zero when it
  // carries none); rows of different branches are not coupled.
  auto C = joint_compliance_.topLeftCorner(n, n);
  C.setZero();
  if (hasCompliance()) {
    for (int k = 0; k < own; ++k) C(k, k) = compliance_[act[k]];
  }
  int begin = own;
  for (int child : model.children[i]) {
    const int end = begin + act_count_[child] - rank_[child];
    if (end > begin && slot_rows_(act[begin], kCarried) != 0.0) {
      for (int a = begin; a < end; ++a) {
        for (int b = begin; b < end; ++b) C(a, b) = slot_compliance_(act[a], act[b]);
      }
    }
    begin = end;
  }
}

void PvEarlyRecursion::eliminateRows(int i) {
  const Model& model = tree_.model();
  Data& data = tree_.data;
  const int n = act_count_[i], base = act_begin_[i], p = model.parent[i];
  const int* act = act_.data() + base;
  const bool carried = hasCompliance() || anyCarried(slot_rows_, act, n);  // C built by gatherRows
  detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
    constexpr int NV = decltype(nv_tag)::value;
    const int iv = model.idx_v[i];
    const auto S = data.S.middleCols<NV>(iv);
    const auto U = data.U.middleCols<NV>(iv);
    const auto Dinv = data.Dinv[i].topLeftCorner<NV, NV>();
    const Vector6 c = data.c[i].toVector();
    auto Kw = Kw_.topRows(n);
    auto lw = lw_.head(n);
    auto ksw = ksw_.block(0, 0, n, NV);
    double row_norm = 0.0;  // the largest row reaching joint i (its frame)
    for (int k = 0; k < n; ++k) {
      Kw.row(k) = slot_rows_.row(act[k]).head<6>();
      lw[k] = slot_rows_(act[k], 6);
      row_norm = std::max(row_norm, Kw.row(k).norm());
    }
    // Eq. 57's K S, kept for the roll-out; eqs. 42c-d move the rows to the parent.
    ksw.noalias() = Kw * S;
    ks_.block(base, 0, n, NV) = ksw;
    const Eigen::Matrix<double, NV, 1> u_c = data.u.segment<NV>(iv) - U.transpose() * c;
    lw.noalias() += Kw * c;
    lw.noalias() += ksw * (Dinv * u_c);
    const Eigen::Matrix<double, 6, NV> UDinv = U * Dinv;
    Kw.noalias() -= ksw * UDinv.transpose();
    for (int k = 0; k < n; ++k) Kw.row(k) = data.liMi[i].act(Force(Vector6(Kw.row(k).transpose()))).toVector().transpose();

    // Eqs. 59-60: an orthonormal basis whose first r vectors span range(K S):
    // Householder reflections with column pivoting (eqs. 65-67 for NV = 1).
    // Rank test against the constraint rows' size (S_i has unit columns):
    // rows that cancelled to round-off (dependent constraints) are not eliminated.
    // Below kDeferRatio of the rows' size (not at a world child, where no
    // parent inertia amplifies G⁻¹) the rest is deferred: it travels on with
    // its share of eq. 57's L^A.
    double scale = 0.0;
    for (int j = 0; j < NV; ++j) scale = std::max(scale, ksw.col(j).norm());
    const double tolerance = 1e-10 * row_scale_;
    const double defer_below = p != 0 ? kDeferRatio * row_norm : 0.0;
    bool used[NV] = {};
    bool deferred = false;
    int r = 0;
    for (int k = 0; k < NV && k < n && scale > 0.0; ++k) {
      int best = -1;
      double best_norm = 0.0;
      for (int j = 0; j < NV; ++j) {
        const double norm = used[j] ? -1.0 : ksw.col(j).tail(n - k).norm();
        if (norm > best_norm) best = j, best_norm = norm;
      }
      if (best < 0 || best_norm <= tolerance) break;  // Remark 8: nothing more to eliminate
      if (best_norm < defer_below) {
        deferred = true;
        break;
      }
      used[best] = true;
      auto v = reflectors_.block(base + k, k, n - k, 1);
      v = ksw.col(best).tail(n - k);
      v(0, 0) += (v(0, 0) >= 0.0 ? 1.0 : -1.0) * best_norm;  // eq. 67 (Remark 7: the sign avoids cancellation)
      const double beta = 2.0 / v.squaredNorm();
      betas_[i][k] = beta;
      for (int j = 0; j < NV; ++j) ksw.col(j).tail(n - k) -= (beta * v.col(0).dot(ksw.col(j).tail(n - k))) * v;
      for (int j = 0; j < 6; ++j) Kw.col(j).tail(n - k) -= (beta * v.col(0).dot(Kw.col(j).tail(n - k))) * v;
      lw.tail(n - k) -= (beta * v.col(0).dot(lw.tail(n - k))) * v;
      if (carried) {  // C ← Q C Qᵀ on rows and columns k..n-1
        auto C = joint_compliance_.block(0, 0, n, n);
        for (int j = 0; j < n; ++j) C.col(j).tail(n - k) -= (beta * v.col(0).dot(C.col(j).tail(n - k))) * v;
        for (int j = 0; j < n; ++j) {
          C.row(j).tail(n - k) -= (beta * C.row(j).tail(n - k).dot(v.col(0).transpose())) * v.col(0).transpose();
        }
      }
      ++r;
    }
    rank_[i] = r;
    const int t = n - r;  // travelling rows
    const bool carry = carried || deferred;
    if (carry) {
      // Eq. 57 in the reflected basis, all of it: C ← C + (Q K S) D⁻¹ (Q K S)ᵀ
      // (its r x r block is eq. 62's Σ, the rest what the deferred rows carry).
      auto C = joint_compliance_.topLeftCorner(n, n);
      if (!carried) C.setZero();
      for (int a = 0; a < NV; ++a) {
        for (int b = 0; b < NV; ++b) C.noalias() += (Dinv(a, b) * ksw.col(a)) * ksw.col(b).transpose();
      }
    }
    if (r > 0) {
      // Eq. 62's Σ = R D⁻¹ Rᵀ on the eliminated rows (+ C₁₁), and eq. 63
      // (with the erratum's sign, here in loopsim's λ): λ̃ = -G⁻¹(K̃ a_π + l̃
      // + C₁₂ λ_t) folds K̃ᵀG⁻¹K̃ into the parent's inertia and K̃ᵀG⁻¹l̃
      // into its bias force.
      auto sigma = sigma_[i].topLeftCorner(r, r);
      if (carry) {
        sigma = joint_compliance_.topLeftCorner(r, r);
      } else {
        const Eigen::Matrix<double, Eigen::Dynamic, NV, Eigen::ColMajor, 6, NV> R_Dinv = ksw.topRows(r) * Dinv;
        sigma.noalias() = R_Dinv * ksw.topRows(r).transpose();
      }
      if (!(choleskyInPlace(sigma) > 0.0)) dependent_rows_ = true;
      K_tilde_[i].topRows(r) = Kw.topRows(r);
      l_tilde_[i].head(r) = lw.head(r);
      if (t > 0) c21_.block(base + r, 0, t, r).setZero();
      if ((p != 0 || (carry && t > 0)) && !dependent_rows_) {
        Matrix6 Y = Matrix6::Zero();
        Vector6 y = Vector6::Zero();
        Y.topRows(r) = Kw.topRows(r);
        y.head(r) = lw.head(r);
        for (int col = 0; col < 6; ++col) choleskySolveInPlace(sigma, Y.col(col).head(r));
        choleskySolveInPlace(sigma, y.head(r));
        if (p != 0) {
          data.Ia[p].noalias() += Kw.topRows(r).transpose() * Y.topRows(r);
          data.pa[p] = Force(data.pa[p].toVector() + Kw.topRows(r).transpose() * y.head(r));
        }
        if (carry && t > 0) {
          // The travelling rows see λ̃: K_t -= C₂₁G⁻¹K̃, l_t -= C₂₁G⁻¹l̃, C₂₂ -= C₂₁G⁻¹C₁₂.
          auto C = joint_compliance_.block(0, 0, n, n);
          auto c21 = c21_.block(base + r, 0, t, r);
          c21 = C.bottomLeftCorner(t, r);
          Kw.bottomRows(t).noalias() -= c21 * Y.topRows(r);
          lw.tail(t).noalias() -= c21 * y.head(r);
          for (int k = 0; k < t; ++k) {
            Vector6 z = Vector6::Zero();
            z.head(r) = c21.row(k).transpose();
            choleskySolveInPlace(sigma, z.head(r));
            C.col(r + k).tail(t).noalias() -= c21 * z.head(r);
          }
        }
      }
    }
    // Eq. 61b: the other rows travel on, in the slots r..n-1 (with their C).
    for (int k = r; k < n; ++k) {
      slot_rows_.row(act[k]).head<6>() = Kw.row(k);
      slot_rows_(act[k], 6) = lw[k];
      slot_rows_(act[k], kCarried) = carry ? 1.0 : 0.0;
    }
    passOn(i, r);
  });
}

void PvEarlyRecursion::eliminateRowsOneDof(int i) {
  // eliminateRows for nv = 1 on plain arrays: one reflection (eqs. 65-67),
  // at most one row eliminated, Σ and G scalars. The generic path's small
  // dynamic blocks cost more than its arithmetic on rows this short.
  const Model& model = tree_.model();
  Data& data = tree_.data;
  const int n = act_count_[i], base = act_begin_[i], p = model.parent[i];
  const int* act = act_.data() + base;
  const bool carried = hasCompliance() || anyCarried(slot_rows_, act, n);  // C built by gatherRows
  const int iv = model.idx_v[i];
  const Vector6 S = data.S.col(iv), U = data.U.col(iv), c = data.c[i].toVector();
  const double dinv = data.Dinv[i](0, 0);
  const double u_c = data.u[iv] - U.dot(c);
  const Vector6 UDinv = dinv * U;
  const SE3& X = data.liMi[i];
  double* ks = ks_.col(0).data() + base;
  double* v = reflectors_.col(0).data() + base;
  double norm2 = 0.0, row_norm2 = 0.0;
  for (int k = 0; k < n; ++k) {
    // Eq. 57's K S; eqs. 42c-d: the row projected and moved to the parent.
    auto row = rows_w_.row(k);
    row = slot_rows_.row(act[k]);
    Vector6 K = row.head<6>().transpose();
    row_norm2 = std::max(row_norm2, K.squaredNorm());
    const double kS = K.dot(S);
    ks[k] = kS;
    norm2 += kS * kS;
    row(6) += K.dot(c) + kS * dinv * u_c;
    K -= kS * UDinv;
    const Vector3 f = X.R * K.tail<3>();
    row.head<3>() = (X.R * K.head<3>() + X.t.cross(f)).transpose();
    row.segment<3>(3) = f.transpose();
  }
  // Eqs. 65-67: the reflection taking K S to its first row (Remark 7's sign).
  // Deferred (not at a world child) when K S is below kDeferRatio of the
  // rows reaching joint i: the rows travel on with eq. 57's ks D⁻¹ ksᵀ.
  const double norm = std::sqrt(norm2);
  const bool nonzero = norm > 1e-10 * row_scale_;
  const bool deferred = nonzero && p != 0 && norm2 < kDeferRatio * kDeferRatio * row_norm2;
  const bool carry = carried || deferred;
  double* C = joint_compliance_.data();
  const long ld = joint_compliance_.outerStride();
  if (deferred && !carried) {
    for (int b = 0; b < n; ++b) {
      for (int a = 0; a < n; ++a) C[b * ld + a] = 0.0;
    }
  }
  int r = 0;
  if (deferred) {
    for (int b = 0; b < n; ++b) {  // C += ks D⁻¹ ksᵀ (eq. 57)
      for (int a = 0; a < n; ++a) C[b * ld + a] += ks[a] * dinv * ks[b];
    }
  } else if (nonzero) {
    for (int k = 0; k < n; ++k) v[k] = ks[k];
    v[0] += (v[0] >= 0.0 ? 1.0 : -1.0) * norm;
    const double beta = 1.0 / (norm * std::abs(v[0]));  // 2 / vᵀv
    betas_[i][0] = beta;
    Eigen::Matrix<double, 1, 8> w = Eigen::Matrix<double, 1, 8>::Zero();
    for (int k = 0; k < n; ++k) w += v[k] * rows_w_.row(k);
    w *= beta;
    for (int k = 0; k < n; ++k) rows_w_.row(k) -= v[k] * w;
    if (carry) {  // C ← H C H = C - v yᵀ - y vᵀ, y = βCv - (β²/2)(vᵀCv) v
      double* y = lambda_w_.data();
      double vy = 0.0;
      for (int a = 0; a < n; ++a) {
        double sum = 0.0;
        for (int b = 0; b < n; ++b) sum += C[b * ld + a] * v[b];  // C symmetric: column a
        y[a] = beta * sum;
        vy += v[a] * y[a];
      }
      for (int a = 0; a < n; ++a) y[a] -= 0.5 * beta * vy * v[a];
      for (int b = 0; b < n; ++b) {
        for (int a = 0; a < n; ++a) C[b * ld + a] -= v[a] * y[b] + y[a] * v[b];
      }
    }
    r = 1;
  }
  rank_[i] = r;
  if (r == 1) {
    // Eq. 62: G = R D⁻¹ Rᵀ (+ C₁₁), R = ∓‖K S‖; eq. 63 folds the row into the parent.
    const double G = norm2 * dinv + (carry ? C[0] : 0.0);
    if (!(G > 0.0)) {
      dependent_rows_ = true;
      return;
    }
    sigma_[i](0, 0) = std::sqrt(G);  // the 1 x 1 Cholesky factor, as eliminateRows stores it
    const Vector6 Kt = rows_w_.row(0).head<6>().transpose();
    const double lt = rows_w_(0, 6);
    K_tilde_[i].row(0) = Kt.transpose();
    l_tilde_[i][0] = lt;
    if (p != 0) {
      data.Ia[p].noalias() += (Kt / G) * Kt.transpose();
      data.pa[p] = Force(data.pa[p].toVector() + (lt / G) * Kt);
    }
    if (carry) {
      // The travelling rows see λ̃: K_t -= C₂₁G⁻¹K̃, l_t -= C₂₁G⁻¹l̃, C₂₂ -= C₂₁G⁻¹C₁₂.
      for (int k = 1; k < n; ++k) {
        const double c21 = C[k];
        c21_(base + k, 0) = c21;
        rows_w_.row(k) -= (c21 / G) * rows_w_.row(0);
        for (int j = 1; j < n; ++j) C[j * ld + k] -= c21 * C[j] / G;
      }
    } else {
      for (int k = 1; k < n; ++k) c21_(base + k, 0) = 0.0;
    }
  }
  // Eq. 61b: the other rows travel on, in the slots r..n-1 (with their C).
  for (int k = r; k < n; ++k) {
    slot_rows_.row(act[k]) = rows_w_.row(k);
    slot_rows_(act[k], kCarried) = carry ? 1.0 : 0.0;
  }
  passOn(i, r);
}

void PvEarlyRecursion::passOn(int i, int r) {
  // The travelling rows' C kept in their slots; what a world child leaves is
  // solved now (soft, or rows carrying L^A) or is dependent (hard).
  const int n = act_count_[i], t = n - r;
  const int* act = act_.data() + act_begin_[i];
  const bool carry = t > 0 && slot_rows_(act[r], kCarried) != 0.0;
  if (carry) {
    for (int a = r; a < n; ++a) {
      for (int b = r; b < n; ++b) slot_compliance_(act[a], act[b]) = joint_compliance_(a, b);
    }
  }
  if (tree_.model().parent[i] == 0 && t > 0) {
    if (carry) {
      solveWorldRows(i, r);
    } else {
      dependent_rows_ = true;  // hard rows left at the world: dependent
    }
  }
}

void PvEarlyRecursion::solveWorldRows(int i, int r) {
  // The rows a world child leaves: C₂₂ λ_t = -(K_t a_0 + l_t), K_t in the world frame.
  // Hard rows carrying L^A: PV's root solve (eq. 43) on them, with its rank test.
  const int n = act_count_[i], t = n - r;
  const int* act = act_.data() + act_begin_[i];
  auto C22 = joint_compliance_.block(r, r, t, t);
  auto lam = lambda_w_.head(t);
  const Vector6 a0 = tree_.worldAcceleration().toVector();
  for (int k = 0; k < t; ++k) lam[k] = -(slot_rows_.row(act[r + k]).head<6>().dot(a0) + slot_rows_(act[r + k], 6));
  if (!(choleskyInPlace(C22) > (hasCompliance() ? 0.0 : kCholeskyCollapseRatio))) {
    dependent_rows_ = true;
    return;
  }
  choleskySolveInPlace(C22, lam);
  for (int k = 0; k < t; ++k) lambda_[act[r + k]] = lam[k];
}

void PvEarlyRecursion::rolloutJoint(int i, Eigen::Ref<VectorX> vdot) {
  const Model& model = tree_.model();
  Data& data = tree_.data;
  const int n = act_count_[i], base = act_begin_[i], r = rank_[i], p = model.parent[i];
  const int* act = act_.data() + base;
  detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
    constexpr int NV = decltype(nv_tag)::value;
    const int iv = model.idx_v[i];
    const Motion a_pre = data.liMi[i].actInv(data.a_gf[p]) + data.c[i];
    Eigen::Matrix<double, NV, 1> rhs =
        data.u.segment<NV>(iv) - data.U.middleCols<NV>(iv).transpose() * a_pre.toVector();
    if (n > 0) {
      auto lam = lambda_w_.head(n);
      // The travelling part λ_t was set by the parent (or the world's solve).
      for (int k = r; k < n; ++k) lam[k] = lambda_[act[k]];
      // Eq. 62: λ̃ = -G⁻¹(K̃ a_π + l̃ + C₁₂ λ_t).
      if (r > 0) {
        lam.head(r) = -(K_tilde_[i].topRows(r) * data.a_gf[p].toVector() + l_tilde_[i].head(r));
        if (n > r) lam.head(r).noalias() -= c21_.block(base + r, 0, n - r, r).transpose() * lam.tail(n - r);
        choleskySolveInPlace(sigma_[i].topLeftCorner(r, r), lam.head(r));
      }
      // Eq. 64: back to the rows' basis (the reflections in reverse order).
      for (int k = r - 1; k >= 0; --k) {
        const auto v = reflectors_.block(base + k, k, n - k, 1);
        lam.tail(n - k) -= (betas_[i][k] * v.col(0).dot(lam.tail(n - k))) * v.col(0);
      }
      for (int k = 0; k < n; ++k) lambda_[act[k]] = lam[k];
      rhs.noalias() += ks_.block(base, 0, n, NV).transpose() * lam;
    }
    auto qdd = vdot.segment<NV>(iv);
    qdd.noalias() = data.Dinv[i].topLeftCorner<NV, NV>() * rhs;  // eq. 41
    data.a_gf[i] = a_pre + Motion(data.S.middleCols<NV>(iv) * qdd);
  });
}

void PvEarlyRecursion::rolloutJointOneDof(int i, Eigen::Ref<VectorX> vdot) {
  const Model& model = tree_.model();
  Data& data = tree_.data;
  const int n = act_count_[i], base = act_begin_[i], r = rank_[i], p = model.parent[i];
  const int* act = act_.data() + base;
  const int iv = model.idx_v[i];
  const Motion a_pre = data.liMi[i].actInv(data.a_gf[p]) + data.c[i];
  double rhs = data.u[iv] - data.U.col(iv).dot(a_pre.toVector());
  if (n > 0) {
    double* lam = lambda_w_.data();
    for (int k = r; k < n; ++k) lam[k] = lambda_[act[k]];  // set by the parent (or the world's solve)
    if (r == 1) {
      // Eq. 62: λ̃ = -G⁻¹(K̃ a_π + l̃ + C₁₂ λ_t); eq. 64: the reflection back.
      double g = K_tilde_[i].row(0).dot(data.a_gf[p].toVector()) + l_tilde_[i][0];
      for (int k = 1; k < n; ++k) g += c21_(base + k, 0) * lam[k];
      const double G = sigma_[i](0, 0) * sigma_[i](0, 0);
      lam[0] = -g / G;
      const double* v = reflectors_.col(0).data() + base;
      double d = 0.0;
      for (int k = 0; k < n; ++k) d += v[k] * lam[k];
      d *= betas_[i][0];
      for (int k = 0; k < n; ++k) lam[k] -= d * v[k];
    }
    const double* ks = ks_.col(0).data() + base;
    for (int k = 0; k < n; ++k) {
      lambda_[act[k]] = lam[k];
      rhs += ks[k] * lam[k];
    }
  }
  const double qdd = data.Dinv[i](0, 0) * rhs;  // eq. 41
  vdot[iv] = qdd;
  data.a_gf[i] = a_pre + Motion(qdd * data.S.col(iv));
}

}  // namespace loopsim
