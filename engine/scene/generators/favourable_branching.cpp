// Paper 001 Fig. 9: branches from one hub link, their tips welded in turn.
#include <cmath>
#include <numbers>

#include <loopsim/scene/generators/loop_geometry.hpp>

namespace loopsim {

GeneratedMechanism favourableBranching(const FavourableBranchingParams& p) {
  const std::string gen = "favourable_branching";
  generators::requireCount(gen, "branches", p.branches, 2, 200);
  generators::requireCount(gen, "branch_links", p.branch_links, 6, 1000);
  generators::requireCount(gen, "stem_links", p.stem_links, 0, 1000);
  generators::requireLinkCount(gen,
                              "stem_links + branches x branch_links = " + std::to_string(p.stem_links) + " + " +
                                  std::to_string(p.branches) + " x " + std::to_string(p.branch_links),
                              p.stem_links + static_cast<long long>(p.branches) * p.branch_links);
  generators::requireRod(gen, p.rod);

  ModelBuilder builder(gen);
  std::vector<Vector3> stem_points;
  for (int i = 0; i <= p.stem_links; ++i) stem_points.push_back(Vector3(0, 0, -i * p.rod.length));
  // No stem: the world is the hub. Paper 001 §VI-C's "neighbour count does
  // not exceed one" holds only then; a moving hub couples each next tip to it.
  const generators::ChainLink hub =
      p.stem_links == 0 ? generators::ChainLink{}
                        : generators::addPolylineChain(builder, 0, SE3::Identity(), stem_points, "stem_", 1, 0,
                                                       generators::rodStyle(p.rod, {0.3, 0.3, 0.32, 1.0}))
                              .back();
  // The branches bulge out around the vertical through the hub and meet again
  // below it, like the ribs of a lantern, so the welded tips coincide at q0.
  const double drop = 0.6 * p.branch_links * p.rod.length;
  const Vector3 top = hub.tipWorld();
  const Vector3 meet = top - Vector3(0, 0, drop);
  std::vector<generators::ChainLink> tips;
  for (int k = 0; k < p.branches; ++k) {
    const double azimuth = 2.0 * std::numbers::pi * k / p.branches;
    const Vector3 out(std::cos(azimuth), std::sin(azimuth), 0.0);
    const Vector3 across(-out.y(), out.x(), 0.0);
    const auto points = generators::arcPoints(top, meet, p.branch_links, 0.45 * drop * out, 0.1 * drop * across);
    const auto branch = generators::addPolylineChain(builder, hub.body, hub.world, points,
                                                     "branch" + std::to_string(k + 1) + "_link_", 1, 11 * (k + 1),
                                                     generators::rodStyle(p.rod, generators::rampColour(k, p.branches)));
    tips.push_back(branch.back());
  }

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = VectorX::Zero(out.model.nq);
  for (int k = 0; k + 1 < p.branches; ++k) {
    out.constraints.push_back(generators::closeAt(
        out.model, out.q0, "tips_" + std::to_string(k + 1) + "_" + std::to_string(k + 2) + "_weld",
        ConstraintKind::Weld, tips[k + 1].body, tips[k + 1].tip(), tips[k].body));
  }
  out.constraint_dim = out.constraint_rank = 6 * (p.branches - 1);
  out.doc = "favourable branching (paper 001 Fig. 9): " + std::to_string(p.branches) + " branches of " +
            std::to_string(p.branch_links) + " links from one hub, consecutive tips welded; constraint dimension " +
            std::to_string(out.constraint_dim) + ", rank " + std::to_string(out.constraint_rank) + "; " +
            std::to_string(p.stem_links + p.branches * p.branch_links - out.constraint_dim) + " dof";
  return out;
}

}  // namespace loopsim
