#pragma once
// Constraint-consistent states of a scene for `loopsim bench`: random ones
// near its start (the solver table and the μ sweep), or consecutive steps of
// its own simulation (the solver table's --trajectory).
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/scene/scene.hpp>

namespace loopsim {

struct SampledState {
  VectorX q, v, tau;
};

/// `samples` states: q = q0 ⊕ 0.1·N(0, 1), v and τ ~ N(0, 1), projected onto
/// the constraint manifold (positions by Gauss-Newton, velocities in the
/// M-norm). Deterministic for a seed. Throws ModelError when too few project.
std::vector<SampledState> sampleStates(const Scene& scene, const ConstraintSet& set, int samples, unsigned seed);

/// The states before each of the first `steps` steps of the scene's own
/// simulation (its solver, controller, dt and stabilisation), in order, each
/// with the controller's τ of that step (passive joint forces not included).
/// Throws ModelError naming the time when the simulation diverges.
std::vector<SampledState> simulatedStates(const Scene& scene, int steps);

}  // namespace loopsim
