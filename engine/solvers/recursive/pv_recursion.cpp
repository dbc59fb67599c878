#include <loopsim/solvers/recursive/pv_recursion.hpp>

#include <loopsim/linalg/fixed_cholesky.hpp>

namespace loopsim {

PvRecursion::PvRecursion(const ConstraintSet& set, const VectorX& added_inertia, std::string_view owner)
    : tree_(set, added_inertia, owner),
      added_inertia_(added_inertia),
      compliance_(VectorX::Zero(set.dimension())),
      lambda_(VectorX::Zero(set.dimension())),
      factor_(MatrixX::Zero(set.dimension(), set.dimension())),
      Z_(Eigen::Matrix<double, Eigen::Dynamic, 8, Eigen::RowMajor>::Zero(set.dimension(), 8)) {}

void PvRecursion::setCompliance(const VectorX& compliance) {
  for (int r = 0; r < tree_.dimension(); ++r) compliance_[r] = compliance[tree_.toGlobal(r)];
  has_compliance_ = (compliance_.array() != 0.0).any();
}

bool PvRecursion::solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                        const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                        Eigen::Ref<VectorX> lambda, SolveStats& stats) {
  const Model& model = tree_.model();
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
    if (has_rows && !solveRootEq43(root)) return false;
  }
  // Second forward sweep (lines 15-17).
  tree_.rollout(lambda_, true, vdot);
  for (int r = 0; r < tree_.dimension(); ++r) lambda[tree_.toGlobal(r)] = lambda_[r];
  return true;
}

void PvRecursion::loadCompliantBlock(int b, int n) {
  auto G = factor_.block(b, b, n, n);
  G = tree_.L.block(b, b, n, n);
  if (has_compliance_) G.diagonal() += compliance_.segment(b, n);
}

// Eq. 43 (fixed base) or eq. 47 (floating base after eq. 48) at the world:
// (L_0^A + C) λ = -(l_0 + K_0^A a_0) with our sign of λ.
// Without compliance, false when L_0^A is singular (a rank-deficient set): a
// pivot collapses relative to the diagonal, the test the joint-space solvers
// use. With it the matrix is positive definite: any positive pivot is exact.
bool PvRecursion::solveRootEq43(int root) {
  const int b = tree_.rowsBegin(root), n = tree_.rowsEnd(root) - b;
  loadCompliantBlock(b, n);
  auto G = factor_.block(b, b, n, n);
  if (!(choleskyInPlace(G) > (has_compliance_ ? 0.0 : kCholeskyCollapseRatio))) return false;
  auto lam = lambda_.segment(b, n);
  lam = -tree_.l.segment(b, n);
  lam.noalias() -= tree_.K.middleRows(b, n) * tree_.worldAcceleration().toVector();
  choleskySolveInPlace(G, lam);
  return true;
}

// Eq. 49 then eq. 46 at a floating root (Alg. 1 lines 13-14), written for the
// base joint's q̈ (S_b = I): with a_b = a_pre + q̈ and l' = l + K a_pre,
//   (D + Kᵀ L⁻¹ K) q̈ = u - Ia a_pre - Kᵀ L⁻¹ l',   λ = -L⁻¹(l' + K q̈),
// L = L_b^A + C. With L = G Gᵀ and [Z z] = G⁻¹ [K l'] (forward substitution
// only): Kᵀ L⁻¹ K = Zᵀ Z, Kᵀ L⁻¹ l' = Zᵀ z and λ = -G⁻ᵀ (z + Z q̈).
bool PvRecursion::solveFloatingRootEq49(int root, Eigen::Ref<VectorX> vdot) {
  const Model& model = tree_.model();
  const int b = tree_.rowsBegin(root), n = tree_.rowsEnd(root) - b;
  // Rows on the base itself have zero rows in L_b^A: singular without
  // compliance, and L_b^A + C ill-conditioned for a small C: eqs. 47-48.
  if (tree_.ownRowsEnd(root) > b) return false;
  // L_b^A is block diagonal over the base's branches (§V-B): factor each
  // branch's block on its own, with the pivot test on each.
  for (int child : model.children[root]) {
    const int cb = tree_.rowsBegin(child), cn = tree_.rowsEnd(child) - cb;
    if (cn == 0) continue;
    loadCompliantBlock(cb, cn);
    if (!(choleskyInPlace(factor_.block(cb, cb, cn, cn)) > kEq49PivotRatio)) return false;
  }

  Data& data = tree_.data;
  const int iv = model.idx_v[root];
  const Matrix6& Ia = data.Ia[root];
  Matrix6 D = Ia;
  D.diagonal() += model.armature.segment<6>(iv) + added_inertia_.segment<6>(iv);
  const Vector6 a_pre = (data.liMi[root].actInv(data.a_gf[0]) + data.c[root]).toVector();
  const Vector6 u = data.u.segment<6>(iv) - data.pa[root].toVector();

  // [Z z] row by row (forward substitution on each branch's block), and
  // W = [Z z]ᵀ [Z z] summed over the rows: its top-left 6 x 6 is Kᵀ L⁻¹ K,
  // its column 6 is Kᵀ L⁻¹ l'.
  // [K l'] is written into Z_ first, all rows, and read back as whole rows:
  // a row assembled from K's strided entries and read at once stalls on
  // store-to-load forwarding (docs/performance.md).
  for (int r = b; r < b + n; ++r) {
    Z_.row(r).head<6>() = tree_.K.row(r);
    Z_(r, 6) = tree_.l[r] + tree_.K.row(r).dot(a_pre);
    Z_(r, 7) = 0.0;
  }
  using Row8 = Eigen::Matrix<double, 1, 8>;
  Eigen::Matrix<double, 8, 8> W = Eigen::Matrix<double, 8, 8>::Zero();
  for (int child : model.children[root]) {
    const int cb = tree_.rowsBegin(child), ce = tree_.rowsEnd(child);
    for (int r = cb; r < ce; ++r) {
      Row8 z = Z_.row(r);
      // The pivot's reciprocal does not depend on z: its division runs ahead
      // of the substitution chain, which then holds multiply-adds only.
      const double inv_pivot = 1.0 / factor_(r, r);
      for (int k = cb; k < r; ++k) z -= factor_(r, k) * Z_.row(k);
      z *= inv_pivot;
      Z_.row(r) = z;
      W.noalias() += z.transpose() * z;
    }
  }
  Matrix6 A = D + W.topLeftCorner<6, 6>();
  const Vector6 rhs = u - Ia * a_pre - W.block<6, 1>(0, 6);
  Vector6 inverse_diagonal;
  fixedCholeskyInPlace<6>(A, inverse_diagonal);
  const Vector6 qdd = fixedCholeskySolve<6>(A, rhs);  // eq. 49
  // Eq. 46: λ = -G⁻ᵀ (z + Z q̈), back substitution on each branch's block,
  // column by column (each solved entry updates the ones above it): the dot
  // form read the entries just solved in vector loads right after their
  // scalar stores, a store-forwarding stall.
  for (int r = b; r < b + n; ++r) lambda_[r] = Z_(r, 6) + Z_.row(r).head<6>().dot(qdd);
  for (int child : model.children[root]) {
    const int cb = tree_.rowsBegin(child), ce = tree_.rowsEnd(child);
    for (int r = ce - 1; r >= cb; --r) {
      const double x = lambda_[r] / factor_(r, r);
      lambda_[r] = x;
      for (int k = cb; k < r; ++k) lambda_[k] -= factor_(r, k) * x;
    }
  }
  lambda_.segment(b, n) = -lambda_.segment(b, n);
  vdot.segment<6>(iv) = qdd;
  data.a_gf[root] = Motion(a_pre + qdd);
  tree_.solved[root] = true;
  return true;
}

}  // namespace loopsim
