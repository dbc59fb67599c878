#pragma once
// Internal to the transmission generators (paper 004 Fig. 8e-f): a planar
// chain hanging in the xz plane with joint axes along the world y, and
// rotors coaxial with a joint, geared to it by coupling constraints.
#include <string>
#include <vector>

#include <loopsim/scene/generators/loop_geometry.hpp>

namespace loopsim::generators {

struct TransmissionSizes {
  int links = 6;
  double rotor_mass = 0.3;
  double rotor_radius = 0.04;
  RodParams rod;
};

/// Checks the sizes shared by geared_chain and belt_chain.
void requireTransmission(const std::string& generator, const TransmissionSizes& sizes, double gear_ratio);

/// The pivot of link i (0-based) of the planar chain: a gentle curve down -z.
Vector3 transmissionPivot(const RodParams& rod, int i);

/// A rotor "<name>" (a disc, joint "<name>_joint") on `parent`, spinning about
/// the world y axis through `pivot`, set `offset` m along y beside the link.
int addRotor(ModelBuilder& builder, int parent, const SE3& parent_world, const Vector3& pivot, double offset,
             const std::string& name, const TransmissionSizes& sizes);

/// Coupling Σ c_k q[joint_k] = 0.
Constraint coupling(const std::string& name, std::vector<int> joints, std::vector<double> coefficients);

}  // namespace loopsim::generators
