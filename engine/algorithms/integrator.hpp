#pragma once
// Semi-implicit Euler (paper 001 eqs. 54-55):
//   v_{k+1} = v_k + dt v̇_k,   q_{k+1} = q_k ⊕ dt v_{k+1}.
// Separate from the dynamics: any forward-dynamics routine supplies v̇.
#include <loopsim/model/model.hpp>

namespace loopsim {

/// Advances (q, v) in place with the given acceleration. No allocation.
void semiImplicitEulerStep(const Model& model, Eigen::Ref<VectorX> q, Eigen::Ref<VectorX> v,
                           const Eigen::Ref<const VectorX>& vdot, double dt);

}  // namespace loopsim
