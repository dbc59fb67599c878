#pragma once
// Implicit joint damping (docs/conventions.md, "Equations of motion"), as MuJoCo's Euler integrator treats it.
// With D = diag(joint damping + the controller's derivative gains on the dofs
// it drives), the damping forces −D v are evaluated at the end-of-step velocity
// v + dt·v̇ instead of v:
//     M v̇ + h = τ − D (v + dt v̇) + Jᵀλ   ⇔   (M + dt·D) v̇ + h = τ − D v + Jᵀλ,
// so the step (and `eval`, which must reproduce it) hands every solver the
// per-step diagonal dt·D (ConstrainedSolver::setAddedInertia) and the usual τ
// with −D v evaluated at the start-of-step velocity.
#include <loopsim/scene/scene.hpp>
#include <loopsim/sim/controller.hpp>

namespace loopsim {

/// D (size nv) for the scene's integrator: joint damping + the controller's
/// derivative gains; zero when the scene integrates damping explicitly.
VectorX implicitDampingDiagonal(const Scene& scene, const Controller& controller);

}  // namespace loopsim
