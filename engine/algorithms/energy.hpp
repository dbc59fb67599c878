#pragma once
// Centre of mass, momentum and energies.
#include <loopsim/model/data.hpp>

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

/// Both energies from kinematics already in `data` (forwardKinematics at
/// (q, v): data.oMi and data.v), so a step that has just evaluated its
/// constraint terms at (q, v) pays no further kinematics pass.
struct MechanicalEnergy {
  double kinetic = 0.0, potential = 0.0;
};
MechanicalEnergy energyAtKinematics(const Model& model, const Data& data, const Eigen::Ref<const VectorX>& q,
                                    const Eigen::Ref<const VectorX>& v);

}  // namespace loopsim
