#include <loopsim/contact/step_inertia_factor.hpp>

#include <string>

#include <loopsim/model/errors.hpp>

namespace loopsim {

std::string_view stepFactorizationName(StepFactorization kind) {
  return kind == StepFactorization::ltl ? "ltl" : "dense";
}

StepFactorization chooseFactorization(const Model& model) {
  const LtlFactorization pattern(model);
  const long n = pattern.size();
  long entries = 0;  // L's pattern: each dof and its ancestors
  for (int i = 0; i < n; ++i) {
    for (int j = i; j >= 0; j = pattern.expandedParents()[static_cast<std::size_t>(j)]) ++entries;
  }
  // Measured (docs/performance.md, "Contact step"): the dense path's vectorised
  // triangular kernels win up to a few tens of dofs even on a branched tree
  // (Go1, nv 18, 45 % off the pattern); LTDL's sparse rows win from Atlas (nv 36) on.
  const bool sparse = 4 * entries <= 3 * (n * (n + 1) / 2);
  return sparse && n >= kLtlFromDofs ? StepFactorization::ltl : StepFactorization::dense;
}

StepInertiaFactor::StepInertiaFactor(const Model& model, StepFactorization kind)
    : kind_(kind),
      model_(&model),
      cholesky_(kind == StepFactorization::dense ? model.nv : 0),
      ltl_(model),
      inverse_sqrt_d_(VectorX::Zero(model.nv)),
      row_(VectorX::Zero(model.nv)),
      marked_(static_cast<std::size_t>(model.nv), 0) {
  support_.reserve(static_cast<std::size_t>(model.nv));
}

void StepInertiaFactor::factorize(const Eigen::Ref<const MatrixX>& M) {
  if (kind_ == StepFactorization::ltl) {
    ltl_.factorize(M);  // throws on a pivot that is not positive
    inverse_sqrt_d_ = ltl_.inverseD().cwiseSqrt();
    return;
  }
  if (!(cholesky_.factorize(M) > 0.0)) {
    throw ModelError(model_->source_file, "model '" + model_->name + "'",
                     "the step's inertia matrix M + dt·D is not positive definite");
  }
}

void StepInertiaFactor::whitenRows(Eigen::Ref<MatrixX> rows) {
  if (kind_ == StepFactorization::dense) {
    cholesky_.solveLowerTransposedRows(rows);
    return;
  }
  // x_iᵀ = D^-½ L⁻ᵀ J_iᵀ, row by row through a contiguous copy, on the row's
  // support: its nonzero dofs closed under ancestors (L⁻ᵀ keeps it).
  const std::vector<int>& parents = ltl_.expandedParents();
  const int n = ltl_.size();
  for (Eigen::Index r = 0; r < rows.rows(); ++r) {
    row_ = rows.row(r).transpose();
    support_.clear();
    for (int j = n - 1; j >= 0; --j) {
      if (row_[j] == 0.0) continue;
      for (int k = j; k >= 0 && !marked_[static_cast<std::size_t>(k)]; k = parents[static_cast<std::size_t>(k)]) {
        marked_[static_cast<std::size_t>(k)] = 1;
      }
    }
    for (int j = 0; j < n; ++j) {
      if (!marked_[static_cast<std::size_t>(j)]) continue;
      support_.push_back(j);
      marked_[static_cast<std::size_t>(j)] = 0;
    }
    ltl_.solveLt(row_, support_);
    rows.row(r) = row_.cwiseProduct(inverse_sqrt_d_).transpose();
  }
}

void StepInertiaFactor::unwhiten(Eigen::Ref<VectorX> x) const {
  if (kind_ == StepFactorization::dense) {
    cholesky_.solveUpper(x);
    return;
  }
  x.array() *= inverse_sqrt_d_.array();  // F⁻ᵀ = L⁻¹ D^-½
  ltl_.solveL(x);
}

}  // namespace loopsim
