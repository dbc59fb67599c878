// Random trees with a branching factor, optionally welded to the world at leaves.
#include <algorithm>
#include <cmath>
#include <numbers>

#include <loopsim/scene/generators/loop_geometry.hpp>
#include <loopsim/scene/generators/mechanism_parts.hpp>
#include <loopsim/scene/scene_loader.hpp>

namespace loopsim {

namespace {
Vector3 randomUnit(generators::SplitMix64& random) {
  const double z = 2.0 * random.uniform() - 1.0;
  const double phi = 2.0 * std::numbers::pi * random.uniform();
  const double r = std::sqrt(std::max(0.0, 1.0 - z * z));
  return {r * std::cos(phi), r * std::sin(phi), z};
}
}  // namespace

GeneratedMechanism randomTree(const RandomTreeParams& p) {
  const std::string gen = "random_tree";
  generators::requireCount(gen, "links", p.links, 1, 10000);
  generators::requireCount(gen, "branching", p.branching, 1, 1000);
  generators::requireCount(gen, "welds", p.welds, 0, p.links / 6);
  generators::requireCount(gen, "seed", p.seed, 0, 2147483647);
  generators::requireRod(gen, p.rod);

  // Draw the whole tree first (parents, directions, lengths, axes, in link
  // order), then add the bodies depth-first as the model requires.
  generators::SplitMix64 random(static_cast<unsigned long long>(p.seed) * 0x2545F4914F6CDD1Dull + 1);
  struct Drawn {
    int parent = -1;  // link index; -1 = the world
    Vector3 direction, axis;
    double length = 0.0;
  };
  std::vector<Drawn> drawn(p.links);
  std::vector<std::vector<int>> children(p.links);
  for (int i = 0; i < p.links; ++i) {
    if (i > 0) {
      std::vector<int> open;
      for (int j = 0; j < i; ++j) {
        if (static_cast<int>(children[j].size()) < p.branching) open.push_back(j);
      }
      drawn[i].parent = open[std::min(open.size() - 1, static_cast<std::size_t>(random.uniform() * open.size()))];
      children[drawn[i].parent].push_back(i);
    }
    drawn[i].direction = (randomUnit(random) + Vector3(0, 0, -0.6)).normalized();
    drawn[i].length = p.rod.length * (0.75 + 0.5 * random.uniform());
    // Kept off the rod direction so that the joint does not merely spin the rod.
    const Vector3 axis = randomUnit(random);
    drawn[i].axis = (axis - 0.8 * axis.dot(drawn[i].direction) * drawn[i].direction).normalized();
  }

  ModelBuilder builder(gen);
  std::vector<generators::ChainLink> links(p.links);
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    const int parent = drawn[i].parent;
    const Vector3 start = parent < 0 ? Vector3::Zero() : links[parent].tipWorld();
    links[i] = generators::addSegment(builder, parent < 0 ? 0 : links[parent].body,
                                      parent < 0 ? SE3::Identity() : links[parent].world, start,
                                      start + drawn[i].length * drawn[i].direction, "link_" + std::to_string(i + 1), 0,
                                      generators::rodStyle(p.rod, generators::rampColour(i, p.links)), drawn[i].axis);
    for (auto child = children[i].rbegin(); child != children[i].rend(); ++child) stack.push_back(*child);
  }

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = VectorX::Zero(out.model.nq);
  // Welds at the deepest leaves first, each kept when it raises the rank by 6.
  std::vector<int> leaves;
  for (int i = 0; i < p.links; ++i) {
    if (children[i].empty()) leaves.push_back(i);
  }
  std::stable_sort(leaves.begin(), leaves.end(), [&](int a, int b) {
    return out.model.depth[links[a].body] > out.model.depth[links[b].body];
  });
  for (int leaf : leaves) {
    if (static_cast<int>(out.constraints.size()) == p.welds) break;
    out.constraints.push_back(generators::closeAt(out.model, out.q0, "link_" + std::to_string(leaf + 1) + "_weld",
                                                  ConstraintKind::Weld, links[leaf].body, links[leaf].tip(), 0));
    const ConstraintRank rank = constraintRank(out.model, out.constraints, out.q0);
    if (rank.rank != rank.dimension) out.constraints.pop_back();
  }
  generators::require(static_cast<int>(out.constraints.size()) == p.welds, gen,
                      "only " + std::to_string(out.constraints.size()) + " leaves of this tree (seed " +
                          std::to_string(p.seed) + ") can be welded without losing rank; asked for " +
                          std::to_string(p.welds));
  out.constraint_dim = out.constraint_rank = 6 * p.welds;
  out.doc = "random tree of " + std::to_string(p.links) + " links (branching factor " + std::to_string(p.branching) +
            ", seed " + std::to_string(p.seed) + ")" +
            (p.welds > 0 ? ", " + std::to_string(p.welds) + " leaves welded to the world" : std::string()) +
            "; constraint dimension " + std::to_string(out.constraint_dim) + ", rank " +
            std::to_string(out.constraint_rank) + "; " + std::to_string(p.links - out.constraint_dim) + " dof";
  return out;
}

}  // namespace loopsim
