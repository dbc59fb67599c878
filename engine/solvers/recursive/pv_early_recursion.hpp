#pragma once
// PV with early elimination of the multipliers (paper 000 §VIII, eqs. 56-68
// with the eq. 63 erratum), with an optional compliance per row: the sweeps
// shared by `pv-early` (hard) and `pv-soft`'s compliance form.
//
// At each joint, right after its L_i^A update (eq. 57), the multiplier
// directions the joint can move are eliminated (eqs. 60-63): an orthonormal
// basis of the range of K_i^A S_i (Householder reflections: eq. 65's rank-1
// reflection for one-dof joints, a column-pivoted Householder QR for
// multi-dof joints), Σ = R D⁻¹ Rᵀ, and the eliminated rows fold into the
// parent's articulated inertia and bias force (eq. 63); the others travel on
// (eq. 61b). Remark 8 (K S = 0: nothing eliminated) is the rank-0 case of the
// QR. The roll-out rebuilds λ with eq. 64.
//
// Hard rows: a travelling row's K S was zero at every joint it passed, so its
// L^A is zero and L^A is never formed: O(n + m) while at most 6 rows travel
// (Remark 9). A row whose K S is small against the rows reaching the joint
// (below kDeferRatio of them: a limb near a singular pose) is not eliminated
// there either: the tiny pivot would cost digits that eq. 62 amplifies. It
// travels on carrying its share of eq. 57's L^A as the block C below (Remark 8
// generalised, exact) and is eliminated further up, or at the world by PV's
// eq. 43 root solve. Rows that reach the world dependent make solve() return
// false.
//
// Compliance C = W⁻¹ per row (the soft Gauss principle, eq. 50, with the
// multipliers kept: K a + l + (L^A + C) λ = 0, λ = W (k - K a)). The rows
// now carry C, reflected with them, so at a joint (reflected basis, r rows
// eliminated, t the travelling ones) the system is
//     [K̃; K_t] a_π + [l̃; l_t] + [Σ + C₁₁, C₁₂; C₂₁, C₂₂] [λ̃; λ_t] = 0,
// and with G = Σ + C₁₁ (positive definite for any C ≥ 0 once Σ is):
//     λ̃ = -G⁻¹(K̃ a_π + l̃ + C₁₂ λ_t)                       (eq. 62 + C)
//     parent: H^A += K̃ᵀG⁻¹K̃, bias += K̃ᵀG⁻¹l̃                (eq. 63 + C)
//     travelling: K_t -= C₂₁G⁻¹K̃, l_t -= C₂₁G⁻¹l̃, C₂₂ -= C₂₁G⁻¹C₁₂.
// Rows left at the world solve C₂₂ λ_t = -(K_t a_0 + l_t) (C₂₂ is positive
// definite: a Schur complement of a positive definite C). Only the
// travelling rows' C is kept (a block per branch), so this stays
// O(n + m) like the hard form, and W enters only as 1/W: nothing of size W
// is ever subtracted, which is what costs eq. 52 its digits at stiff weights.
#include <vector>

#include <loopsim/solvers/common/tree_recursion.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class PvEarlyRecursion {
 public:
  /// Throws ModelError (element `owner`) on internal loops or couplings.
  PvEarlyRecursion(const ConstraintSet& set, const VectorX& added_inertia, std::string_view owner);

  /// C per row in the set's row order (size m; zero = hard, the default).
  /// Must be positive everywhere when it is not zero everywhere.
  void setCompliance(const VectorX& compliance);

  /// One solve. Returns false, with vdot and lambda unset, when hard rows
  /// are dependent (rows left at the world). lambda in the set's row order.
  /// stats.residual is left to the caller. No allocation.
  bool solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
             const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
             Eigen::Ref<VectorX> lambda, SolveStats& stats);

  /// The recursion's workspace, for solvers that also run other passes on it.
  TreeRecursion& tree() { return tree_; }

 private:
  bool hasCompliance() const { return compliance_.size() > 0; }
  void gatherRows(int i);                               // the active rows at joint i (and their C)
  // Called only when joint i has active rows.
  void eliminateRows(int i);                            // backward: eqs. 57-63 at joint i
  void eliminateRowsOneDof(int i);                      // the same for a one-dof joint (eqs. 65-67)
  void passOn(int i, int r);                            // after eq. 61b: C kept, the world's rows
  void solveWorldRows(int i, int r);                    // C₂₂ λ_t = -(K_t a_0 + l_t)
  void rolloutJoint(int i, Eigen::Ref<VectorX> vdot);  // forward: eqs. 62, 64 and 41
  void rolloutJointOneDof(int i, Eigen::Ref<VectorX> vdot);

  TreeRecursion tree_;
  // Per joint i: its active rows ("slots", internal row indices whose K and l
  // hold the current basis) at act_[act_begin_[i] ..], their count, the rank
  // eliminated there, and the storage of its eliminated part.
  std::vector<int> act_, act_begin_, act_count_, rank_;
  Eigen::Matrix<double, Eigen::Dynamic, 6> ks_;          // K S before the reflections (roll-out), per slot position
  Eigen::Matrix<double, Eigen::Dynamic, 6> reflectors_;  // Householder vectors, column k below row k
  AlignedVector<Vector6> betas_;
  AlignedVector<Matrix6> K_tilde_;  // eliminated rows (parent frame), r x 6
  AlignedVector<Vector6> l_tilde_;
  AlignedVector<Matrix6> sigma_;    // Cholesky factor of G = Σ + C₁₁ = R D⁻¹ Rᵀ + C₁₁, r x r
  VectorX lambda_;                // per slot
  // Per slot: the row's K (6, the frame of the joint it last passed) and l;
  // one joint's rows in the same layout (one row is one cache line).
  Eigen::Matrix<double, Eigen::Dynamic, 8, Eigen::RowMajor> slot_rows_, rows_w_;
  // Workspace of one joint.
  Eigen::Matrix<double, Eigen::Dynamic, 6> Kw_, ksw_;
  VectorX lw_, lambda_w_;
  bool dependent_rows_ = false;
  double row_scale_ = 0.0;  // largest constraint row (body frames): the rank test's scale
  // Compliance (empty without): per internal row; the travelling rows' C
  // between slots (only blocks of rows that travel together are read);
  // C₂₁ per slot position (roll-out); one joint's C.
  VectorX compliance_;
  MatrixX slot_compliance_, joint_compliance_;
  Eigen::Matrix<double, Eigen::Dynamic, 6> c21_;
};

}  // namespace loopsim
