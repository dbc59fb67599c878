#pragma once
// The constraint terms the tree recursions read (paper 000 Alg. 1 line 5's K
// and k): K¹, φ, φ̇ and k_link, without J̇v and k. The recursions carry the
// links' velocity-product accelerations themselves (eq. 42d, l += K c), so
// neither J̇v nor data.a is needed.
#include <optional>

#include <loopsim/constraints/constraint_data.hpp>

namespace loopsim {

/// evaluateConstraints(set, data, q, v, cdata) restricted to K¹, K², φ, φ̇,
/// k_link, oMa and oMb; bias and k are left as they were. Needs placements
/// and body velocities, not data.a. No allocation.
void evaluateLinkTargets(const ConstraintSet& set, const Data& data, const Eigen::Ref<const VectorX>& q,
                         const Eigen::Ref<const VectorX>& v, ConstraintData& cdata);

/// K²ᵀK² where it does not depend on q: a connect between two moving bodies
/// has K² = -R_Aᵀ R_B C, C the constant rows of point B's velocity in B axes,
/// so K²ᵀK² = CᵀC (the penalty solvers' μ K²ᵀK², formed once). Empty for the
/// other constraints (their K² turns with q, masks rows, or is absent).
std::optional<Matrix6> constantRowGramOnBody2(const Constraint& c);

}  // namespace loopsim
