#pragma once
// The loop mechanisms of the papers' scaling studies, generated with their
// sizes as parameters (registered by name for scenes in
// generators/paper_generator_registry.cpp). Conventions as generators.hpp:
// bodies "<name>", joints "<name>_joint"; q0 is the reference pose, where
// every loop closes to round-off (the closures are made where the two ends
// coincide at q0). Revolute joints sit at 0 in q0 unless stated.
//
// Spatial mechanisms use generic joint axes (66° from each rod, turned by the
// golden angle from link to link: no two parallel), so every weld whose loop
// holds at least 6 joints of its own is full rank. Transmissions (geared,
// belt) are planar chains with parallel axes, where couplings are exact.
#include <loopsim/scene/generators.hpp>

namespace loopsim {

/// Rod sizes shared by the generators below.
struct RodParams {
  double length = 0.2;            // m, nominal link length (arcs and rings adjust it slightly)
  double width = 0.03;            // m, link cross-section
  double mass_per_length = 2.0;   // kg/m
  // Passive joint properties of every rod joint: a torsional spring about the
  // reference pose (rest angle 0) and viscous damping. A floppy mechanism
  // under gravity wanders into near-singular poses; springs keep a scene's
  // mechanism near its reference while a drive moves it.
  double stiffness = 0.0;         // N·m/rad
  double damping = 0.0;           // N·m·s/rad
};

/// The most links a generator below builds when its size parameters multiply
/// (chain_of_loops, coupled_worst_case, favourable_branching, ladder, long_stem;
/// chain_6d_every_k's links too): each parameter has its own range, but their
/// products reach 20,000 links and more, which do not fit in memory (every
/// solver workspace holds the dense nv x nv mass matrix). The start-up time,
/// memory and step time measured at this size: docs/performance.md; docs/solvers.md, "Cost and size".
inline constexpr int kMaxMechanismLinks = 2000;

/// Paper 001 Fig. 6: a cycle of n links. link_1 hangs from the world pivot
/// (revolute), links 2..n follow as a ring hanging in the vertical xz plane,
/// and link_n's tip is welded to link_1 ("loop_weld", an internal loop).
/// Constraint dimension 6, rank 6; n - 6 dof (needs n >= 7: the weld spans
/// the n - 1 joints 2..n).
struct CycleParams {
  int links = 8;
  RodParams rod;
};
GeneratedMechanism cycleMechanism(const CycleParams& params = {});

/// Paper 001 Fig. 7: a chain of m loops. "root" hangs from the world pivot;
/// loop k is a ring of L links "loop<k>_link_<i>" hanging from its anchor
/// (root for k = 1, else the link of loop k-1 at that ring's bottom vertex),
/// its last link welded back to the anchor ("loop<k>_weld"). Each weld spans
/// the loop's L joints: dimension 6m, rank 6m; 1 + (L - 6)m dof (L >= 7).
struct ChainOfLoopsParams {
  int loops = 3;
  int links_per_loop = 7;
  RodParams rod;
};
GeneratedMechanism chainOfLoops(const ChainOfLoopsParams& params = {});

/// Paper 001 Fig. 8, every loop coupled with every other: a stem of s links
/// "stem_<i>" standing up from the world pivot, and m branches of b links
/// "branch<k>_link_<i>" from the stem's top down to the ground, each tip
/// welded to the world ("branch<k>_weld"). Every loop runs through all the
/// stem joints. Dimension 6m, rank 6m (each branch has b >= 6 joints of its
/// own); s + m(b - 6) dof.
struct CoupledWorstCaseParams {
  int loops = 3;
  int stem_links = 3;
  int branch_links = 7;
  RodParams rod;
};
GeneratedMechanism coupledWorstCase(const CoupledWorstCaseParams& params = {});

/// Paper 001 Fig. 9, branching from a single link: a stem of s links hangs
/// from the world pivot; its last link (the hub) carries m branches of b
/// links "branch<k>_link_<i>" whose tips meet at one point below the hub;
/// consecutive tips are welded ("tips_<k>_<k+1>_weld", m - 1 welds, tip of
/// branch k+1 on tip of branch k). Dimension 6(m - 1), rank 6(m - 1) (b >= 6);
/// s + mb - 6(m - 1) dof. s = 0: the branches hang from the world pivot,
/// the world being the hub (paper 001's "neighbour count ≤ 1" needs that).
struct FavourableBranchingParams {
  int branches = 4;
  int branch_links = 6;
  int stem_links = 1;
  RodParams rod;
};
GeneratedMechanism favourableBranching(const FavourableBranchingParams& params = {});

/// Paper 000 Fig. 4b, the ladder (m ~ n): a rail of r·a links "rail_<i>"
/// stands up from the world pivot; above every a rail links a rung of c links
/// "rung<j>_link_<i>" arcs across to the other rail, which is the world: its
/// tip is welded there ("rung<j>_weld"). Dimension 6r, rank 6r (c >= 6);
/// r(a + c - 6) dof. Paper: a = 3, c = 7.
struct LadderParams {
  int rungs = 3;
  int rail_links = 3;
  int rung_links = 7;
  RodParams rod;
};
GeneratedMechanism ladderMechanism(const LadderParams& params = {});

/// Paper 000 Fig. 2e / paper 002 Fig. 3a: a horizontal stem of s links
/// "stem_<i>" (stem_1 on a Floating joint, or on a revolute world pivot),
/// and from each stem end m branches of b links ("start<k>_link_<i>",
/// "end<k>_link_<i>") down to the ground, each tip welded to the world
/// ("start<k>_weld", "end<k>_weld"). Dimension 12m, rank 12m (b >= 6);
/// (6 or 1) + (s - 1) + 2m(b - 6) dof. Paper: b = 7. Floating: q0 starts
/// with stem_1's pose [0, 0, h, 0, 0, 0, 1].
struct LongStemParams {
  int stem_links = 6;
  int branches = 1;
  int branch_links = 7;
  bool floating = true;
  RodParams rod;
};
GeneratedMechanism longStem(const LongStemParams& params = {});

/// Paper 002 §IV-B: a serial chain of n links "link_<i>" from the world
/// pivot, the tips of links k, 2k, ... welded to the world where they are
/// ("link_<jk>_weld"). With w = floor(n/k) welds: dimension 6w, rank
/// w·min(6, k) (every weld constrains only the k joints since the previous
/// one): k < 6 is knowingly redundant (paper 002's "every link" case is k = 1).
/// n - rank dof.
struct Chain6dEveryKParams {
  int links = 14;
  int every = 7;
  RodParams rod;
};
GeneratedMechanism chain6dEveryK(const Chain6dEveryKParams& params = {});

/// Paper 004 Fig. 8e: a planar chain of n links "link_<i>" hanging in the xz
/// plane (axes along y), each joint driven through a gearbox by a rotor
/// "rotor_<i>" mounted on the link before (the world for i = 1), coaxial with
/// the joint: coupling "gear_<i>": N q_link_i - q_rotor_i = 0. Dimension n,
/// rank n; n dof.
struct GearedChainParams {
  int links = 6;
  double gear_ratio = 6.0;
  double rotor_mass = 0.3;     // kg
  double rotor_radius = 0.04;  // m
  RodParams rod;
};
GeneratedMechanism gearedChain(const GearedChainParams& params = {});

/// Paper 004 Fig. 8f: the same planar chain driven by parallel belts. Links go
/// in pairs (a, b) (a last single link is geared); both rotors of a pair sit
/// on the pair's parent, coaxial with joint a. Rotor a drives joint a
/// ("gear_<a>": N q_a - q_rotor_a = 0); rotor b drives link b through a belt
/// over joint a, so it sets link b's angle relative to the pair's parent
/// ("belt_<b>": N (q_a + q_b) - q_rotor_b = 0: exact because the axes are
/// parallel). Dimension n, rank n; n dof. A pair and its two rotors form one
/// cluster of 4 bodies (paper 004 §V: l = 4).
struct BeltChainParams {
  int links = 6;
  double gear_ratio = 6.0;
  double rotor_mass = 0.3;
  double rotor_radius = 0.04;
  RodParams rod;
};
GeneratedMechanism beltChain(const BeltChainParams& params = {});

/// A random tree of n revolute rods "link_<i>": each link's parent is drawn
/// uniformly among the earlier links with fewer than `branching` children
/// (link_1 hangs from the world), it starts at its parent's tip in a random
/// direction (biased downwards) with a random axis. Deterministic for a seed
/// on every platform. With welds = w > 0, the tips of w leaves are welded to
/// the world ("link_<i>_weld"), deepest leaves first, each kept only if it
/// raises the rank by 6: dimension 6w, rank 6w (the generator fails when the
/// tree has too few such leaves); n - 6w dof.
struct RandomTreeParams {
  int links = 30;
  int branching = 2;
  int welds = 2;
  int seed = 1;
  RodParams rod;
};
GeneratedMechanism randomTree(const RandomTreeParams& params = {});

/// The generators above as registry entries (names: cycle, chain_of_loops,
/// coupled_worst_case, favourable_branching, ladder, long_stem,
/// chain_6d_every_k, geared_chain, belt_chain, random_tree); generatorRegistry()
/// includes them.
std::vector<GeneratorInfo> paperGenerators();

}  // namespace loopsim
