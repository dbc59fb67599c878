// Paper 004 Fig. 8e: a serial chain whose joints are driven through gearboxes.
#include <loopsim/scene/generators/transmission_parts.hpp>

namespace loopsim {

GeneratedMechanism gearedChain(const GearedChainParams& p) {
  const std::string gen = "geared_chain";
  const generators::TransmissionSizes sizes{p.links, p.rotor_mass, p.rotor_radius, p.rod};
  generators::requireTransmission(gen, sizes, p.gear_ratio);

  ModelBuilder builder(gen);
  generators::ChainLink previous{0, SE3::Identity(), 0.0};
  std::vector<std::pair<int, int>> link_rotor;  // joint indices
  for (int i = 1; i <= p.links; ++i) {
    const Vector3 a = generators::transmissionPivot(p.rod, i - 1), b = generators::transmissionPivot(p.rod, i);
    // The rotor rides on the link before (its motor housing), coaxial with joint i.
    const int rotor = generators::addRotor(builder, previous.body, previous.world, a, 0.5 * p.rod.width + 0.3 * p.rotor_radius,
                                           "rotor_" + std::to_string(i), sizes);
    previous = generators::addSegment(builder, previous.body, previous.world, a, b, "link_" + std::to_string(i), 0,
                                      generators::rodStyle(p.rod, generators::rampColour(i - 1, p.links)),
                                      Vector3::UnitY());
    link_rotor.emplace_back(previous.body, rotor);
  }

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = VectorX::Zero(out.model.nq);
  for (int i = 0; i < p.links; ++i) {
    out.constraints.push_back(generators::coupling("gear_" + std::to_string(i + 1),
                                                   {link_rotor[i].first, link_rotor[i].second}, {p.gear_ratio, -1.0}));
  }
  out.constraint_dim = out.constraint_rank = p.links;
  out.doc = "geared chain (paper 004 Fig. 8e): " + std::to_string(p.links) +
            " planar links, each joint geared to a rotor on the link before (ratio " + std::to_string(p.gear_ratio) +
            "); constraint dimension " + std::to_string(p.links) + ", rank " + std::to_string(p.links) + "; " +
            std::to_string(p.links) + " dof";
  return out;
}

}  // namespace loopsim
