// Paper 002 §IV-B: a serial chain with a 6D constraint on every k-th link.
#include <algorithm>
#include <cmath>

#include <loopsim/scene/generators/loop_geometry.hpp>

namespace loopsim {

GeneratedMechanism chain6dEveryK(const Chain6dEveryKParams& p) {
  const std::string gen = "chain_6d_every_k";
  // At most kMaxMechanismLinks: every workspace holds the dense nv x nv mass
  // matrix and the dense m x nv Jacobian, and the consistent start factors the
  // chain's M (O(n³)); the measured sizes are in docs/performance.md.
  generators::requireCount(gen, "links", p.links, 1, kMaxMechanismLinks);
  generators::requireCount(gen, "every", p.every, 1, p.links);
  generators::requireRod(gen, p.rod);

  // A meander along x (waves in y and z keep consecutive joints off one line).
  std::vector<Vector3> points;
  for (int i = 0; i <= p.links; ++i) {
    points.push_back(p.rod.length * Vector3(0.9 * i, 0.35 * std::sin(1.3 * i), 0.3 * std::cos(0.9 * i) - 0.3));
  }
  ModelBuilder builder(gen);
  const auto links = generators::addPolylineChain(builder, 0, SE3::Identity(), points, "link_", 1, 0,
                                                  generators::rodStyle(p.rod, {0.3, 0.6, 0.85, 1.0}));

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = VectorX::Zero(out.model.nq);
  const int welds = p.links / p.every;
  for (int j = 1; j <= welds; ++j) {
    const auto& link = links[j * p.every - 1];
    out.constraints.push_back(generators::closeAt(out.model, out.q0, "link_" + std::to_string(j * p.every) + "_weld",
                                                  ConstraintKind::Weld, link.body, link.tip(), 0));
  }
  out.constraint_dim = 6 * welds;
  out.constraint_rank = welds * std::min(6, p.every);
  out.doc = "chain of " + std::to_string(p.links) + " links with every " + std::to_string(p.every) +
            "-th link welded (paper 002 §IV-B): constraint dimension " + std::to_string(out.constraint_dim) +
            ", rank " + std::to_string(out.constraint_rank) +
            (p.every < 6 ? " (knowingly redundant: a weld every k < 6 links)" : "") + "; " +
            std::to_string(p.links - out.constraint_rank) + " dof";
  return out;
}

}  // namespace loopsim
