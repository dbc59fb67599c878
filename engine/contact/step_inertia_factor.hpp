#pragma once
// The factor F of the step's inertia M̃ = F Fᵀ (M̃ = M + dt·D) that the contact
// step whitens its rows with: X = J F⁻ᵀ, the Delassus matrix J M̃⁻¹ Jᵀ = X Xᵀ,
// and the velocity change M̃⁻¹ Jᵀ λ = F⁻ᵀ (Xᵀ λ). Two factorisations:
//   dense  Cholesky M̃ = L Lᵀ, F = L: O(n³) to factor, O(n²) per row.
//   ltl    Featherstone's LTDL M̃ = Lᵀ D L, F = Lᵀ D^½: O(n d²) to factor and
//          O(d²) per row (d the tree's depth in dofs): a row is nonzero only on
//          its bodies' ancestor dofs and stays so through L⁻ᵀ, the branch-induced
//          sparsity of M and J that LTL-OSIM exploits (paper 002 §II-A, Table I:
//          O(n d² + m² d + m d²) against the dense O(n³ + m² n)).
// chooseFactorization picks by the tree: ltl on a branched robot of at least
// kLtlFromDofs dofs whose L pattern holds at most three quarters of a dense
// triangle's entries, dense otherwise: on a chain or a free body LTDL has the
// dense pattern and only its overhead, and below a few tens of dofs the dense
// kernels are faster anyway.
// The recursive Delassus algorithms (PV-OSIMr O(n + m²), EFPA) would win only for
// many more contact rows than the scenes have and take world constraints on
// trees only; the step also needs M̃⁻¹ Jᵀ λ and the equality rows eliminated,
// which a factor of M̃ gives and they do not (docs/contact.md).
#include <string_view>
#include <vector>

#include <loopsim/linalg/dense_cholesky.hpp>
#include <loopsim/solvers/joint_space/ltl_factorization.hpp>

namespace loopsim {

enum class StepFactorization { dense, ltl };

/// "dense", "ltl".
std::string_view stepFactorizationName(StepFactorization kind);
/// From this many dofs on a branched tree is factored by LTDL.
inline constexpr int kLtlFromDofs = 30;
/// ltl on a branched tree of kLtlFromDofs dofs or more (L's pattern at most three quarters
/// of the lower triangle), dense otherwise.
StepFactorization chooseFactorization(const Model& model);

class StepInertiaFactor {
 public:
  StepInertiaFactor(const Model& model, StepFactorization kind);

  StepFactorization kind() const { return kind_; }
  /// Factors M̃ (symmetric, both triangles stored). Throws ModelError when it is
  /// not positive definite. No allocation.
  void factorize(const Eigen::Ref<const MatrixX>& M);
  /// rows ← rows F⁻ᵀ (each row a constraint row J_i). No allocation.
  void whitenRows(Eigen::Ref<MatrixX> rows);
  /// x ← F⁻ᵀ x. No allocation.
  void unwhiten(Eigen::Ref<VectorX> x) const;

 private:
  StepFactorization kind_;
  const Model* model_;
  DenseCholesky cholesky_;   // dense
  LtlFactorization ltl_;     // ltl
  VectorX inverse_sqrt_d_;   // ltl: D^-½
  VectorX row_;              // ltl: one row, contiguous
  std::vector<int> support_;  // ltl: the row's nonzero dofs and their ancestors, increasing
  std::vector<char> marked_;  // ltl: per dof, in support_ (all 0 between rows)
};

}  // namespace loopsim
