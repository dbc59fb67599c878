// Paper 000 Fig. 4b: the ladder, one 6D constraint per rung (m ~ n).
#include <loopsim/scene/generators/loop_geometry.hpp>

namespace loopsim {

GeneratedMechanism ladderMechanism(const LadderParams& p) {
  const std::string gen = "ladder";
  generators::requireCount(gen, "rungs", p.rungs, 1, 200);
  generators::requireCount(gen, "rail_links", p.rail_links, 1, 100);
  generators::requireCount(gen, "rung_links", p.rung_links, 6, 100);
  generators::requireLinkCount(gen,
                              "rungs x (rail_links + rung_links) = " + std::to_string(p.rungs) + " x (" +
                                  std::to_string(p.rail_links) + " + " + std::to_string(p.rung_links) + ")",
                              static_cast<long long>(p.rungs) * (p.rail_links + p.rung_links));
  generators::requireRod(gen, p.rod);

  ModelBuilder builder(gen);
  const double width = 0.8 * p.rung_links * p.rod.length;  // distance between the rails
  std::vector<generators::ChainLink> tips;
  generators::ChainLink rail_top{0, SE3::Identity(), 0.0};
  for (int j = 1; j <= p.rungs; ++j) {
    // a rail links up, then a rung across to the fixed rail at x = width.
    std::vector<Vector3> rail_points;
    const double z0 = (j - 1) * p.rail_links * p.rod.length;
    for (int i = 0; i <= p.rail_links; ++i) rail_points.push_back(Vector3(0, 0, z0 + i * p.rod.length));
    const auto rail = generators::addPolylineChain(builder, rail_top.body, rail_top.world, rail_points, "rail_",
                                                   (j - 1) * p.rail_links + 1, (j - 1) * p.rail_links,
                                                   generators::rodStyle(p.rod, {0.35, 0.35, 0.38, 1.0}));
    rail_top = rail.back();
    const Vector3 start = rail_top.tipWorld();
    // Bowed in y and waved in z: joints on one line would make the weld singular.
    const auto points = generators::arcPoints(start, start + Vector3(width, 0, 0), p.rung_links,
                                              Vector3(0, 0.2 * width, 0), Vector3(0, 0, 0.08 * width));
    const auto rung = generators::addPolylineChain(builder, rail_top.body, rail_top.world, points,
                                                   "rung" + std::to_string(j) + "_link_", 1, 13 * j,
                                                   generators::rodStyle(p.rod, generators::rampColour(j - 1, p.rungs)));
    tips.push_back(rung.back());
  }
  // The fixed rail, drawn on the world.
  const double height = p.rungs * p.rail_links * p.rod.length;
  VisualGeometry fixed_rail;
  fixed_rail.name = "fixed_rail";
  fixed_rail.body = 0;
  fixed_rail.shape = VisualGeometry::Shape::Box;
  fixed_rail.placement = SE3(Matrix3::Identity(), Vector3(width, 0, 0.5 * height));
  fixed_rail.size = Vector3(p.rod.width, p.rod.width, height);
  fixed_rail.rgba = {0.35, 0.35, 0.38, 1.0};
  builder.addVisual(fixed_rail);

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = VectorX::Zero(out.model.nq);
  for (int j = 0; j < p.rungs; ++j) {
    out.constraints.push_back(generators::closeAt(out.model, out.q0, "rung" + std::to_string(j + 1) + "_weld",
                                                  ConstraintKind::Weld, tips[j].body, tips[j].tip(), 0));
  }
  out.constraint_dim = out.constraint_rank = 6 * p.rungs;
  out.doc = "ladder (paper 000 Fig. 4b): " + std::to_string(p.rungs) + " rungs of " + std::to_string(p.rung_links) +
            " links, " + std::to_string(p.rail_links) +
            " rail links between rungs, each rung welded to the fixed rail; constraint dimension " +
            std::to_string(out.constraint_dim) + ", rank " + std::to_string(out.constraint_rank) + "; " +
            std::to_string(p.rungs * (p.rail_links + p.rung_links - 6)) + " dof";
  return out;
}

}  // namespace loopsim
