// Paper 004 Fig. 8f: a serial chain driven by parallel belt transmissions.
#include <loopsim/scene/generators/transmission_parts.hpp>

namespace loopsim {

GeneratedMechanism beltChain(const BeltChainParams& p) {
  const std::string gen = "belt_chain";
  const generators::TransmissionSizes sizes{p.links, p.rotor_mass, p.rotor_radius, p.rod};
  generators::requireTransmission(gen, sizes, p.gear_ratio);

  ModelBuilder builder(gen);
  generators::ChainLink previous{0, SE3::Identity(), 0.0};
  std::vector<int> link_joint, rotor_joint;
  const double beside = 0.5 * p.rod.width + 0.3 * p.rotor_radius;
  for (int a = 1; a <= p.links; a += 2) {
    // Both rotors of the pair sit on the pair's parent, side by side on joint a's axis.
    const generators::ChainLink parent = previous;
    const bool pair = a + 1 <= p.links;
    const int count = pair ? 2 : 1;
    for (int k = 0; k < count; ++k) {
      rotor_joint.push_back(generators::addRotor(builder, parent.body, parent.world,
                                                 generators::transmissionPivot(p.rod, a - 1),
                                                 beside + k * 0.5 * p.rotor_radius, "rotor_" + std::to_string(a + k),
                                                 sizes));
    }
    for (int k = 0; k < count; ++k) {
      const int i = a + k;
      previous = generators::addSegment(builder, previous.body, previous.world,
                                        generators::transmissionPivot(p.rod, i - 1),
                                        generators::transmissionPivot(p.rod, i), "link_" + std::to_string(i), 0,
                                        generators::rodStyle(p.rod, generators::rampColour(i - 1, p.links)),
                                        Vector3::UnitY());
      link_joint.push_back(previous.body);
    }
  }

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = VectorX::Zero(out.model.nq);
  const double N = p.gear_ratio;
  for (int a = 0; a < p.links; a += 2) {
    out.constraints.push_back(
        generators::coupling("gear_" + std::to_string(a + 1), {link_joint[a], rotor_joint[a]}, {N, -1.0}));
    if (a + 1 < p.links) {
      // The belt carries link b's angle relative to the pair's parent: q_a + q_b (parallel axes).
      out.constraints.push_back(generators::coupling("belt_" + std::to_string(a + 2),
                                                     {link_joint[a], link_joint[a + 1], rotor_joint[a + 1]},
                                                     {N, N, -1.0}));
    }
  }
  out.constraint_dim = out.constraint_rank = p.links;
  out.doc = "belt chain (paper 004 Fig. 8f): " + std::to_string(p.links) +
            " planar links in pairs, rotors on each pair's parent, the second link of a pair driven by a belt over "
            "the first joint; constraint dimension " +
            std::to_string(p.links) + ", rank " + std::to_string(p.links) + "; " + std::to_string(p.links) + " dof";
  return out;
}

}  // namespace loopsim
