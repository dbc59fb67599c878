#pragma once
// The position-level half of evaluateConstraints, for projections: φ, the rows
// K¹, K² and the dense J at the placements alone (no velocities, no J̇v, no
// Baumgarte target). A velocity projection then forms J v itself from J.
#include <loopsim/constraints/constraint_data.hpp>

namespace loopsim {

/// φ, K¹, K², oMa, oMb and J at the state held by `data`: needs only
/// forwardKinematics(q) (placements and motion subspaces). J's rows are the
/// same bits as evaluateConstraints(..., kConstraintJacobian) at that q.
/// Leaves φ̇, J̇v, k and k_link as they were. No allocation.
void evaluatePositionTerms(const ConstraintSet& set, const Data& data, const Eigen::Ref<const VectorX>& q,
                           ConstraintData& cdata);

}  // namespace loopsim
