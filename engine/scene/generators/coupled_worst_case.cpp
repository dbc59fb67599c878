// Paper 001 Fig. 8: every loop shares the stem's joints with every other.
#include <cmath>
#include <numbers>

#include <loopsim/scene/generators/loop_geometry.hpp>

namespace loopsim {

GeneratedMechanism coupledWorstCase(const CoupledWorstCaseParams& p) {
  const std::string gen = "coupled_worst_case";
  generators::requireCount(gen, "loops", p.loops, 1, 200);
  generators::requireCount(gen, "stem_links", p.stem_links, 1, 1000);
  generators::requireCount(gen, "branch_links", p.branch_links, 6, 1000);
  generators::requireLinkCount(gen,
                              "stem_links + loops x branch_links = " + std::to_string(p.stem_links) + " + " +
                                  std::to_string(p.loops) + " x " + std::to_string(p.branch_links),
                              p.stem_links + static_cast<long long>(p.loops) * p.branch_links);
  generators::requireRod(gen, p.rod);

  ModelBuilder builder(gen);
  std::vector<Vector3> stem_points;
  for (int i = 0; i <= p.stem_links; ++i) stem_points.push_back(Vector3(0, 0, i * p.rod.length));
  const auto stem = generators::addPolylineChain(builder, 0, SE3::Identity(), stem_points, "stem_", 1, 0,
                                                 generators::rodStyle(p.rod, {0.3, 0.3, 0.32, 1.0}));
  const Vector3 top = stem.back().tipWorld();
  // Branches leave the stem's top like the legs of a stool and end on the
  // ground around it; arcs of about branch_links * length.
  const double reach = 0.6 * p.branch_links * p.rod.length;
  std::vector<generators::ChainLink> tips;
  for (int k = 0; k < p.loops; ++k) {
    const double azimuth = 2.0 * std::numbers::pi * k / p.loops + 0.3;
    const Vector3 out(std::cos(azimuth), std::sin(azimuth), 0.0);
    const Vector3 across(-out.y(), out.x(), 0.0);
    const Vector3 foot(reach * out.x(), reach * out.y(), 0.0);
    const auto points = generators::arcPoints(top, foot, p.branch_links, 0.3 * reach * (out + Vector3(0, 0, 0.5)),
                                              0.08 * reach * across);
    const auto branch = generators::addPolylineChain(builder, stem.back().body, stem.back().world, points,
                                                     "branch" + std::to_string(k + 1) + "_link_", 1, 11 * (k + 1),
                                                     generators::rodStyle(p.rod, generators::rampColour(k, p.loops)));
    tips.push_back(branch.back());
  }

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = VectorX::Zero(out.model.nq);
  for (int k = 0; k < p.loops; ++k) {
    out.constraints.push_back(generators::closeAt(out.model, out.q0, "branch" + std::to_string(k + 1) + "_weld",
                                                  ConstraintKind::Weld, tips[k].body, tips[k].tip(), 0));
  }
  out.constraint_dim = out.constraint_rank = 6 * p.loops;
  out.doc = "coupled worst case (paper 001 Fig. 8): a stem of " + std::to_string(p.stem_links) + " links and " +
            std::to_string(p.loops) + " branches of " + std::to_string(p.branch_links) +
            " links welded to the ground, every loop through every stem joint; constraint dimension " +
            std::to_string(out.constraint_dim) + ", rank " + std::to_string(out.constraint_rank) + "; " +
            std::to_string(p.stem_links + p.loops * (p.branch_links - 6)) + " dof";
  return out;
}

}  // namespace loopsim
