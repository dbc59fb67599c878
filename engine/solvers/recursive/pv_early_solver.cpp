#include <loopsim/solvers/recursive/pv_early_solver.hpp>

#include <cmath>

#include <loopsim/algorithms/joint_motion.hpp>
#include <loopsim/solvers/joint_space/joint_space_terms.hpp>

namespace loopsim {

PvEarlySolver::PvEarlySolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings), tree_(constraints, added_inertia_, "solver 'pv-early'") {
  const Model& model = constraints.model();
  const int nb = model.nbodies(), m = constraints.dimension();
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
  Kw_ = Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(m, 6);
  ksw_ = Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(m, 6);
  lw_ = VectorX::Zero(m);
  lambda_w_ = VectorX::Zero(m);
}

SolveStats PvEarlySolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                                Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  const Model& model = this->model();
  tree_.forwardSweep(q, v, tau, fext);
  dependent_rows_ = false;
  row_scale_ = 0.0;
  for (int r = 0; r < tree_.dimension(); ++r) row_scale_ = std::max(row_scale_, tree_.K.row(r).norm());
  // Backward sweep: ABA's terms, then the rows of joint i eliminated early.
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    tree_.eliminateJoint(i, false);
    // Active rows at joint i: its own constraints' rows, then what each child left.
    int n = 0;
    int* act = act_.data() + act_begin_[i];
    for (int r = tree_.rowsBegin(i); r < tree_.ownRowsEnd(i); ++r) act[n++] = r;
    for (int child : model.children[i]) {
      for (int k = rank_[child]; k < act_count_[child]; ++k) act[n++] = act_[act_begin_[child] + k];
    }
    act_count_[i] = n;
    eliminateRows(i);
  }
  if (dependent_rows_) throwRankDeficient(q, v);
  // Roll-out: λ of each joint's rows (eqs. 62, 64), then q̈ (eq. 41).
  for (int i = 1; i < model.nbodies(); ++i) rolloutJoint(i, vdot);
  for (int r = 0; r < tree_.dimension(); ++r) lambda[tree_.toGlobal(r)] = lambda_[r];
  SolveStats stats;
  stats.iterations = 1;
  stats.residual = tree_.residual();
  return stats;
}

void PvEarlySolver::eliminateRows(int i) {
  const Model& model = this->model();
  Data& data = tree_.data;
  const int n = act_count_[i], base = act_begin_[i], p = model.parent[i];
  rank_[i] = 0;
  if (n == 0) return;
  const int* act = act_.data() + base;
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
    for (int k = 0; k < n; ++k) {
      Kw.row(k) = tree_.K.row(act[k]);
      lw[k] = tree_.l[act[k]];
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
    double scale = 0.0;
    for (int j = 0; j < NV; ++j) scale = std::max(scale, ksw.col(j).norm());
    const double tolerance = 1e-10 * row_scale_;
    bool used[NV] = {};
    int r = 0;
    for (int k = 0; k < NV && k < n && scale > 0.0; ++k) {
      int best = -1;
      double best_norm = 0.0;
      for (int j = 0; j < NV; ++j) {
        const double norm = used[j] ? -1.0 : ksw.col(j).tail(n - k).norm();
        if (norm > best_norm) best = j, best_norm = norm;
      }
      if (best < 0 || best_norm <= tolerance) break;  // Remark 8: nothing more to eliminate
      used[best] = true;
      auto v = reflectors_.block(base + k, k, n - k, 1);
      v = ksw.col(best).tail(n - k);
      v(0, 0) += (v(0, 0) >= 0.0 ? 1.0 : -1.0) * best_norm;  // eq. 67 (Remark 7: the sign avoids cancellation)
      const double beta = 2.0 / v.squaredNorm();
      betas_[i][k] = beta;
      for (int j = 0; j < NV; ++j) ksw.col(j).tail(n - k) -= (beta * v.col(0).dot(ksw.col(j).tail(n - k))) * v;
      for (int j = 0; j < 6; ++j) Kw.col(j).tail(n - k) -= (beta * v.col(0).dot(Kw.col(j).tail(n - k))) * v;
      lw.tail(n - k) -= (beta * v.col(0).dot(lw.tail(n - k))) * v;
      ++r;
    }
    rank_[i] = r;
    if (r > 0) {
      // Eq. 62's Σ = R D⁻¹ Rᵀ on the eliminated rows, and eq. 63 (with the
      // erratum's sign, here in loopsim's λ): λ̃ = -Σ⁻¹(K̃ a_π + l̃) folds
      // K̃ᵀΣ⁻¹K̃ into the parent's inertia and K̃ᵀΣ⁻¹l̃ into its bias force.
      auto sigma = sigma_[i].topLeftCorner(r, r);
      const Eigen::Matrix<double, Eigen::Dynamic, NV, Eigen::ColMajor, 6, NV> R_Dinv = ksw.topRows(r) * Dinv;
      sigma.noalias() = R_Dinv * ksw.topRows(r).transpose();
      if (!(choleskyInPlace(sigma) > 0.0)) dependent_rows_ = true;
      K_tilde_[i].topRows(r) = Kw.topRows(r);
      l_tilde_[i].head(r) = lw.head(r);
      if (p != 0 && !dependent_rows_) {
        Matrix6 Y = Matrix6::Zero();
        Vector6 y = Vector6::Zero();
        Y.topRows(r) = Kw.topRows(r);
        y.head(r) = lw.head(r);
        for (int col = 0; col < 6; ++col) choleskySolveInPlace(sigma, Y.col(col).head(r));
        choleskySolveInPlace(sigma, y.head(r));
        data.Ia[p].noalias() += Kw.topRows(r).transpose() * Y.topRows(r);
        data.pa[p] = Force(data.pa[p].toVector() + Kw.topRows(r).transpose() * y.head(r));
      }
    }
    // Eq. 61b: the other rows travel on, in the slots r..n-1.
    for (int k = r; k < n; ++k) {
      tree_.K.row(act[k]) = Kw.row(k);
      tree_.l[act[k]] = lw[k];
    }
    if (p == 0 && r < n) dependent_rows_ = true;  // rows left at the world: dependent
  });
}

void PvEarlySolver::rolloutJoint(int i, Eigen::Ref<VectorX> vdot) {
  const Model& model = this->model();
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
      // Eq. 62: λ̃ = -Σ⁻¹(K̃ a_π + l̃); the travelling part λ̂ was set by the parent.
      if (r > 0) {
        lam.head(r) = -(K_tilde_[i].topRows(r) * data.a_gf[p].toVector() + l_tilde_[i].head(r));
        choleskySolveInPlace(sigma_[i].topLeftCorner(r, r), lam.head(r));
      }
      for (int k = r; k < n; ++k) lam[k] = lambda_[act[k]];
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

void PvEarlySolver::throwRankDeficient(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v) const {
  ConstraintData cdata(constraints_);
  Data data(model());
  computeConstraintTerms(constraints_, data, q, v, cdata, kConstraintErrors | kConstraintJacobian);
  loopsim::throwRankDeficient(constraints_, cdata.J, name());
}

}  // namespace loopsim
