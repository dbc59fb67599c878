#include <loopsim/solvers/joint_space/ltl_factorization.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <string>

#include <loopsim/linalg/kernels/row_segments.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

LtlFactorization::LtlFactorization(const Model& model)
    : parents_(model.nv, -1),
      subtree_end_(model.nv, 0),
      upper_(RowMajorMatrix::Zero(model.nv, model.nv)),
      diagonal_(VectorX::Ones(model.nv)),
      inverse_diagonal_(VectorX::Ones(model.nv)),
      scaled_row_(VectorX::Zero(model.nv + kernels::kRowSegmentPadding)),
      model_(&model) {
  // λ over dofs: a multi-dof joint is a chain of single dofs.
  for (int joint = 1; joint < model.nbodies(); ++joint) {
    const int first = model.idx_v[joint];
    const int parent = model.parent[joint];
    parents_[first] = parent > 0 ? model.idx_v[parent] + model.joint_nv[parent] - 1 : -1;
    for (int k = 1; k < model.joint_nv[joint]; ++k) parents_[first + k] = first + k - 1;
  }
  for (int i = 0; i < model.nv; ++i) {
    if (parents_[i] >= i) {
      throw ModelError(model.source_file, "model '" + model.name + "'",
                       "dofs are not in topological order (dof " + std::to_string(i) +
                           " has expanded parent " + std::to_string(parents_[i]) + ")");
    }
  }
  for (int j = model.nv - 1; j >= 0; --j) {
    subtree_end_[j] = std::max(subtree_end_[j], j + 1);
    if (parents_[j] >= 0) subtree_end_[parents_[j]] = std::max(subtree_end_[parents_[j]], subtree_end_[j]);
  }
  // Contiguous subtrees: the model builder refuses bodies that are not depth-first.
  ancestor_begin_.assign(1, 0);
  for (int j = 0; j < model.nv; ++j) {
    for (int i = parents_[j]; i >= 0; i = parents_[i]) ancestors_.push_back(i);
    ancestor_begin_.push_back(static_cast<int>(ancestors_.size()));
  }
}

bool LtlFactorization::inPattern(int i, int j) const {
  if (j > i) std::swap(i, j);
  for (int a = i; a >= 0; a = parents_[a]) {
    if (a == j) return true;
  }
  return false;
}

void LtlFactorization::factorize(const Eigen::Ref<const MatrixX>& M) {
  // RBDA Table 6.3 (LTDL) reorganised by columns of U = Lᵀ, from the tips to
  // the roots: with M = U D Uᵀ and desc(j) the descendants of j,
  //   D_j    = M_jj − Σ_{k∈desc(j)} U_jk D_k U_jk,
  //   U_ij   = (M_ij − Σ_{k∈desc(j)} U_ik D_k U_jk) / D_j   for i an ancestor of j.
  // Same products as the table's right-looking updates, summed per entry.
  // desc(j) is the contiguous range [j + 1, subtree end), so each sum is over
  // one segment of a row of U (kernels/row_segments.hpp).
  const int n = size();
  const Eigen::Index ld = upper_.outerStride();
  double* const U = upper_.data();  // row-major: row i at U + i·ld
  double* const scaled = scaled_row_.data();
  const double* const D = diagonal_.data();
  for (int j = n - 1; j >= 0; --j) {
    const int begin = j + 1, end = subtree_end_[j];
    // D_j = M_jj − Σ_k U_jk (D_k U_jk), keeping scaled_k = D_k U_jk for the U_ij.
    const double pivot = kernels::minusWeightedSquares(M(j, j), U + j * ld, D, begin, end, scaled);
    if (!(pivot > 0.0)) throwNotPositiveDefinite(pivot, j);
    diagonal_[j] = pivot;
    const double inverse_pivot = 1.0 / pivot;
    inverse_diagonal_[j] = inverse_pivot;
    // U_ij = (M_ij − Σ_k U_ik scaled_k) / D_j over j's ancestors i, from a
    // flat list built once (no walk up λ).
    const int first = ancestor_begin_[j];
    kernels::forEachRowDot(U, ld, ancestors_.data() + first, ancestor_begin_[j + 1] - first, scaled, begin, end,
                           [&](int i, double sum) { U[i * ld + j] = (M(j, i) - sum) * inverse_pivot; });
  }
}

void LtlFactorization::throwNotPositiveDefinite(double pivot, int j) const {
  throw ModelError(model_->source_file, "model '" + model_->name + "'",
                   "joint-space inertia matrix is not positive definite (LTDL pivot " + std::to_string(pivot) +
                       " at dof " + std::to_string(j) + " of joint '" + model_->joint_names[model_->dof_joint[j]] +
                       "')");
}

void LtlFactorization::solveLt(Eigen::Ref<VectorX> x) const {
  // Lᵀ = U: back substitution, x_j -= Σ_{k∈desc(j)} U_jk x_k, by columns: once
  // x_k is final (its descendants, the higher dofs, are done), it is taken out
  // of its ancestors. (The row-wise form's dot products each ended in a
  // horizontal sum that the next dof waited on.)
  const Eigen::Index ld = upper_.outerStride();
  const double* const U = upper_.data();
  double* const xd = x.data();
  for (int k = size() - 1; k > 0; --k) {
    const double xk = xd[k];
    for (int p = ancestor_begin_[k]; p < ancestor_begin_[k + 1]; ++p) {
      const int i = ancestors_[p];
      xd[i] -= U[i * ld + k] * xk;
    }
  }
}

void LtlFactorization::solveLt(Eigen::Ref<VectorX> x, std::span<const int> dofs) const {
  // In an increasing, ancestor-closed `dofs`, the descendants of dofs[p] that
  // carry nonzeros are the entries right after p below its subtree end.
  const int count = static_cast<int>(dofs.size());
  for (int p = count - 1; p >= 0; --p) {
    const int j = dofs[p];
    const int end = subtree_end_[j];
    double sum = 0.0;
    for (int r = p + 1; r < count && dofs[r] < end; ++r) sum += upper_(j, dofs[r]) * x[dofs[r]];
    x[j] -= sum;
  }
}

void LtlFactorization::solveL(Eigen::Ref<VectorX> x) const {
  // L = Uᵀ: forward substitution as axpys, x_desc(j) −= U_j,desc(j) x_j.
  const Eigen::Index ld = upper_.outerStride();
  const double* const U = upper_.data();
  double* const xd = x.data();
  for (int j = 0; j < size(); ++j) kernels::subtractMultiple(xd, xd[j], U + j * ld, j + 1, subtree_end_[j]);
}

void LtlFactorization::solve(Eigen::Ref<VectorX> x) const {
  solveLt(x);
  solveD(x);
  solveL(x);
}

MatrixX LtlFactorization::denseL() const {
  MatrixX L = MatrixX::Identity(size(), size());
  for (int i = 0; i < size(); ++i) {
    for (int j = parents_[i]; j >= 0; j = parents_[j]) L(i, j) = upper_(j, i);
  }
  return L;
}

}  // namespace loopsim
