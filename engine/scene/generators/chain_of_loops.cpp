// Paper 001 Fig. 7: a chain of loops, each hanging from the one above.
#include <loopsim/scene/generators/loop_geometry.hpp>

namespace loopsim {

GeneratedMechanism chainOfLoops(const ChainOfLoopsParams& p) {
  const std::string gen = "chain_of_loops";
  generators::requireCount(gen, "loops", p.loops, 1, 200);
  generators::requireCount(gen, "links_per_loop", p.links_per_loop, 7, 100);
  generators::requireLinkCount(gen,
                              "1 + loops x links_per_loop = 1 + " + std::to_string(p.loops) + " x " +
                                  std::to_string(p.links_per_loop),
                              1 + static_cast<long long>(p.loops) * p.links_per_loop);
  generators::requireRod(gen, p.rod);

  ModelBuilder builder(gen);
  const generators::ChainLink root =
      generators::addSegment(builder, 0, SE3::Identity(), Vector3::Zero(), Vector3(0, 0, -p.rod.length), "root", 0,
                             generators::rodStyle(p.rod, {0.3, 0.3, 0.32, 1.0}));
  struct Closure {
    int body1, body2;
    SE3 tip;
  };
  std::vector<Closure> closures;
  generators::ChainLink anchor = root;
  Vector3 top = anchor.tipWorld();
  for (int k = 1; k <= p.loops; ++k) {
    // Rings alternate between the xz and yz planes, each hanging from the
    // bottom vertex of the one above.
    const Vector3 side = k % 2 == 1 ? Vector3::UnitX() : Vector3::UnitY();
    const auto points =
        generators::ringPoints(top, -Vector3::UnitZ(), side, p.links_per_loop, p.rod.length, 0.15 * p.rod.length);
    // The ring's first joint sits at `top`, which is the anchor's tip (root) or origin (ring links).
    const auto ring = generators::addPolylineChain(builder, anchor.body, anchor.world, points,
                                                   "loop" + std::to_string(k) + "_link_", 1, 7 * k,
                                                   generators::rodStyle(p.rod, generators::rampColour(k - 1, p.loops)));
    closures.push_back({ring.back().body, anchor.body, ring.back().tip()});
    anchor = ring[p.links_per_loop / 2];
    top = anchor.world.t;
  }

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = VectorX::Zero(out.model.nq);
  for (int k = 0; k < p.loops; ++k) {
    out.constraints.push_back(generators::closeAt(out.model, out.q0, "loop" + std::to_string(k + 1) + "_weld",
                                                  ConstraintKind::Weld, closures[k].body1, closures[k].tip,
                                                  closures[k].body2));
  }
  out.constraint_dim = out.constraint_rank = 6 * p.loops;
  out.doc = "chain of " + std::to_string(p.loops) + " loops of " + std::to_string(p.links_per_loop) +
            " links (paper 001 Fig. 7), each ring welded back to the link it hangs from; constraint dimension " +
            std::to_string(out.constraint_dim) + ", rank " + std::to_string(out.constraint_rank) + "; " +
            std::to_string(1 + (p.links_per_loop - 6) * p.loops) + " dof";
  return out;
}

}  // namespace loopsim
