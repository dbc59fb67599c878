#include <loopsim/solvers/joint_space/ltl_factorization.hpp>

#include <cmath>
#include <utility>
#include <string>

#include <loopsim/model/errors.hpp>

namespace loopsim {

LtlFactorization::LtlFactorization(const Model& model)
    : parents_(model.nv, -1),
      factor_(RowMajorMatrix::Zero(model.nv, model.nv)),
      diagonal_(VectorX::Ones(model.nv)),
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
}

bool LtlFactorization::inPattern(int i, int j) const {
  if (j > i) std::swap(i, j);
  for (int a = i; a >= 0; a = parents_[a]) {
    if (a == j) return true;
  }
  return false;
}

void LtlFactorization::factorize(const Eigen::Ref<const MatrixX>& M) {
  const int n = size();
  for (int k = 0; k < n; ++k) {
    factor_(k, k) = M(k, k);
    for (int j = parents_[k]; j >= 0; j = parents_[j]) factor_(k, j) = M(k, j);
  }
  // RBDA Table 6.3 (LTDL), from the tips to the roots; H is factor_.
  for (int k = n - 1; k >= 0; --k) {
    const double pivot = factor_(k, k);
    if (!(pivot > 0.0)) {
      throw ModelError(model_->source_file, "model '" + model_->name + "'",
                       "joint-space inertia matrix is not positive definite (LTDL pivot " + std::to_string(pivot) +
                           " at dof " + std::to_string(k) + " of joint '" +
                           model_->joint_names[model_->dof_joint[k]] + "')");
    }
    for (int i = parents_[k]; i >= 0; i = parents_[i]) {
      const double a = factor_(k, i) / pivot;  // a = H_ki / H_kk
      for (int j = i; j >= 0; j = parents_[j]) factor_(i, j) -= a * factor_(k, j);  // H_ij -= H_kj a
      factor_(k, i) = a;
    }
  }
  for (int k = 0; k < n; ++k) {
    diagonal_[k] = factor_(k, k);
    factor_(k, k) = 1.0;
  }
}

void LtlFactorization::solveLt(Eigen::Ref<VectorX> x) const {
  // Lᵀ is upper triangular with L(i, j) at (j, i): x_j -= L(i, j) x_i for j ∈ ancestors(i).
  for (int i = size() - 1; i >= 0; --i) {
    const double xi = x[i];
    for (int j = parents_[i]; j >= 0; j = parents_[j]) x[j] -= factor_(i, j) * xi;
  }
}

void LtlFactorization::solveLt(Eigen::Ref<VectorX> x, std::span<const int> dofs) const {
  for (auto it = dofs.rbegin(); it != dofs.rend(); ++it) {
    const int i = *it;
    const double xi = x[i];
    for (int j = parents_[i]; j >= 0; j = parents_[j]) x[j] -= factor_(i, j) * xi;
  }
}

void LtlFactorization::solveL(Eigen::Ref<VectorX> x) const {
  for (int i = 0; i < size(); ++i) {
    double xi = x[i];
    for (int j = parents_[i]; j >= 0; j = parents_[j]) xi -= factor_(i, j) * x[j];
    x[i] = xi;
  }
}

void LtlFactorization::solve(Eigen::Ref<VectorX> x) const {
  solveLt(x);
  solveD(x);
  solveL(x);
}

MatrixX LtlFactorization::denseL() const {
  MatrixX L = MatrixX::Identity(size(), size());
  for (int i = 0; i < size(); ++i) {
    for (int j = parents_[i]; j >= 0; j = parents_[j]) L(i, j) = factor_(i, j);
  }
  return L;
}

}  // namespace loopsim
