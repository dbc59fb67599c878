#pragma once
// The joint-space quantities shared by the LTL family (ltl, prox-ltl, soft-ltl):
// the LTDL factors of M, the free acceleration, and the Delassus matrix
// assembled through the factors (LTL-OSIM, Featherstone, "Exploiting sparsity
// in operational-space dynamics", IJRR 2010):
//   M = Lᵀ D L,   Y = L⁻ᵀ Jᵀ,   Λ = J M⁻¹ Jᵀ = Yᵀ D⁻¹ Y.
// Sparsity: the rows of constraint c can only be nonzero on its support S_c,
// the dofs on the paths from its bodies (or coupled joints) to the root. S_c
// is closed under the expanded parent array, so Y's columns for c vanish
// outside S_c too, and Λ's block (c, d) sums over S_c ∩ S_d only. Y is kept
// as one compact |S_c| x m_c row-major block per constraint: a dof's m_c
// entries are contiguous, so L⁻ᵀ and the Λ products are short fixed-width
// row operations, one factor entry read per pair of dofs instead of one per
// row of J. Supports, their descendant runs and the pairwise intersections
// (as positions in both blocks) are computed once, at bind time.
//
// λ convention (docs/conventions.md): M v̇ + h = τ + Jᵀλ with λ acting on each
// constraint's first body; the papers' λ is minus this. With it,
//   v̇ = v̇_free + M⁻¹ Jᵀ λ,   J v̇ - k = Λ λ - b,   b := k - J v̇_free.
#include <span>
#include <string_view>
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/constraints/constraint_rank.hpp>
#include <loopsim/solvers/joint_space/held_position_terms.hpp>
#include <loopsim/solvers/joint_space/ltl_factorization.hpp>
#include <loopsim/solvers/joint_space/projection_terms.hpp>

namespace loopsim {

class JointSpaceTerms final : public ProjectionTerms {
 public:
  /// `added_inertia` (size nv, owned by the solver and read at every evaluate)
  /// is added to M's diagonal: see ConstrainedSolver::setAddedInertia.
  JointSpaceTerms(const ConstraintSet& set, const VectorX& added_inertia);

  /// RNEA (h and the external forces), CRBA, constraint terms (k, J), the
  /// LTDL of M, v̇_free = M⁻¹(τ - h + Σ Jᵀ f_ext), then, when the set is not
  /// empty, Y, Λ and b. No allocation. When q is bit for bit that of the
  /// previous evaluate / evaluateDelassus, its placements, M and J are kept
  /// (and M's factors, Y and Λ too when the added diagonal is also the same):
  /// the same bits as a full pass.
  void evaluate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext);

  /// The half of evaluate a velocity projection needs: placements at q, the
  /// LTDL of M + diag(added) (the projection's metric, not necessarily the
  /// solver's added diagonal), φ, J, φ̇ = J v (from J), Y and Λ; not the
  /// velocity products, h, k, v̇_free or b.
  /// No allocation.
  void evaluateDelassus(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                        const VectorX& added) override;

  /// v̇ = v̇_free + M⁻¹ Jᵀ λ = L⁻¹ (D⁻¹ L⁻ᵀ (τ - h) + D⁻¹ Y λ); with an empty
  /// set (λ empty) the free acceleration. No allocation.
  void acceleration(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> vdot);
  /// out = M⁻¹ Jᵀ λ through the factors and Y's supports. No allocation.
  void inverseMassTimesJt(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> out) const override;
  /// ‖J v̇ - k‖∞ over the supports. No allocation.
  double residual(const Eigen::Ref<const VectorX>& vdot) const;

  int dimension() const { return set_.dimension(); }
  const MatrixX& delassus() const override { return delassus_; }  // Λ, full symmetric
  const VectorX& rhs() const { return rhs_; }                  // b = k - J v̇_free
  const ConstraintData& constraintData() const override { return cdata_; }
  const LtlFactorization& factorization() const { return ltl_; }
  /// Increasing, ancestor-closed dofs on which constraint c's rows may be nonzero.
  std::span<const int> support(int c) const;

  /// Error path (allocates): ranks the rows of J by a column-pivoting QR of Jᵀ
  /// and throws ModelError naming the dependent rows.
  [[noreturn]] void throwRankDeficient(std::string_view solver) const;

 private:
  void updateRhs();                           // b = k - J v̇_free = k - Yᵀ z over the supports
  void factorizeMass(const VectorX& added);   // CRBA on placeBodiesInWorld's inertias, + diag(added), LTDL
  void refactorMass(const VectorX& added);    // the same M with another added diagonal, LTDL
  void reduceJacobian();               // Y = L⁻ᵀ Jᵀ over the supports
  void addYTimes(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> out) const;  // out += Y λ
  // f(offset, w, count, y, dofs) for each constraint's block of Y: its first
  // row in the set, its width (a compile-time constant for 1, 3 and 6 rows),
  // |S_c|, the block and S_c.
  template <class F>
  void forEachYBlock(F&& f) const;
  void assembleDelassus();

  const ConstraintSet& set_;
  const VectorX& added_inertia_;
  Data data_;
  ConstraintData cdata_;
  std::vector<int> end_bodies_;  // bodies a constraint attaches to (not the world)
  LtlFactorization ltl_;

  // Supports S_c, flattened; support_begin_ has one extra end entry.
  std::vector<int> support_dofs_, support_begin_;
  // Parallel to support_dofs_: how many of the following entries of S_c are
  // descendants of this dof (they are the next ones: S_c is increasing and
  // ancestor-closed, subtrees are contiguous).
  std::vector<int> descendant_run_;
  // S_c ∩ S_d for c < d as (position in S_c, position in S_d, dof), flattened
  // per pair; pair_begin_ has one extra end entry.
  struct SharedDof {
    int position_c, position_d, dof;
  };
  std::vector<SharedDof> pair_dofs_;
  std::vector<int> pair_begin_;

  // Y = L⁻ᵀ Jᵀ restricted to the supports: constraint c's block starts at
  // y_begin_[c] and is |S_c| x m_c, row-major (row p is dof S_c[p]).
  std::vector<double> y_values_;
  std::vector<int> y_begin_;
  MatrixX delassus_;  // Λ = Yᵀ D⁻¹ Y
  VectorX free_scaled_;  // z = D⁻¹ L⁻ᵀ (τ - h + Σ Jᵀ f_ext): v̇_free = L⁻¹ z
  VectorX rhs_;       // b
  VectorX force_;     // joint-space workspace (nv)

  HeldPositionTerms held_;  // the q and added diagonal of the position terms
};

}  // namespace loopsim
