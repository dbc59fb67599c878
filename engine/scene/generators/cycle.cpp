// Paper 001 Fig. 6: a cycle of n links closed by a weld.
#include <loopsim/scene/generators/loop_geometry.hpp>

namespace loopsim {

GeneratedMechanism cycleMechanism(const CycleParams& p) {
  const std::string gen = "cycle";
  generators::requireCount(gen, "links", p.links, 7, 1000);
  generators::requireRod(gen, p.rod);

  // A ring in the vertical xz plane hanging from the world pivot, interior
  // vertices pushed ±15 % of a side off the plane (a flat ring is generic
  // too; the push improves the weld's conditioning).
  const auto points = generators::ringPoints(Vector3::Zero(), -Vector3::UnitZ(), Vector3::UnitX(), p.links,
                                             p.rod.length, 0.15 * p.rod.length);
  ModelBuilder builder(gen);
  const auto links = generators::addPolylineChain(builder, 0, SE3::Identity(), points, "link_", 1, 0,
                                                  generators::rodStyle(p.rod, {0.95, 0.55, 0.2, 1.0}));
  builder.addFrame("tip", links.back().body, links.back().tip());

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = VectorX::Zero(p.links);
  out.constraints.push_back(generators::closeAt(out.model, out.q0, "loop_weld", ConstraintKind::Weld,
                                                links.back().body, links.back().tip(), links.front().body));
  out.constraint_dim = out.constraint_rank = 6;
  out.doc = "cycle of " + std::to_string(p.links) + " links (paper 001 Fig. 6): link_1 on the world pivot, link_" +
            std::to_string(p.links) + "'s tip welded to link_1; constraint dimension 6, rank 6; " +
            std::to_string(p.links - 6) + " dof";
  return out;
}

}  // namespace loopsim
