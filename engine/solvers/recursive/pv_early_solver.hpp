#pragma once
// `pv-early`: PV with early elimination of the multipliers (paper 000 §VIII,
// eqs. 56-68 with the eq. 63 erratum). At each joint, right after its L_i^A
// update (eq. 57), the multiplier directions the joint can move are
// eliminated (eqs. 60-63): an orthonormal basis of the range of K_i^A S_i
// (Householder reflections: eq. 65's rank-1 reflection for one-dof joints, a
// column-pivoted Householder QR for multi-dof joints), Σ = R D⁻¹ Rᵀ, and the
// eliminated rows fold into the parent's articulated inertia and bias force
// (eq. 63); the others travel on (eq. 61b). L^A is never formed: O(n + m)
// while at most 6 rows travel (Remark 9). Remark 8 (K S = 0: nothing
// eliminated) is the rank-0 case of the QR. Rows still travelling at the
// world are dependent: the set is rank deficient (an error naming the rows).
// The roll-out rebuilds λ with eq. 64.
#include <vector>

#include <loopsim/solvers/recursive/tree_recursion.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class PvEarlySolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError when the set has internal loops or couplings.
  PvEarlySolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "pv-early"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() { return {true, false, false, false, false, false, false}; }

  /// Throws ModelError naming the dependent rows when the set is rank deficient.
  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

 private:
  void eliminateRows(int i);          // backward: eqs. 57-63 at joint i
  void rolloutJoint(int i, Eigen::Ref<VectorX> vdot);  // forward: eqs. 62, 64 and 41
  [[noreturn]] void throwRankDeficient(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v) const;

  TreeRecursion tree_;
  // Per joint i: its active rows ("slots", internal row indices whose K and l
  // hold the current basis) at act_[act_begin_[i] ..], their count, the rank
  // eliminated there, and the storage of its eliminated part.
  std::vector<int> act_, act_begin_, act_count_, rank_;
  Eigen::Matrix<double, Eigen::Dynamic, 6> ks_;          // K S before the reflections (roll-out), per slot position
  Eigen::Matrix<double, Eigen::Dynamic, 6> reflectors_;  // Householder vectors, column k below row k
  std::vector<Vector6> betas_;
  std::vector<Matrix6> K_tilde_;  // eliminated rows (parent frame), r x 6
  std::vector<Vector6> l_tilde_;
  std::vector<Matrix6> sigma_;    // Cholesky factor of Σ = R D⁻¹ Rᵀ, r x r
  VectorX lambda_;                // per slot
  // Workspace of one joint.
  Eigen::Matrix<double, Eigen::Dynamic, 6> Kw_, ksw_;
  VectorX lw_, lambda_w_;
  bool dependent_rows_ = false;
  double row_scale_ = 0.0;  // largest constraint row (body frames): the rank test's scale
};

}  // namespace loopsim
