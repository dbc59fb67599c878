#pragma once
// The configuration manifold: q ⊕ v, q1 ⊖ q0, normalisation, neutral and
// random configurations. Quaternions are stored [x y z w]; spherical and
// floating joints integrate exactly (SO(3) / SE(3) exponential, v in the
// child frame).
#include <random>

#include <loopsim/model/model.hpp>

namespace loopsim {

/// q_out = q ⊕ dt·v. q_out may alias q. No allocation.
void integrate(const Model& model, const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v, double dt,
               Eigen::Ref<VectorX> q_out);
/// v_out = q1 ⊖ q0: the displacement with q0 ⊕ 1·v_out = q1.
void difference(const Model& model, const Eigen::Ref<const VectorX>& q0, const Eigen::Ref<const VectorX>& q1,
                Eigen::Ref<VectorX> v_out);
/// Joint i's part of q1 ⊖ q0, written into v_out's segment of its dofs (the
/// rest of v_out untouched): for callers that need a few joints, not all.
void jointDifference(const Model& model, int i, const Eigen::Ref<const VectorX>& q0,
                     const Eigen::Ref<const VectorX>& q1, Eigen::Ref<VectorX> v_out);
/// Normalises every quaternion in q.
void normalize(const Model& model, Eigen::Ref<VectorX> q);
/// Zero angles and displacements, identity quaternions. A floating base's q is
/// its pose relative to its joint placement (the world frame for loaders'
/// identity placements), so at neutral (position 0) it sits at that placement.
VectorX neutral(const Model& model);
/// Uniform within position limits; unlimited 1-dof joints in [-π, π] (prismatic
/// [-1, 1]); uniform random quaternions; floating positions in [-1, 1]³.
VectorX randomConfiguration(const Model& model, std::mt19937& rng);

}  // namespace loopsim
