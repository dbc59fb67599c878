#pragma once
// The implicit constraint of a planar loop in closed form: paper 004's
// four-bar (§III, Fig. 3b), and any loop of revolute joints about parallel
// axes closed by the in-plane rows {x, y} of a revolute loop constraint.
//
// The loop's rows are written in the axes of its root (the bodies' common
// ancestor, outside the cluster), where they depend on the loop's own joint
// angles only, whatever the root does: with n the axes' common direction,
// (u₁, u₂, n) a right-handed frame fixed on the root, s_j = ±1 joint j's
// axis along n, d_j = p_A − o_j from a point o_j of joint j's axis to the
// closure point,
//     φ   = [u₁ u₂]ᵀ (p_A − p_B)
//     K_j = s_j (−d_j·u₂, d_j·u₁)                     (n × d_j in the plane)
//     K̇q̇ = −Σ_j (Ω_{j−1} + Ω_j) w_j (d_j·u₁, d_j·u₂),  w_j = s_j q̇_j,  Ω_j = Σ_{i≤j} w_i
// over the joints from the root to body1 (n × (n × d) = −d in the plane;
// Ω_j is link j's angular rate relative to the root: Ω_{j−1} w_j d_j is
// joint j's axis carried round by the joints before it, Ω_j w_j d_j the
// point's own turn; for one joint −w² d), and the same with
// the opposite sign over the joints from the root to body2 and p_B. No
// spatial Jacobian, no bias accelerations of the bodies: two dot products
// per joint.
//
// The rows differ from ConstraintSet's (A's x and y axes, which turn with
// body1) by the rotation Q = [x_A y_A]ᵀ [u₁ u₂]: J_A = Q K, so λ_A = Q λ.
// On the constraint manifold (φ = 0, φ̇ = 0) the two give the same v̇;
// off it the Baumgarte target k = −K̇q̇ − k_d φ̇ − k_p φ acts on the root's
// components of φ, with the same gains.
#include <optional>
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/solvers/loops/cluster_structure.hpp>

namespace loopsim {

class PlanarLoop {
 public:
  /// The loop of `cluster` when its only frame constraint is a revolute loop
  /// with row mask {x, y} whose path joints are all revolute about axes
  /// parallel to the loop's (A's z); nullopt otherwise (couplings may share
  /// the cluster: they are linear in q either way).
  static std::optional<PlanarLoop> recognise(const ConstraintSet& set, const BodyCluster& cluster);

  /// K's two rows on the cluster's dofs (the path joints' columns written,
  /// the others left as they are), the target k = −K̇q̇ − k_d φ̇ − k_p φ with
  /// the set's current gains (the time constant may change between steps),
  /// and Q (λ_A = Q λ). Needs data's placements (oMi) at the state.
  void evaluate(const Data& data, const Eigen::Ref<const VectorX>& v, const BaumgarteGains& gains,
                Eigen::Ref<MatrixX> K, double* k, Eigen::Matrix2d& Q) const;

  int constraint() const { return constraint_; }
  /// Positions in the cluster's rows of the loop's x and y rows.
  int rowPosition(int r) const { return row_position_[r]; }

 private:
  struct PathJoint {
    int body;
    int v_index;  // model dof
    int column;   // position in the cluster's dofs
    double sign;  // ±1: the axis along n or against it
  };
  int constraint_ = -1;
  int body1_ = 0, body2_ = 0, root_ = 0;
  SE3 placement1_, placement2_;
  Vector3 u1_, u2_;                    // the plane's axes, in the root's frame
  std::vector<PathJoint> path1_, path2_;  // from the root out to body1, body2
  int row_position_[2] = {0, 0};
};

}  // namespace loopsim
