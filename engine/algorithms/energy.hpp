#pragma once
// Centre of mass, momentum and energies.
#include "model/data.hpp"

namespace loopsim {

/// data.com (world) and data.mass.
const Vector3& centerOfMass(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q);
/// Spatial momentum of the whole tree in world axes about the world origin
/// ([angular; linear]); stored in data.h_world.
const Force& computeMomentum(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                             const Eigen::Ref<const VectorX>& v);
/// ½ vᵀ M v (armature included).
double kineticEnergy(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                     const Eigen::Ref<const VectorX>& v);
/// Gravity potential -Σ m_i gᵀ c_i plus spring energy ½ k (q - q_ref)².
double potentialEnergy(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q);

}  // namespace loopsim
