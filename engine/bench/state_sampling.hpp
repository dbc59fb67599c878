#pragma once
// Constraint-consistent random states near a scene's start, shared by the
// solver table and the μ sweep of `loopsim bench`.
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

}  // namespace loopsim
