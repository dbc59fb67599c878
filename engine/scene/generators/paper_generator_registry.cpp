// The papers' loop mechanisms by name, with their parameters (see paper_mechanisms.hpp).
#include <loopsim/scene/generators/generator_arguments.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>

namespace loopsim {

namespace {

using Kind = GeneratorParameter::Kind;
using generators::Arguments;
using generators::defaultText;

/// length, width, mass_per_length, stiffness, damping: appended to every generator's parameters.
void addRodParameters(std::vector<GeneratorParameter>& parameters) {
  const RodParams rod;
  parameters.push_back({"length", Kind::Number, defaultText(rod.length), "nominal link length (m)", {}});
  parameters.push_back({"width", Kind::Number, defaultText(rod.width), "link cross-section (m)", {}});
  parameters.push_back({"mass_per_length", Kind::Number, defaultText(rod.mass_per_length), "kg/m", {}});
  parameters.push_back({"stiffness", Kind::Number, defaultText(rod.stiffness),
                        "torsional spring of every rod joint about its reference angle (N m/rad)", {}});
  parameters.push_back({"damping", Kind::Number, defaultText(rod.damping), "viscous damping of every rod joint (N m s/rad)", {}});
}

RodParams rodParams(const Arguments& a) {
  return {a.number("length"), a.number("width"), a.number("mass_per_length"), a.number("stiffness"),
          a.number("damping")};
}

GeneratorParameter integer(const std::string& name, int value, const std::string& doc) {
  return {name, Kind::Integer, std::to_string(value), doc, {}};
}

GeneratorParameter number(const std::string& name, double value, const std::string& doc) {
  return {name, Kind::Number, defaultText(value), doc, {}};
}

/// One entry: `make` reads the parsed arguments.
template <typename Make>
void add(std::vector<GeneratorInfo>& registry, const std::string& name, const std::string& doc,
         std::vector<GeneratorParameter> parameters, Make make) {
  addRodParameters(parameters);
  registry.push_back({name, doc, std::move(parameters), nullptr});
  registry.back().make = [info = registry.back(), make](const GeneratorArguments& given) {
    const Arguments a(info, given);
    return make(a);
  };
}

}  // namespace

std::vector<GeneratorInfo> paperGenerators() {
  std::vector<GeneratorInfo> r;
  const CycleParams cy;
  add(r, "cycle", "paper 001 Fig. 6: cycle of n >= 7 links closed by a weld; dimension 6, rank 6, n - 6 dof",
      {integer("links", cy.links, "number of links n (>= 7)")},
      [](const Arguments& a) { return cycleMechanism({a.integer("links"), rodParams(a)}); });

  const ChainOfLoopsParams cl;
  add(r, "chain_of_loops",
      "paper 001 Fig. 7: chain of m rings of L links, each welded to the link it hangs from; dimension 6m, rank 6m, "
      "1 + (L - 6)m dof; 1 + mL <= 2000 links",
      {integer("loops", cl.loops, "number of loops m"), integer("links_per_loop", cl.links_per_loop, "links per ring L (>= 7)")},
      [](const Arguments& a) {
        return chainOfLoops({a.integer("loops"), a.integer("links_per_loop"), rodParams(a)});
      });

  const CoupledWorstCaseParams cw;
  add(r, "coupled_worst_case",
      "paper 001 Fig. 8: m branches of b links from a stem of s links, welded to the ground, all loops coupled; "
      "dimension 6m, rank 6m, s + m(b - 6) dof; s + mb <= 2000 links",
      {integer("loops", cw.loops, "number of loops m"), integer("stem_links", cw.stem_links, "stem links s"),
       integer("branch_links", cw.branch_links, "links per branch b (>= 6)")},
      [](const Arguments& a) {
        return coupledWorstCase({a.integer("loops"), a.integer("stem_links"), a.integer("branch_links"), rodParams(a)});
      });

  const FavourableBranchingParams fb;
  add(r, "favourable_branching",
      "paper 001 Fig. 9: m branches of b links from one hub, consecutive tips welded; dimension 6(m - 1), rank "
      "6(m - 1), s + mb - 6(m - 1) dof; s + mb <= 2000 links",
      {integer("branches", fb.branches, "number of branches m (>= 2)"),
       integer("branch_links", fb.branch_links, "links per branch b (>= 6)"),
       integer("stem_links", fb.stem_links, "links from the world pivot to the hub s (0: the world is the hub)")},
      [](const Arguments& a) {
        return favourableBranching(
            {a.integer("branches"), a.integer("branch_links"), a.integer("stem_links"), rodParams(a)});
      });

  const LadderParams ld;
  add(r, "ladder",
      "paper 000 Fig. 4b: r rungs of c links welded to a fixed rail, a rail links between rungs; dimension 6r, rank "
      "6r, r(a + c - 6) dof; r(a + c) <= 2000 links",
      {integer("rungs", ld.rungs, "number of rungs r"), integer("rail_links", ld.rail_links, "rail links per rung a"),
       integer("rung_links", ld.rung_links, "links per rung c (>= 6)")},
      [](const Arguments& a) {
        return ladderMechanism({a.integer("rungs"), a.integer("rail_links"), a.integer("rung_links"), rodParams(a)});
      });

  const LongStemParams ls;
  add(r, "long_stem",
      "paper 000 Fig. 2e / paper 002 Fig. 3a: stem of s links, m branches of b links at each end welded to the "
      "ground; dimension 12m, rank 12m; s + 2mb <= 2000 links",
      {integer("stem_links", ls.stem_links, "stem links s (>= 2)"),
       integer("branches", ls.branches, "branches at each stem end m"),
       integer("branch_links", ls.branch_links, "links per branch b (>= 6)"),
       {"floating", Kind::Boolean, "true", "floating stem (else pivoted on the world)", {}}},
      [](const Arguments& a) {
        return longStem({a.integer("stem_links"), a.integer("branches"), a.integer("branch_links"),
                         a.boolean("floating"), rodParams(a)});
      });

  const Chain6dEveryKParams ck;
  add(r, "chain_6d_every_k",
      "paper 002 §IV-B: chain of n links, every k-th welded; dimension 6 floor(n/k), rank floor(n/k) min(6, k)",
      {integer("links", ck.links, "number of links n (<= 2000)"), integer("every", ck.every, "weld every k-th link")},
      [](const Arguments& a) { return chain6dEveryK({a.integer("links"), a.integer("every"), rodParams(a)}); });

  const GearedChainParams gc;
  add(r, "geared_chain",
      "paper 004 Fig. 8e: planar chain of n links, each joint geared to a rotor; n couplings, rank n, n dof",
      {integer("links", gc.links, "number of links n"), number("gear_ratio", gc.gear_ratio, "rotor turns per joint turn"),
       number("rotor_mass", gc.rotor_mass, "kg"), number("rotor_radius", gc.rotor_radius, "m")},
      [](const Arguments& a) {
        return gearedChain({a.integer("links"), a.number("gear_ratio"), a.number("rotor_mass"),
                            a.number("rotor_radius"), rodParams(a)});
      });

  const BeltChainParams bc;
  add(r, "belt_chain",
      "paper 004 Fig. 8f: planar chain of n links in pairs driven by parallel belts; n couplings, rank n, n dof",
      {integer("links", bc.links, "number of links n"), number("gear_ratio", bc.gear_ratio, "rotor turns per joint turn"),
       number("rotor_mass", bc.rotor_mass, "kg"), number("rotor_radius", bc.rotor_radius, "m")},
      [](const Arguments& a) {
        return beltChain({a.integer("links"), a.number("gear_ratio"), a.number("rotor_mass"),
                          a.number("rotor_radius"), rodParams(a)});
      });

  const RandomTreeParams rt;
  add(r, "random_tree",
      "random tree of n links with a branching factor, optionally w leaves welded to the world; dimension 6w, rank "
      "6w, n - 6w dof",
      {integer("links", rt.links, "number of links n"), integer("branching", rt.branching, "children per link at most"),
       integer("welds", rt.welds, "leaves welded to the world w"), integer("seed", rt.seed, "random seed")},
      [](const Arguments& a) {
        return randomTree({a.integer("links"), a.integer("branching"), a.integer("welds"), a.integer("seed"),
                           rodParams(a)});
      });
  return r;
}

}  // namespace loopsim
