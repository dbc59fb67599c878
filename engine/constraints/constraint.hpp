#pragma once
// Equality constraints. A constraint joins frame A on body1 and frame B on
// body2 (body 0 = the world), or couples one-dof joints.
//
// Rows, in frame A's axes (docs/conventions.md): λ is the force/wrench the constraint
// applies to body1, expressed in frame A about A's origin; body2 receives the
// opposite. The equations of motion read M v̇ + h = τ + Jᵀλ.
//   weld     6 rows [ωx ωy ωz vx vy vz]: relative twist of body1 w.r.t. body2 at A
//   connect  3 rows [x y z]: velocity of point A minus velocity of point B
//   revolute 5 rows [x y z rx ry]: point coincidence plus the two relative
//            rotations normal to the shared axis (A's z axis)
//   coupling 1 row: Σ_j c_j q_j = c_0 over one-dof joints (gears, belts)
// A row mask keeps a subset (e.g. the in-plane rows {x, y} of a planar loop).
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <loopsim/spatial/se3.hpp>

namespace loopsim {

enum class ConstraintKind { Weld, Connect, RevoluteLoop, Coupling };

constexpr int fullRowCount(ConstraintKind kind) {
  switch (kind) {
    case ConstraintKind::Weld: return 6;
    case ConstraintKind::Connect: return 3;
    case ConstraintKind::RevoluteLoop: return 5;
    case ConstraintKind::Coupling: return 1;
  }
  return 0;
}

constexpr std::string_view constraintKindName(ConstraintKind kind) {
  switch (kind) {
    case ConstraintKind::Weld: return "weld";
    case ConstraintKind::Connect: return "connect";
    case ConstraintKind::RevoluteLoop: return "revolute";
    case ConstraintKind::Coupling: return "coupling";
  }
  return "?";
}

/// Names of the kind's full rows, in order ("wx", "vx", "x", "rx", "c").
std::string_view constraintRowName(ConstraintKind kind, int full_row);

struct Constraint {
  std::string name;
  ConstraintKind kind = ConstraintKind::Weld;
  int body1 = 0;
  SE3 placement1;  // frame A in body1's frame
  int body2 = 0;   // 0 = world
  SE3 placement2;  // frame B in body2's frame (world frame when body2 == 0)

  /// Selected full-row indices, increasing; empty = all rows of the kind.
  std::vector<int> row_mask;

  // Coupling only: Σ coefficient_k q[joint_k] = offset (one-dof joints).
  std::vector<int> coupling_joints;
  std::vector<double> coupling_coefficients;
  double coupling_offset = 0.0;

  /// Explicit Baumgarte gains; when absent they follow the set's time constant.
  std::optional<double> kp, kd;

  int dimension() const { return row_mask.empty() ? fullRowCount(kind) : static_cast<int>(row_mask.size()); }
  int fullRow(int row) const { return row_mask.empty() ? row : row_mask[row]; }
};

}  // namespace loopsim
