#pragma once
// Featherstone's sparse LTDL factorisation of the joint-space inertia matrix,
//   M = Lᵀ D L,   L unit lower triangular, D diagonal,
// ("Efficient factorization of the joint-space inertia matrix for branched
// kinematic trees", IJRR 2005; RBDA §6.5, Table 6.3 "LTDL"). Factoring in the
// reverse (tip-to-root) order produces no fill-in: L(i, j) ≠ 0 only when dof j
// is dof i's ancestor in the expanded parent array λ, the same pattern as M
// (branch-induced sparsity). Cost O(n d²) to factor, O(n d) per solve, with d
// the depth of the tree in dofs. Storage is a dense row-major matrix holding
// U = Lᵀ: with dofs numbered depth-first, the descendants of dof j are the
// contiguous range (j, end_j), so row j of U over that range is one contiguous
// segment and the sweeps are dot products and axpys over it instead of walks
// up the parent array (the walks are load-latency bound; the segments
// vectorise). Only the pattern is ever read or written; everything is sized at
// construction.
#include <span>
#include <vector>

#include <loopsim/model/model.hpp>

namespace loopsim {

class LtlFactorization {
 public:
  using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  explicit LtlFactorization(const Model& model);

  int size() const { return static_cast<int>(parents_.size()); }
  /// Expanded parent array over dofs: λ(i) < i is the previous dof of the same
  /// joint, else the last dof of the parent joint; -1 at a root.
  const std::vector<int>& expandedParents() const { return parents_; }
  /// One past dof j's last descendant: its descendants are j+1 .. subtreeEnd(j)-1.
  int subtreeEnd(int j) const { return subtree_end_[j]; }
  /// True when L(i, j) may be nonzero: j == i or j is an ancestor of i in λ.
  bool inPattern(int i, int j) const;

  /// Factors M (read on the pattern of its lower triangle only). Throws
  /// ModelError when a pivot is not positive (M not positive definite).
  /// No allocation otherwise.
  void factorize(const Eigen::Ref<const MatrixX>& M);

  /// x ← L⁻ᵀ x (root-ward sweep).
  void solveLt(Eigen::Ref<VectorX> x) const;
  /// x ← L⁻ᵀ x for an x whose nonzeros lie in `dofs`, an increasing,
  /// ancestor-closed list: only those entries are touched.
  void solveLt(Eigen::Ref<VectorX> x, std::span<const int> dofs) const;
  /// x ← L⁻¹ x (tip-ward sweep).
  void solveL(Eigen::Ref<VectorX> x) const;
  /// x ← D⁻¹ x.
  void solveD(Eigen::Ref<VectorX> x) const { x.array() *= inverse_diagonal_.array(); }
  /// x ← M⁻¹ x = L⁻¹ D⁻¹ L⁻ᵀ x.
  void solve(Eigen::Ref<VectorX> x) const;

  /// L(i, j) for j < i on the pattern (0 off the pattern).
  double L(int i, int j) const { return upper_(j, i); }
  /// Column j of L as a contiguous row of U = Lᵀ: L(i, j) = columnOfL(j)[i].
  const double* columnOfL(int j) const { return upper_.row(j).data(); }
  const VectorX& D() const { return diagonal_; }
  /// D⁻¹, kept with the factors: products with it replace divisions in the sweeps.
  const VectorX& inverseD() const { return inverse_diagonal_; }
  /// Dense unit lower-triangular L (allocates: for tests and diagnostics).
  MatrixX denseL() const;

 private:
  [[noreturn]] void throwNotPositiveDefinite(double pivot, int j) const;

  std::vector<int> parents_;
  std::vector<int> subtree_end_;  // dof j's descendants are j+1 .. subtree_end_[j]-1
  std::vector<int> ancestors_, ancestor_begin_;  // dof j's ancestors (λ(j), λ(λ(j)), ...), flattened
  RowMajorMatrix upper_;          // strictly upper pattern entries: U = Lᵀ
  VectorX diagonal_;              // D
  VectorX inverse_diagonal_;      // D⁻¹
  VectorX scaled_row_;            // factorisation workspace: D_k U(j, k) over j's descendants
  const Model* model_;
};

}  // namespace loopsim
