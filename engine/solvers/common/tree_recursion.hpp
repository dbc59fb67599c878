#pragma once
// The two-sweep recursions shared by the recursive solvers on kinematic trees
// with world constraints (paper 000 Alg. 1; paper 001 §IV-A), in body frames.
//
// Pass 1 (paper 000 Alg. 1 lines 1-5): placements, velocities, c_i = v_i × S_i q̇_i,
// rigid-body inertias H_i and bias forces, and the constraint rows.
// Pass 2 (lines 6-12): ABA's articulated inertias (eq. 42a-b); optionally the
// constraint rows carried towards the root (eq. 42c-e): each row r of the
// subtree of i is kept as
//     c_r = K_r a_i + l_r + (L λ)_r = 0,
// K_r a 6-row in body i's frame (a_i includes -gravity, as in ABA), l_r a
// scalar, L the accumulated inverse operational-space inertia.
// Pass 3 (lines 15-17): the roll-out q̈_i = D_i⁻¹ (u_i - U_iᵀ a_pre + (K S_i)ᵀ λ).
//
// Frames: paper 000's boxes are written in the inertial frame; here every
// quantity lives in its body's frame (as the paper's own implementation,
// §IX-A), nothing follows the inertial-frame box as written: H^A and f^A are
// ABA's Ia and -pa; K rows move to the parent's frame like forces
// (X*_{π(i)←i}) after the projection P_iᵀ = I - S_i D_i⁻¹ U_iᵀ; a_b,i = c_i.
//
// λ convention: loopsim's (docs/conventions.md), the force K_rᵀ λ_r acts on the
// constrained body; paper 000's λ is minus this, so its L is ours, its -Kᵀλ in
// f^A is our +Kᵀλ, and its λ = L⁻¹(l + K a) (eq. 43) is our λ = -L⁻¹(l + K a).
//
// Row order: bodies are numbered depth first (model.subtree_end), so sorting
// the rows by their body makes every subtree's rows one contiguous range
// [rows_begin(i), rows_end(i)); the eq. 42c-e "stacking" is then in place and
// L's block for a subtree is a contiguous block. Rows are "internal" in this
// order; toGlobal() maps them back to the constraint set's order.
#include <span>
#include <string_view>
#include <vector>

#include <loopsim/algorithms/articulated_first_pass.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/joint_motion.hpp>
#include <loopsim/linalg/small_cholesky.hpp>
#include <loopsim/model/data.hpp>

namespace loopsim {


class TreeRecursion {
 public:
  /// Throws ModelError with element `owner` (e.g. "solver 'pv'") when the set
  /// has internal loops or couplings (world constraints only). `added_inertia`
  /// (size nv, owned by the caller) enters each D_i like armature.
  TreeRecursion(const ConstraintSet& set, const VectorX& added_inertia, std::string_view owner);

  /// Pass 1. Fills Ia = H_i, pa = v ×* H v - f_ext (ABA's sign), u = τ, the
  /// constraint rows K (body1 frame) and targets t (K a_gf = t), and sets
  /// l = -t. Callers that accumulate L zero it (clearL: O(m²), which the
  /// O(n + m) solvers never pay). No allocation.
  /// With AsBiasForce the targets t are on true accelerations (a_gf[0] = 0).
  void forwardSweep(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                    const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext,
                    FirstPassGravity gravity = FirstPassGravity::InWorldAcceleration);

  /// Pass 1 for the Delassus algorithms: placements, Ia = H_i and the
  /// constraint rows K only (no velocities, forces or targets; L not zeroed). No allocation.
  void forwardSweepPositions(const Eigen::Ref<const VectorX>& q);

  /// L = 0, before a backward sweep that carries rows.
  void clearL() { L.setZero(); }

  /// Pass 2 at joint i: D_i, U_i, u_i, the articulated terms passed to the
  /// parent (not when the parent is the world), and with carry_rows the rows of
  /// i's subtree moved to the parent's frame (paper 000 eq. 42c-e, Alg. 1
  /// lines 7-12). No allocation.
  /// With bias = false only the inertias, K and L are carried (Delassus
  /// algorithms): u, l and the bias forces are left alone. With
  /// accumulate_L = false the rows are carried without L (EFPA's CEMPs).
  void eliminateJoint(int i, bool carry_rows, bool bias = true, bool accumulate_L = true);

  /// Pass 3 from body i on: a_pre = X a_parent + c_i, q̈_i = D_i⁻¹(u_i - U_iᵀ a_pre
  /// + (K S_i)ᵀ λ) (λ internal, only when carry_rows was used), a_i. Skips bodies
  /// whose acceleration is already set (`solved[i]`).
  void rollout(const Eigen::Ref<const VectorX>& lambda_internal, bool with_rows, Eigen::Ref<VectorX> vdot);
  /// Pass 3 without constraint forces on the bodies whose subtree holds rows
  /// (what the rows read), or on the others (once the former are final).
  /// Together they are rollout(l, false, vdot); the split lets iterative
  /// solvers roll the unconstrained branches out once, after their last iteration.
  void rolloutConstrained(Eigen::Ref<VectorX> vdot);
  void rolloutUnconstrained(Eigen::Ref<VectorX> vdot);
  /// Pass 3 for a single joint i (its parent's acceleration must be known).
  void rolloutJoint(int i, const Eigen::Ref<const VectorX>& lambda_internal, bool with_rows,
                    Eigen::Ref<VectorX> vdot);

  /// Penalty form of row r on its body, between pass 1 and pass 2 (paper 000
  /// eq. 52, paper 001 eqs. 25/35): H_B += w k_r k_rᵀ, f_B += k_r g (ABA's
  /// p_B -= k_r g), k_r the row in the body's frame.
  void addRowPenalty(int r, double w, double g);
  /// addRowPenalty(r, w, g_r) for every row (g internal order, size m) with
  /// one weight: per constraint one K¹ᵀK¹ and one K¹ᵀ product instead of a
  /// rank-1 update per row. No allocation.
  void addPenalties(double w, const Eigen::Ref<const VectorX>& g);
  /// k_r · a_gf(body_r) - t_r: the row's constraint error J_r v̇ - k_r after a roll-out.
  double rowError(int r) const;
  /// Every row's error (internal order, size m), one 6 x 6 product per
  /// constraint instead of a strided row read per row. No allocation.
  void rowErrors(Eigen::Ref<VectorX> errors) const;
  /// delta_force[body_r] += g_r k_r for every row (g internal order, size m),
  /// one K¹ᵀ product per constraint. No allocation.
  void addRowForces(const Eigen::Ref<const VectorX>& g);

  /// Paper 001 Alg. 2 (the reduced two-sweep, in body frames): with the
  /// articulated terms of the last pass 2 fixed, the change of v̇ and of the
  /// link accelerations caused by extra body forces `delta_force` (body frames,
  /// on constrained bodies; overwritten). Adds to vdot and data.a_gf on the
  /// bodies whose subtree holds rows only: the others' change follows from
  /// their parents' (rolloutUnconstrained after the last sweep). No allocation.
  void reducedSweeps(std::vector<Force>& delta_force, Eigen::Ref<VectorX> vdot);

  /// ‖J v̇ - k‖∞ evaluated on the link accelerations of the last roll-out:
  /// max_r |K¹_r a_gf(body_r) - t_r|. O(m), no allocation.
  double residual() const;

  // Structure.
  const Model& model() const { return model_; }
  const ConstraintSet& constraints() const { return set_; }
  int dimension() const { return m_; }
  int rowsBegin(int body) const { return rows_begin_[body]; }
  int rowsEnd(int body) const { return rows_end_[body]; }
  /// Rows of constraints on body i itself: [rowsBegin(i), ownRowsEnd(i)).
  int ownRowsEnd(int body) const { return own_rows_end_[body]; }
  int toGlobal(int internal_row) const { return row_global_[internal_row]; }
  int rowBody(int internal_row) const { return row_body_[internal_row]; }
  const std::vector<int>& roots() const { return model_.children[0]; }

  /// Gravity as an acceleration of the world (ABA's a_0 = -g).
  Motion worldAcceleration() const { return Motion(Vector3::Zero(), -model_.gravity); }  // InWorldAcceleration's a_gf[0]

  // Per-solve state, written by the sweeps (public: the solvers are its users).
  Data data;             // kinematics, Ia, pa, U, Dinv, u, a_gf
  ConstraintData cdata;  // K¹ rows and k_link
  // m x 6, row r in the frame of the body being processed. Column-major: a
  // subtree's rows are a contiguous range of each column, so a one-dof
  // joint's pass 2 runs over them as vectors (eliminateJoint).
  Eigen::Matrix<double, Eigen::Dynamic, 6> K;
  VectorX l;             // m
  MatrixX L;             // m x m (symmetric; blocks of rows in different branches stay 0)
  VectorX target;        // m: K a_gf(body) = target at the leaf
  MatrixX KS;            // m x nv: K_r S_i stored at joint i (for the roll-out)
  Eigen::Matrix<double, Eigen::Dynamic, 6> KSDinv;  // m x 6 workspace: (K S) D⁻¹
  std::vector<bool> solved;  // roll-out skips bodies already solved at the root
  std::vector<Force> delta_force;  // reducedSweeps input, kept zero between uses

 private:
  const ConstraintSet& set_;
  const Model& model_;
  const VectorX& added_inertia_;
  int m_ = 0;
  std::vector<int> row_global_, row_body_, row_constraint_, row_local_;
  std::vector<int> constraint_order_, constraint_first_row_;  // constraints in internal order, their first row
  std::vector<int> rows_begin_, rows_end_, own_rows_end_;
  std::vector<int> constrained_bodies_, unconstrained_bodies_;  // rows in the subtree or not, increasing
  std::vector<Motion> delta_a_;  // reducedSweeps
  VectorX delta_u_;
  AlignedVector<Matrix6> rigid_inertias_;  // Inertia::matrix() per body, at bind time
};


// The structured joint products (subspaceMotion, subspaceTransposeTimes,
// factorJoint) live with ABA's in model/joint_motion.hpp.
using detail::factorJoint;
using detail::subspaceTransposeTimes;

}  // namespace loopsim
