#pragma once
// The constraint terms the tree recursions read (paper 000 Alg. 1 line 5's K
// and k): K¹, φ, φ̇ and k_link, without J̇v and k. The recursions carry the
// links' velocity-product accelerations themselves (eq. 42d, l += K c), so
// neither J̇v nor data.a is needed.
#include <loopsim/constraints/constraint_data.hpp>

namespace loopsim {

/// evaluateConstraints(set, data, q, v, cdata) restricted to K¹, K², φ, φ̇,
/// k_link, oMa and oMb; bias and k are left as they were. Needs placements
/// and body velocities, not data.a. No allocation.
void evaluateLinkTargets(const ConstraintSet& set, const Data& data, const Eigen::Ref<const VectorX>& q,
                         const Eigen::Ref<const VectorX>& v, ConstraintData& cdata);

}  // namespace loopsim
