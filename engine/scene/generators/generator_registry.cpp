// Generators by name for scenes: parameters arrive as YAML scalar text and are
// checked here against each parameter's kind.
#include <cmath>
#include <sstream>

#include "model/errors.hpp"
#include "scene/generators.hpp"

namespace loopsim {

namespace {

using Kind = GeneratorParameter::Kind;

class Arguments {
 public:
  Arguments(const GeneratorInfo& info, const GeneratorArguments& given) : info_(info), given_(given) {
    for (const auto& [name, value] : given) {
      if (parameter(name) == nullptr) fail(name, "unknown parameter of generator '" + info.name + "'");
    }
  }

  double number(const std::string& name) const {
    const std::string text = raw(name);
    std::size_t used = 0;
    double x = 0.0;
    try {
      x = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || text.empty() || !std::isfinite(x)) fail(name, "expected a finite number, got '" + text + "'");
    return x;
  }
  int integer(const std::string& name) const {
    const double x = number(name);
    if (x != std::floor(x) || std::abs(x) > 1e9) fail(name, "expected an integer, got '" + raw(name) + "'");
    return static_cast<int>(x);
  }
  bool boolean(const std::string& name) const {
    const std::string text = raw(name);
    if (text == "true") return true;
    if (text == "false") return false;
    fail(name, "expected true or false, got '" + text + "'");
  }
  std::string choice(const std::string& name) const {
    const std::string text = raw(name);
    const GeneratorParameter* p = parameter(name);
    for (const auto& c : p->choices) {
      if (c == text) return text;
    }
    std::string all;
    for (const auto& c : p->choices) all += (all.empty() ? "" : ", ") + c;
    fail(name, "expected one of " + all + ", got '" + text + "'");
  }

 private:
  const GeneratorParameter* parameter(const std::string& name) const {
    for (const auto& p : info_.parameters) {
      if (p.name == name) return &p;
    }
    return nullptr;
  }
  std::string raw(const std::string& name) const {
    const auto it = given_.find(name);
    if (it != given_.end()) return it->second;
    return parameter(name)->default_value;
  }
  [[noreturn]] void fail(const std::string& name, const std::string& why) const {
    throw ModelError("", "generator '" + info_.name + "' parameter '" + name + "'", why);
  }

  const GeneratorInfo& info_;
  const GeneratorArguments& given_;
};

std::string text(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

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
