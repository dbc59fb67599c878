// Generators by name for scenes: parameters arrive as YAML scalar text and are
// checked against each parameter's kind (generator_arguments.hpp).
#include <loopsim/scene/generators.hpp>
#include <loopsim/scene/generators/generator_arguments.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>

namespace loopsim {

namespace {

using Kind = GeneratorParameter::Kind;

using generators::Arguments;

std::string text(double x) { return generators::defaultText(x); }

std::vector<GeneratorInfo> makeRegistry() {
  std::vector<GeneratorInfo> r;
  const FourBarParams fb;
  r.push_back({"four_bar",
               "planar four-bar closed by in-plane revolute rows {x, y}: dimension 2, rank 2, 1 dof",
               {{"ground", Kind::Number, text(fb.ground), "distance between the ground pivots (m)", {}},
                {"crank", Kind::Number, text(fb.crank), "crank length (m)", {}},
                {"coupler", Kind::Number, text(fb.coupler), "coupler length (m)", {}},
                {"rocker", Kind::Number, text(fb.rocker), "rocker length (m)", {}},
                {"crank_angle", Kind::Number, text(fb.crank_angle), "initial crank angle (rad)", {}},
                {"width", Kind::Number, text(fb.width), "link cross-section (m)", {}},
                {"mass_per_length", Kind::Number, text(fb.mass_per_length), "kg/m", {}}},
               nullptr});
  r.back().make = [info = r.back()](const GeneratorArguments& given) {
    const Arguments a(info, given);
    return fourBar({a.number("ground"), a.number("crank"), a.number("coupler"), a.number("rocker"),
                    a.number("crank_angle"), a.number("width"), a.number("mass_per_length")});
  };

  const SpatialChainParams sc;
  r.push_back({"spatial_chain",
               "spatial closed chain of n >= 6 links, tip closed by a connect (dimension 3, rank 3) or a revolute "
               "loop (dimension 5, rank 5)",
               {{"links", Kind::Integer, std::to_string(sc.links), "number of links (>= 6)", {}},
                {"length", Kind::Number, text(sc.length), "link length (m)", {}},
                {"tilt", Kind::Number, text(sc.tilt), "axis tilt from the polygon normal (rad)", {}},
                {"closure", Kind::Choice, "connect", "loop closure kind", {"connect", "revolute"}},
                {"width", Kind::Number, text(sc.width), "link cross-section (m)", {}},
                {"mass_per_length", Kind::Number, text(sc.mass_per_length), "kg/m", {}}},
               nullptr});
  r.back().make = [info = r.back()](const GeneratorArguments& given) {
    const Arguments a(info, given);
    return spatialChain({a.integer("links"), a.number("length"), a.number("tilt"), a.choice("closure") == "revolute",
                         a.number("width"), a.number("mass_per_length")});
  };

  const PendulumChainParams pc;
  r.push_back({"pendulum_chain",
               "hanging chain of revolute links with non-parallel axes, optionally tip-welded (dimension 6, rank 6)",
               {{"links", Kind::Integer, std::to_string(pc.links), "number of links (>= 7 with weld_tip)", {}},
                {"length", Kind::Number, text(pc.length), "link length (m)", {}},
                {"bend", Kind::Number, text(pc.bend), "amplitude of the initial bend pattern (rad)", {}},
                {"weld_tip", Kind::Boolean, "true", "weld the tip to the world where it hangs", {}},
                {"width", Kind::Number, text(pc.width), "link cross-section (m)", {}},
                {"mass_per_length", Kind::Number, text(pc.mass_per_length), "kg/m", {}}},
               nullptr});
  r.back().make = [info = r.back()](const GeneratorArguments& given) {
    const Arguments a(info, given);
    return pendulumChain({a.integer("links"), a.number("length"), a.number("bend"), a.boolean("weld_tip"),
                          a.number("width"), a.number("mass_per_length")});
  };

  const HumanoidTreeParams ht;
  r.push_back({"humanoid_tree",
               "floating humanoid tree, 30 joints, optionally both soles welded (dimension 12, rank 12)",
               {{"knee_bend", Kind::Number, text(ht.knee_bend), "knee flexion of the standing pose (rad)", {}},
                {"weld_feet", Kind::Boolean, "true", "weld both soles to the world where they stand", {}}},
               nullptr});
  r.back().make = [info = r.back()](const GeneratorArguments& given) {
    const Arguments a(info, given);
    return humanoidTree({a.number("knee_bend"), a.boolean("weld_feet")});
  };

  r.push_back({"redundant_mechanism",
               "knowingly rank-deficient: planar_connect (dimension 3, rank 2) or duplicate_connect (dimension 6, "
               "rank 3)",
               {{"variant", Kind::Choice, "planar_connect", "which redundant set",
                 {"planar_connect", "duplicate_connect"}}},
               nullptr});
  r.back().make = [info = r.back()](const GeneratorArguments& given) {
    const Arguments a(info, given);
    RedundantMechanismParams p;
    p.variant = a.choice("variant") == "planar_connect" ? RedundantMechanismParams::Variant::PlanarConnect
                                                        : RedundantMechanismParams::Variant::DuplicateConnect;
    return redundantMechanism(p);
  };
  // The papers' loop mechanisms (paper_mechanisms.hpp).
  for (GeneratorInfo& info : paperGenerators()) r.push_back(std::move(info));
  return r;
}

}  // namespace

const std::vector<GeneratorInfo>& generatorRegistry() {
  static const std::vector<GeneratorInfo> registry = makeRegistry();
  return registry;
}

const GeneratorInfo* findGenerator(const std::string& name) {
  for (const auto& info : generatorRegistry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

}  // namespace loopsim
