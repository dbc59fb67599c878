#pragma once
// Per-row weights of the soft solvers from SolverSettings (soft_weights per
// constraint, else soft_weight), validated with errors naming the constraint.
#include <string_view>

#include <loopsim/solvers/solver.hpp>

namespace loopsim {

/// W per row of the constraint set (global order). Throws ModelError naming
/// `solver` and the constraint on a wrong count or a weight that is not
/// positive and finite.
VectorX rowWeights(const ConstraintSet& set, const SolverSettings& settings, std::string_view solver);

}  // namespace loopsim
