// Paper 000 Fig. 2e / paper 002 Fig. 3a: a long stem with welded branches at both ends.
#include <cmath>
#include <numbers>

#include <loopsim/scene/generators/loop_geometry.hpp>

namespace loopsim {

GeneratedMechanism longStem(const LongStemParams& p) {
  const std::string gen = "long_stem";
  generators::requireCount(gen, "stem_links", p.stem_links, 2, 1000);
  generators::requireCount(gen, "branches", p.branches, 1, 100);
  generators::requireCount(gen, "branch_links", p.branch_links, 6, 1000);
  generators::requireLinkCount(gen,
                              "stem_links + 2 x branches x branch_links = " + std::to_string(p.stem_links) +
                                  " + 2 x " + std::to_string(p.branches) + " x " + std::to_string(p.branch_links),
                              p.stem_links + 2LL * p.branches * p.branch_links);
  generators::requireRod(gen, p.rod);

  ModelBuilder builder(gen);
  const double height = 0.6 * p.branch_links * p.rod.length;
  const SE3 base_world(Matrix3::Identity(), Vector3(0, 0, height));  // stem_1 runs along x
  const generators::RodStyle stem_style = generators::rodStyle(p.rod, {0.3, 0.3, 0.32, 1.0});
  JointSpec base_joint;
  if (p.floating) {
    base_joint.type = JointType::Floating;
  } else {
    base_joint.axis = generators::genericLocalAxis(0);
  }
  // A floating joint's q is the pose in the world, so it has an identity
  // placement; the revolute pivot sits where the stem starts.
  const int base = generators::addRodBody(builder, 0, "stem_1", base_joint, p.floating ? SE3::Identity() : base_world,
                                          p.rod.length, stem_style);
  std::vector<generators::ChainLink> stem{{base, base_world, p.rod.length}};

  // Branches fan out from each end down to the ground, away from the stem.
  // Bodies go depth-first: stem_1, its (start) branches, then the rest of the
  // stem with the end branches on the last link.
  const double reach = 0.45 * p.branch_links * p.rod.length;
  std::vector<generators::ChainLink> tips;
  std::vector<std::string> names;
  auto addBranches = [&](bool at_start) {
    const generators::ChainLink& end = at_start ? stem.front() : stem.back();
    const Vector3 from = at_start ? end.world.t : end.tipWorld();
    for (int k = 0; k < p.branches; ++k) {
      const double spread = p.branches == 1 ? 0.0 : (static_cast<double>(k) / (p.branches - 1) - 0.5) * 2.0;
      const double azimuth = (at_start ? std::numbers::pi : 0.0) + spread;
      const Vector3 out(std::cos(azimuth), std::sin(azimuth), 0.0);
      const Vector3 foot = Vector3(from.x(), from.y(), 0.0) + reach * out;
      const auto points = generators::arcPoints(from, foot, p.branch_links, 0.35 * reach * (out + Vector3(0, 0, 0.6)),
                                                0.1 * reach * Vector3(-out.y(), out.x(), 0.0));
      const std::string name = (at_start ? "start" : "end") + std::to_string(k + 1);
      // A start branch hangs from stem_1 at its origin; an end branch from the last link at its tip.
      const auto branch = generators::addPolylineChain(
          builder, end.body, end.world, points, name + "_link_", 1, 17 * (k + 1) + (at_start ? 0 : 5),
          generators::rodStyle(p.rod, generators::rampColour(at_start ? k : p.branches + k, 2 * p.branches)));
      tips.push_back(branch.back());
      names.push_back(name + "_weld");
    }
  };
  addBranches(true);
  std::vector<Vector3> stem_points;
  for (int i = 1; i <= p.stem_links; ++i) stem_points.push_back(base_world.t + Vector3(i * p.rod.length, 0, 0));
  for (const auto& link :
       generators::addPolylineChain(builder, base, base_world, stem_points, "stem_", 2, 1, stem_style)) {
    stem.push_back(link);
  }
  addBranches(false);

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = VectorX::Zero(out.model.nq);
  if (p.floating) {
    // [position; quaternion x y z w], written as fixed-size segments: a comma
    // initialiser into head<7>() made GCC 12 (AVX2) warn about a 4-wide load
    // past the Vector3 on a path that never runs.
    out.q0.head<3>() = base_world.t;
    out.q0.segment<4>(3) = Vector4(0, 0, 0, 1);
  }
  for (std::size_t k = 0; k < tips.size(); ++k) {
    out.constraints.push_back(
        generators::closeAt(out.model, out.q0, names[k], ConstraintKind::Weld, tips[k].body, tips[k].tip(), 0));
  }
  out.constraint_dim = out.constraint_rank = 12 * p.branches;
  out.doc = std::string("long stem (paper 000 Fig. 2e, paper 002 Fig. 3a): ") + (p.floating ? "floating" : "pivoted") +
            " stem of " + std::to_string(p.stem_links) + " links, " + std::to_string(p.branches) +
            " branch(es) of " + std::to_string(p.branch_links) +
            " links at each end welded to the ground; constraint dimension " + std::to_string(out.constraint_dim) +
            ", rank " + std::to_string(out.constraint_rank) + "; " +
            std::to_string((p.floating ? 6 : 1) + p.stem_links - 1 + 2 * p.branches * (p.branch_links - 6)) + " dof";
  return out;
}

}  // namespace loopsim
