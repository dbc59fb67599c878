#pragma once
// Joint position limits as unilateral rows of the velocity-level contact
// problem (contact_problem.hpp). A limited dof i with bound b and side
// s (+1 at the lower bound, −1 at the upper) has the row
//     w = s v⁺_i + β ≥ 0,  λ ≥ 0,  λ w = 0,
// with the distance to the bound d = s (q_i − b) and the bias
//     β = d / dt                         when d ≥ 0: the step may close the gap, never cross it;
//     β = min(0, d + slop) / T           when d < 0: past the bound, pushed back at the
//                                        Baumgarte rate 1/T once beyond the slop.
// λ is the impulse of the limit over the step (N·s or N·m·s), along s.
#include <vector>

#include <loopsim/model/model.hpp>

namespace loopsim {

/// One dof of a one-dof joint (revolute or prismatic) with at least one finite position bound.
struct LimitedDof {
  int joint = 0;
  int iq = 0, iv = 0;  // its q and v index
  double lower = 0.0, upper = 0.0;  // -inf / +inf where that side is unbounded
};

/// The limited dofs of a model, in joint order. Throws ModelError naming the
/// joint and the values when a joint's lower bound exceeds its upper bound or
/// a bound is NaN.
std::vector<LimitedDof> limitedDofs(const Model& model);

/// Scene key `joint_limits` (scene_loader.hpp): on by default where the model
/// gives bounds.
struct JointLimitSettings {
  bool enabled = true;
  double slop = 1e-3;  // m or rad a coordinate may sit past its bound before it is pushed back
};

/// The bias β of a limit row at distance d (positive inside the range) for a step dt, slop and
/// Baumgarte time constant T (T <= 0: no push-back, β = 0 past the bound).
inline double limitRowBias(double d, double dt, double slop, double time_constant) {
  if (d >= 0.0) return d / dt;
  if (time_constant <= 0.0) return 0.0;
  return (d + slop < 0.0 ? d + slop : 0.0) / time_constant;
}

}  // namespace loopsim
