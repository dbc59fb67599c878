#pragma once
// Constrained inverse dynamics at rest: the actuator torques and constraint
// forces that hold a pose q0 still (v = 0, v̇ = 0). The equations of motion
// M v̇ + h = Sᵀτ + τ_passive + Jᵀλ then read
//
//   Sᵀτ + Jᵀλ = g(q0) − τ_passive(q0)     (= the load b)
//
// with g the gravity torque (RNEA at rest), τ_passive the springs at rest and
// S the selection of the actuated dofs: τ is exactly zero on every other dof
// (floating bases, passive rods and springs). Many (τ, λ) solve it when the
// robot stands on several feet; we choose
//   1. the least actuator effort: minimum Σ w_i τ_i² (w = 1 by default, i.e.
//      minimum ‖τ‖₂ in N·m and N), then
//   2. the minimum-norm λ among the forces that balance b − Sᵀτ (redundant
//      constraint rows share their load evenly in the 2-norm sense).
// Both are least-squares / minimum-norm problems, solved with orthogonal
// factorisations (no normal equations):
//   - N, an orthonormal basis of null(J) = range(Jᵀ)^⊥ (pivoted QR of Jᵀ);
//     λ can balance a generalised force exactly when its projection on N is
//     zero, so τ must satisfy Nᵀ Sᵀ τ = Nᵀ b (no λ in it any more);
//   - the minimum-weighted-norm τ of that system (complete orthogonal
//     decomposition: least squares when it has no exact solution);
//   - λ = the minimum-norm solution of Jᵀλ = b − Sᵀτ (complete orthogonal
//     decomposition of Jᵀ).
// What remains, N Nᵀ (b − Sᵀτ), is the load that neither the actuators nor the
// constraints can carry: when it exceeds the tolerance the pose cannot be held
// and holdingForces throws, naming the dofs that carry it.
// Allocates (one-off: at start and when a held pose changes; never per step).
#include <string>
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>

namespace loopsim {

struct HoldingForces {
  VectorX tau;        // actuator torques, size nv; exactly zero on unactuated dofs
  VectorX lambda;     // constraint forces, size dimension(), docs/conventions.md's sign and frame
  VectorX load;       // b = g(q0) − τ_passive(q0), size nv
  VectorX unbalanced; // the part of b nothing carries, size nv (≈ 0 when the pose can be held)
  int constraint_rank = 0;  // rank of J at q0
};

struct HoldingSettings {
  /// Per-dof effort weights w (size nv, > 0 on actuated dofs); empty = all 1.
  VectorX effort_weights;
  /// The pose counts as held when ‖unbalanced‖ <= relative_tolerance · max(‖b‖, 1).
  double relative_tolerance = 1e-9;
};

/// Computes the holding forces at q (which should satisfy the constraints) for
/// the given actuated joints. Throws ModelError (file: the model's, element:
/// "hold") when the pose cannot be held, with the unbalanced load and the dofs
/// that carry most of it, or when the settings are invalid.
HoldingForces holdingForces(const ConstraintSet& constraints, const Eigen::Ref<const VectorX>& q,
                            const std::vector<int>& actuated_joints, const HoldingSettings& settings = {});

/// Same computation without the feasibility check (unbalanced is filled in):
/// for reports that want to show how far a pose is from being holdable.
HoldingForces leastEffortHoldingForces(const ConstraintSet& constraints, const Eigen::Ref<const VectorX>& q,
                                       const std::vector<int>& actuated_joints,
                                       const HoldingSettings& settings = {});

/// "l_leg_kny", or "root_joint:vz" for a dof of a multi-dof joint.
std::string dofName(const Model& model, int dof);

}  // namespace loopsim
