// The papers' loop mechanisms (paper_mechanisms.hpp): each generator's
// stated constraint dimension and rank against an SVD of J at q0, loops
// closed at q0, well-conditioned closures (no near-singular weld), dof and
// sizes, registry parameters, determinism of random trees, bad sizes.
#include <gtest/gtest.h>

#include <Eigen/SVD>
#include <functional>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>

namespace loopsim {
namespace {

struct Closure {
  double phi = 0.0;   // ‖φ(q0)‖∞
  int rank = 0;       // SVD rank of J(q0), threshold 1e-9 σ_max
  double conditioning = 0.0;  // σ_rank / σ_max (1 when there are no rows)
};

Closure evaluate(const GeneratedMechanism& g) {
  Closure out;
  const ConstraintSet set(g.model, g.constraints);
  if (set.dimension() == 0) {
    out.conditioning = 1.0;
    return out;
  }
  Data data(g.model);
  ConstraintData cd(set);
  computeConstraintTerms(set, data, g.q0, VectorX::Zero(g.model.nv), cd, kConstraintErrors | kConstraintJacobian);
  out.phi = cd.phi.lpNorm<Eigen::Infinity>();
  Eigen::JacobiSVD<MatrixX> svd(cd.J);
  const auto s = svd.singularValues();
  for (int k = 0; k < s.size(); ++k) out.rank += s[k] > 1e-9 * s[0] ? 1 : 0;
  out.conditioning = out.rank > 0 ? s[out.rank - 1] / s[0] : 0.0;
  return out;
}

/// Stated dimension and rank, checked against J; the doc says them; φ(q0) ≈ 0.
void expectStated(const GeneratedMechanism& g, int nv, int dim, int rank, int dof) {
  SCOPED_TRACE(g.model.name + ": " + g.doc);
  EXPECT_EQ(g.model.nv, nv);
  EXPECT_EQ(g.q0.size(), g.model.nq);
  EXPECT_EQ(g.constraint_dim, dim);
  EXPECT_EQ(g.constraint_rank, rank);
  const Closure c = evaluate(g);
  EXPECT_EQ(c.rank, rank);
  EXPECT_LT(c.phi, 1e-12);
  EXPECT_NE(g.doc.find("dimension " + std::to_string(dim) + ", rank " + std::to_string(rank)), std::string::npos);
  EXPECT_NE(g.doc.find("; " + std::to_string(dof) + " dof"), std::string::npos);
  EXPECT_EQ(nv - rank, dof);
  // Generic axes keep every full-rank closure far from singular (J mixes
  // radians and metres, so the bound is loose: 1e-4 at 0.2 m links).
  if (rank == dim && dim > 0) {
    EXPECT_GT(c.conditioning, 1e-4);
  }
}

TEST(PaperGenerators, CycleIsClosedByOneFullRankWeld) {
  for (int n : {7, 8, 10, 25, 60}) {
    CycleParams p;
    p.links = n;
    const GeneratedMechanism g = cycleMechanism(p);
    expectStated(g, n, 6, 6, n - 6);
    ASSERT_EQ(g.constraints.size(), 1u);
    EXPECT_EQ(g.constraints[0].kind, ConstraintKind::Weld);
    EXPECT_EQ(g.constraints[0].body2, g.model.bodyId("link_1"));  // an internal loop
    EXPECT_EQ(g.constraints[0].body1, g.model.bodyId("link_" + std::to_string(n)));
  }
}

TEST(PaperGenerators, ChainOfLoopsHasOneWeldPerLoop) {
  for (auto [loops, per_loop] : {std::pair{1, 7}, {3, 7}, {5, 8}, {12, 7}}) {
    ChainOfLoopsParams p;
    p.loops = loops;
    p.links_per_loop = per_loop;
    const GeneratedMechanism g = chainOfLoops(p);
    const int nv = 1 + loops * per_loop;
    expectStated(g, nv, 6 * loops, 6 * loops, 1 + (per_loop - 6) * loops);
    // Loop k closes on a link of loop k-1: internal loops only.
    for (const Constraint& c : g.constraints) EXPECT_NE(c.body2, 0);
    if (loops > 1) {
      EXPECT_EQ(g.constraints[1].body2, g.model.bodyId("loop1_link_" + std::to_string(per_loop / 2 + 1)));
    }
  }
}

TEST(PaperGenerators, CoupledWorstCaseLoopsAllRunThroughTheStem) {
  for (auto [loops, stem, branch] : {std::tuple{1, 1, 6}, {3, 3, 7}, {6, 4, 7}, {10, 2, 8}}) {
    const GeneratedMechanism g = coupledWorstCase({loops, stem, branch, {}});
    expectStated(g, stem + loops * branch, 6 * loops, 6 * loops, stem + loops * (branch - 6));
    // Every weld's Jacobian has non-zero columns on every stem joint.
    const ConstraintSet set(g.model, g.constraints);
    Data data(g.model);
    ConstraintData cd(set);
    computeConstraintTerms(set, data, g.q0, VectorX::Zero(g.model.nv), cd, kConstraintErrors | kConstraintJacobian);
    for (int k = 0; k < loops; ++k) {
      for (int s = 1; s <= stem; ++s) {
        const int col = g.model.idx_v[g.model.jointId("stem_" + std::to_string(s) + "_joint")];
        EXPECT_GT(cd.J.block(6 * k, col, 6, 1).norm(), 1e-6) << "loop " << k << " stem joint " << s;
      }
    }
  }
}

TEST(PaperGenerators, FavourableBranchingWeldsConsecutiveTips) {
  // stem 0: the branches hang from the world, which is then the hub.
  for (auto [branches, links, stem] : {std::tuple{2, 6, 1}, {4, 6, 1}, {8, 7, 2}, {16, 6, 1}, {5, 6, 0}}) {
    const GeneratedMechanism g = favourableBranching({branches, links, stem, {}});
    const int dim = 6 * (branches - 1);
    expectStated(g, stem + branches * links, dim, dim, stem + branches * links - dim);
    EXPECT_EQ(static_cast<int>(g.constraints.size()), branches - 1);
    // The tips meet in one point: frame B sits on branch k's tip, on its rod axis (x).
    for (const Constraint& c : g.constraints) EXPECT_LT(c.placement2.t.tail<2>().norm(), 1e-12) << c.name;
    for (int k = 1; k <= branches; ++k) {
      const int first = g.model.jointId("branch" + std::to_string(k) + "_link_1_joint");
      EXPECT_EQ(g.model.parent[first], stem == 0 ? 0 : g.model.jointId("stem_" + std::to_string(stem) + "_joint"));
    }
  }
}

TEST(PaperGenerators, LadderHasOneWeldPerRung) {
  for (auto [rungs, rail, rung] : {std::tuple{1, 3, 7}, {3, 3, 7}, {10, 3, 7}, {4, 2, 6}}) {
    const GeneratedMechanism g = ladderMechanism({rungs, rail, rung, {}});
    expectStated(g, rungs * (rail + rung), 6 * rungs, 6 * rungs, rungs * (rail + rung - 6));
    for (const Constraint& c : g.constraints) EXPECT_EQ(c.body2, 0);
  }
}

TEST(PaperGenerators, LongStemFloatingAndPivoted) {
  for (auto [stem, branches, links] : {std::tuple{2, 1, 7}, {6, 1, 7}, {20, 2, 7}, {8, 3, 6}}) {
    for (bool floating : {true, false}) {
      const GeneratedMechanism g = longStem({stem, branches, links, floating, {}});
      const int nv = (floating ? 6 : 1) + (stem - 1) + 2 * branches * links;
      expectStated(g, nv, 12 * branches, 12 * branches, nv - 12 * branches);
      EXPECT_EQ(g.model.isFloatingBase(), floating);
      if (floating) {
        EXPECT_DOUBLE_EQ(g.q0[6], 1.0);  // identity quaternion, w last
      }
    }
  }
}

TEST(PaperGenerators, Chain6dEveryKRankIsMinOfSixAndK) {
  for (auto [links, every] : {std::pair{14, 7}, {21, 7}, {12, 6}, {49, 7}, {12, 4}, {9, 3}, {6, 1}, {10, 10}}) {
    const GeneratedMechanism g = chain6dEveryK({links, every, {}});
    const int welds = links / every;
    const int rank = welds * std::min(6, every);
    expectStated(g, links, 6 * welds, rank, links - rank);
    if (every < 6) {
      EXPECT_NE(g.doc.find("redundant"), std::string::npos);
    }
  }
}

TEST(PaperGenerators, GearedChainCouplesEachJointToItsRotor) {
  for (int n : {1, 6, 12, 40}) {
    GearedChainParams p;
    p.links = n;
    p.gear_ratio = 7.5;
    const GeneratedMechanism g = gearedChain(p);
    expectStated(g, 2 * n, n, n, n);
    // Rotor i sits on the link before joint i and shares its axis line.
    for (int i = 1; i <= n; ++i) {
      const int link = g.model.jointId("link_" + std::to_string(i) + "_joint");
      const int rotor = g.model.jointId("rotor_" + std::to_string(i) + "_joint");
      ASSERT_GT(link, 0);
      ASSERT_GT(rotor, 0);
      EXPECT_EQ(g.model.parent[link], g.model.parent[rotor]);
      const Constraint& c = g.constraints[i - 1];
      EXPECT_EQ(c.coupling_joints, (std::vector<int>{link, rotor}));
      EXPECT_EQ(c.coupling_coefficients, (std::vector<double>{7.5, -1.0}));
    }
  }
}

TEST(PaperGenerators, BeltChainDrivesEverySecondLinkThroughABelt) {
  for (int n : {1, 2, 5, 6, 12}) {
    BeltChainParams p;
    p.links = n;
    const GeneratedMechanism g = beltChain(p);
    expectStated(g, 2 * n, n, n, n);
    for (int b = 2; b <= n; b += 2) {
      const int a_joint = g.model.jointId("link_" + std::to_string(b - 1) + "_joint");
      const int b_joint = g.model.jointId("link_" + std::to_string(b) + "_joint");
      const int rotor = g.model.jointId("rotor_" + std::to_string(b) + "_joint");
      // Both rotors of the pair ride on the pair's parent.
      EXPECT_EQ(g.model.parent[rotor], g.model.parent[a_joint]);
      const Constraint& belt = g.constraints[b - 1];
      EXPECT_EQ(belt.name, "belt_" + std::to_string(b));
      EXPECT_EQ(belt.coupling_joints, (std::vector<int>{a_joint, b_joint, rotor}));
    }
  }
}

TEST(PaperGenerators, RandomTreeRespectsBranchingAndWelds) {
  for (auto [links, branching, welds, seed] :
       {std::tuple{20, 3, 0, 1}, {20, 2, 2, 1}, {40, 2, 3, 1}, {30, 2, 2, 3}, {60, 4, 3, 2}, {100, 3, 4, 1}}) {
    const GeneratedMechanism g = randomTree({links, branching, welds, seed, {}});
    expectStated(g, links, 6 * welds, 6 * welds, links - 6 * welds);
    for (int i = 0; i < g.model.nbodies(); ++i) {
      EXPECT_LE(static_cast<int>(g.model.children[i].size()), i == 0 ? 1 : branching);
    }
  }
  // Deterministic per seed; different seeds give different trees.
  const GeneratedMechanism a = randomTree({25, 3, 0, 5, {}}), b = randomTree({25, 3, 0, 5, {}});
  const GeneratedMechanism c = randomTree({25, 3, 0, 6, {}});
  EXPECT_EQ(a.model.parent, b.model.parent);
  bool same_geometry = true, differs = a.model.parent != c.model.parent;
  for (int i = 1; i < a.model.nbodies(); ++i) {
    same_geometry = same_geometry && a.model.joint_placements[i].isApprox(b.model.joint_placements[i], 0.0);
    differs = differs || !a.model.joint_placements[i].isApprox(c.model.joint_placements[i], 1e-6);
  }
  EXPECT_TRUE(same_geometry);
  EXPECT_TRUE(differs);
  // A chain (branching 1) has a single leaf: two welds are impossible.
  EXPECT_THROW(randomTree({12, 1, 2, 1, {}}), ModelError);
}

TEST(PaperGenerators, BadSizesAreModelErrorsNamingTheParameter) {
  auto expectError = [](const std::function<void()>& make, const std::string& parameter) {
    try {
      make();
      ADD_FAILURE() << "no error for " << parameter;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(parameter), std::string::npos) << e.what();
    }
  };
  expectError([] { cycleMechanism({6, {}}); }, "links");
  expectError([] { chainOfLoops({2, 6, {}}); }, "links_per_loop");
  expectError([] { coupledWorstCase({0, 3, 7, {}}); }, "loops");
  expectError([] { favourableBranching({1, 6, 1, {}}); }, "branches");
  expectError([] { ladderMechanism({3, 3, 5, {}}); }, "rung_links");
  expectError([] { longStem({1, 1, 7, true, {}}); }, "stem_links");
  expectError([] { chain6dEveryK({5, 6, {}}); }, "every");
  expectError([] { cycleMechanism({8, {0.2, -0.01, 2.0}}); }, "width");
  expectError([] { gearedChain({6, 0.0, 0.3, 0.04, {}}); }, "gear_ratio");
  expectError([] { beltChain({6, 6.0, -1.0, 0.04, {}}); }, "rotor_mass");
  expectError([] { randomTree({20, 0, 0, 1, {}}); }, "branching");
}

// Sizes whose parameters multiply are capped at kMaxMechanismLinks in all:
// each parameter alone is in range, the product is not. The count in the
// message is the model's: a mechanism at the cap has exactly that many links.
TEST(PaperGenerators, SizesThatMultiplyAreCappedAtTheMaximumLinkCount) {
  ASSERT_EQ(kMaxMechanismLinks, 2000);
  struct Case {
    std::function<GeneratedMechanism()> largest, too_large;
    int largest_links;
    std::string refusal;  // the message's count
  };
  const std::vector<Case> cases = {
      {[] { return chainOfLoops({166, 12, {}}); }, [] { return chainOfLoops({200, 10, {}}); }, 1993,
       "generator 'chain_of_loops': 1 + loops x links_per_loop = 1 + 200 x 10 = 2001 links"},
      {[] { return ladderMechanism({200, 3, 7, {}}); }, [] { return ladderMechanism({167, 5, 7, {}}); }, 2000,
       "generator 'ladder': rungs x (rail_links + rung_links) = 167 x (5 + 7) = 2004 links"},
      {[] { return coupledWorstCase({200, 200, 9, {}}); }, [] { return coupledWorstCase({200, 201, 9, {}}); }, 2000,
       "generator 'coupled_worst_case': stem_links + loops x branch_links = 201 + 200 x 9 = 2001 links"},
      {[] { return favourableBranching({200, 9, 200, {}}); }, [] { return favourableBranching({200, 9, 201, {}}); },
       2000, "generator 'favourable_branching': stem_links + branches x branch_links = 201 + 200 x 9 = 2001 links"},
      {[] { return longStem({200, 100, 9, true, {}}); }, [] { return longStem({201, 100, 9, true, {}}); }, 2000,
       "generator 'long_stem': stem_links + 2 x branches x branch_links = 201 + 2 x 100 x 9 = 2001 links"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.refusal);
    EXPECT_EQ(c.largest().model.nbodies() - 1, c.largest_links);
    try {
      c.too_large();
      ADD_FAILURE() << "accepted";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(c.refusal + "; at most 2000 are allowed (larger mechanisms do not fit in "
                                                       "memory"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(PaperGenerators, RegisteredByNameWithTheirParameters) {
  const std::vector<std::string> names = {"cycle",  "chain_of_loops",   "coupled_worst_case", "favourable_branching",
                                          "ladder", "long_stem",        "chain_6d_every_k",   "geared_chain",
                                          "belt_chain", "random_tree"};
  for (const std::string& name : names) {
    const GeneratorInfo* info = findGenerator(name);
    ASSERT_NE(info, nullptr) << name;
    const GeneratedMechanism g = info->make({});
    SCOPED_TRACE(name + ": " + g.doc);
    const Closure c = evaluate(g);
    EXPECT_EQ(c.rank, g.constraint_rank);
    EXPECT_LT(c.phi, 1e-12);
    bool has_length = false;
    for (const auto& p : info->parameters) has_length = has_length || p.name == "length";
    EXPECT_TRUE(has_length);
  }
  // Arguments reach the generator and are checked.
  const GeneratorInfo* cycle = findGenerator("cycle");
  EXPECT_EQ(cycle->make({{"links", "12"}, {"length", "0.1"}}).model.nv, 12);
  EXPECT_THROW(cycle->make({{"links", "7.5"}}), ModelError);
  EXPECT_THROW(cycle->make({{"loops", "3"}}), ModelError);
  const GeneratedMechanism fixed = findGenerator("long_stem")->make({{"floating", "false"}, {"stem_links", "3"}});
  EXPECT_EQ(fixed.model.nv, 1 + 2 + 14);
  EXPECT_THROW(findGenerator("long_stem")->make({{"floating", "yes"}}), ModelError);
}

}  // namespace
}  // namespace loopsim
