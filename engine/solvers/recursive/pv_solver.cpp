#include <loopsim/solvers/recursive/pv_solver.hpp>

#include <loopsim/solvers/joint_space/joint_space_terms.hpp>

namespace loopsim {

PvSolver::PvSolver(const ConstraintSet& constraints, const SolverSettings& settings)
    : ConstrainedSolver(constraints, settings),
      tree_(constraints, added_inertia_, "solver 'pv'"),
      lambda_(VectorX::Zero(constraints.dimension())),
      factor_(MatrixX::Zero(constraints.dimension(), constraints.dimension())),
      Y_(Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(constraints.dimension(), 6)),
      y_(VectorX::Zero(constraints.dimension())) {}

SolveStats PvSolver::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                           const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                           Eigen::Ref<VectorX> vdot, Eigen::Ref<VectorX> lambda) {
  const Model& model = this->model();
  SolveStats stats;
  stats.iterations = 1;
  stats.path = "eq. 43";
  // First forward sweep (Alg. 1 lines 1-5).
  tree_.forwardSweep(q, v, tau, fext);
  tree_.clearL();
  // Backward sweep (lines 6-12), up to but excluding floating roots.
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    if (model.parent[i] == 0 && model.joint_types[i] == JointType::Floating) continue;
    tree_.eliminateJoint(i, true);
  }
  // The world's children are independent given a_0: one root solve each.
  for (int root : tree_.roots()) {
    const bool has_rows = tree_.rowsEnd(root) > tree_.rowsBegin(root);
    if (model.joint_types[root] == JointType::Floating) {
      if (has_rows && solveFloatingRootEq49(root, vdot)) {
        stats.path = "eq. 49";
        continue;
      }
      tree_.eliminateJoint(root, true);  // eq. 48: the base as a 6-dof joint
      if (has_rows) stats.path = "eq. 47-48";
    }
    if (has_rows && !solveRootEq43(root)) throwRankDeficient(q, v);
  }
  // Second forward sweep (lines 15-17).
  tree_.rollout(lambda_, true, vdot);
  for (int r = 0; r < tree_.dimension(); ++r) lambda[tree_.toGlobal(r)] = lambda_[r];
  stats.residual = tree_.residual();
  return stats;
}

// Eq. 43 (fixed base) or eq. 47 (floating base after eq. 48) at the world:
// L_0^A λ = -(l_0 + K_0^A a_0) with our sign of λ.
// False when L_0^A is singular (a rank-deficient set): a pivot collapses
// relative to the diagonal, the test the joint-space solvers use.
bool PvSolver::solveRootEq43(int root) {
  const int b = tree_.rowsBegin(root), n = tree_.rowsEnd(root) - b;
  auto G = factor_.block(b, b, n, n);
  G = tree_.L.block(b, b, n, n);
  if (!(choleskyInPlace(G) > 1e-12)) return false;
  auto lam = lambda_.segment(b, n);
  lam = -tree_.l.segment(b, n);
  lam.noalias() -= tree_.K.middleRows(b, n) * tree_.worldAcceleration().toVector();
  choleskySolveInPlace(G, lam);
  return true;
}

// Eq. 49 then eq. 46 at a floating root (Alg. 1 lines 13-14), written for the
// base joint's q̈ (S_b = I): with a_b = a_pre + q̈ and l' = l + K a_pre,
//   (D + Kᵀ L⁻¹ K) q̈ = u - Ia a_pre - Kᵀ L⁻¹ l',   λ = -L⁻¹(l' + K q̈).
bool PvSolver::solveFloatingRootEq49(int root, Eigen::Ref<VectorX> vdot) {
  const Model& model = this->model();
  const int b = tree_.rowsBegin(root), n = tree_.rowsEnd(root) - b;
  // Rows on the base itself have zero rows in L_b^A: singular, eqs. 47-48.
  if (tree_.ownRowsEnd(root) > b) return false;
  // L_b^A is block diagonal over the base's branches (§V-B): factor each
  // branch's block on its own, with the pivot test on each.
  for (int child : model.children[root]) {
    const int cb = tree_.rowsBegin(child), cn = tree_.rowsEnd(child) - cb;
    if (cn == 0) continue;
    auto G = factor_.block(cb, cb, cn, cn);
    G = tree_.L.block(cb, cb, cn, cn);
    if (!(choleskyInPlace(G) > kEq49PivotRatio)) return false;
  }

  Data& data = tree_.data;
  const int iv = model.idx_v[root];
  const Matrix6& Ia = data.Ia[root];
  Matrix6 D = Ia;
  D.diagonal() += model.armature.segment<6>(iv) + added_inertia_.segment<6>(iv);
  const Vector6 a_pre = (data.liMi[root].actInv(data.a_gf[0]) + data.c[root]).toVector();
  const Vector6 u = data.u.segment<6>(iv) - data.pa[root].toVector();

  const auto Kb = tree_.K.middleRows(b, n);
  auto Y = Y_.middleRows(b, n);
  auto y = y_.segment(b, n);
  Y = Kb;
  y = tree_.l.segment(b, n);
  y.noalias() += Kb * a_pre;
  for (int child : model.children[root]) {  // Y = L⁻¹ K, y = L⁻¹ l' branch by branch
    const int cb = tree_.rowsBegin(child), cn = tree_.rowsEnd(child) - cb;
    if (cn == 0) continue;
    const auto G = factor_.block(cb, cb, cn, cn);
    for (int col = 0; col < 6; ++col) choleskySolveInPlace(G, Y_.col(col).segment(cb, cn));
    choleskySolveInPlace(G, y_.segment(cb, cn));
  }
  // Kᵀ Y is 6 x 6 over m rows: a coefficient-wise product (Eigen's blocked
  // GEMM costs more than the arithmetic at these sizes).
  const Matrix6 A = D + Kb.transpose().lazyProduct(Y);
  const Vector6 rhs = u - Ia * a_pre - Kb.transpose() * y;
  const Vector6 qdd = A.llt().solve(rhs);  // eq. 49
  lambda_.segment(b, n) = -y;  // eq. 46
  lambda_.segment(b, n).noalias() -= Y * qdd;
  vdot.segment<6>(iv) = qdd;
  data.a_gf[root] = Motion(a_pre + qdd);
  tree_.solved[root] = true;
  return true;
}

void PvSolver::throwRankDeficient(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v) const {
  ConstraintData cdata(constraints_);
  Data data(model());
  computeConstraintTerms(constraints_, data, q, v, cdata, kConstraintErrors | kConstraintJacobian);
  loopsim::throwRankDeficient(constraints_, cdata.J, name());
}

}  // namespace loopsim
