#include <loopsim/parsers/urdf_structure.hpp>

#include <tinyxml.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>

#include <loopsim/model/errors.hpp>

namespace loopsim::urdf_detail {

namespace {

// Every numeric attribute urdfdom reads, with its number of components.
struct NumericAttribute {
  const char* element;
  const char* attribute;
  int count;
};
constexpr NumericAttribute kNumericAttributes[] = {
    {"origin", "xyz", 3},          {"origin", "rpy", 3},
    {"axis", "xyz", 3},            {"limit", "lower", 1},
    {"limit", "upper", 1},         {"limit", "velocity", 1},
    {"limit", "effort", 1},        {"dynamics", "damping", 1},
    {"dynamics", "friction", 1},   {"mimic", "multiplier", 1},
    {"mimic", "offset", 1},        {"calibration", "rising", 1},
    {"calibration", "falling", 1}, {"safety_controller", "soft_lower_limit", 1},
    {"safety_controller", "soft_upper_limit", 1}, {"safety_controller", "k_position", 1},
    {"safety_controller", "k_velocity", 1},       {"mass", "value", 1},
    {"inertia", "ixx", 1},         {"inertia", "ixy", 1},
    {"inertia", "ixz", 1},         {"inertia", "iyy", 1},
    {"inertia", "iyz", 1},         {"inertia", "izz", 1},
    {"box", "size", 3},            {"sphere", "radius", 1},
    {"cylinder", "radius", 1},     {"cylinder", "length", 1},
    {"mesh", "scale", 3},          {"color", "rgba", 4},
    {"ratio", "value", 1},
};

std::string lineOf(const TiXmlNode* node) { return "line " + std::to_string(node->Row()); }

/// Parses one token as a double; false when it is not a number at all.
bool parseNumber(std::string_view token, double& value) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  const char* first = token.data();
  const char* last = first + token.size();
  const auto [end, ec] = std::from_chars(first, last, value);
  if (end != last || token.empty()) return false;
  if (ec == std::errc::result_out_of_range) {
    // Overflow becomes +-HUGE_VAL (rejected below as Inf), underflow ~0.
    value = std::strtod(std::string(token).c_str(), nullptr);
    return true;
  }
  return ec == std::errc();
}

std::vector<std::string> splitWhitespace(const std::string& text) {
  std::vector<std::string> tokens;
  std::string current;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!current.empty()) tokens.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) tokens.push_back(std::move(current));
  return tokens;
}

/// Checks the numeric attributes of `element` and of everything below it.
void checkNumbers(const TiXmlElement* element, const std::string& file, const std::string& owner) {
  for (const auto& spec : kNumericAttributes) {
    if (element->ValueStr() != spec.element) continue;
    const char* text = element->Attribute(spec.attribute);
    if (text == nullptr) continue;
    const std::string where = std::string("<") + spec.element + " " + spec.attribute + "=\"" + text + "\"> (" +
                              lineOf(element) + ")";
    const std::vector<std::string> tokens = splitWhitespace(text);
    if (static_cast<int>(tokens.size()) != spec.count) {
      throw ModelError(file, owner, where + ": expected " + std::to_string(spec.count) + " number" +
                                        (spec.count > 1 ? "s" : "") + ", got " + std::to_string(tokens.size()));
    }
    for (const std::string& token : tokens) {
      double value = 0.0;
      if (!parseNumber(token, value)) throw ModelError(file, owner, where + ": " + inQuotes(token) + " is not a number");
      if (!std::isfinite(value)) throw ModelError(file, owner, where + ": NaN or Inf value " + inQuotes(token));
    }
  }
  for (const TiXmlElement* child = element->FirstChildElement(); child != nullptr;
       child = child->NextSiblingElement()) {
    checkNumbers(child, file, owner);
  }
}

std::string requireName(const TiXmlElement* element, const std::string& file) {
  const char* name = element->Attribute("name");
  if (name == nullptr || *name == '\0') {
    throw ModelError(file, "<" + element->ValueStr() + "> (" + lineOf(element) + ")", "missing name attribute");
  }
  return name;
}

std::string requireLinkReference(const TiXmlElement* joint, const char* which, const std::string& file,
                                 const std::string& owner) {
  const TiXmlElement* ref = joint->FirstChildElement(which);
  const char* link = ref != nullptr ? ref->Attribute("link") : nullptr;
  if (link == nullptr || *link == '\0') {
    throw ModelError(file, owner, std::string("missing <") + which + " link=\"...\"> element");
  }
  return link;
}

/// Reads three numbers already checked by checkNumbers; `fallback` when absent.
std::array<double, 3> threeNumbers(const TiXmlElement* element, const char* attribute, std::array<double, 3> fallback) {
  const char* text = element != nullptr ? element->Attribute(attribute) : nullptr;
  if (text == nullptr) return fallback;
  const std::vector<std::string> tokens = splitWhitespace(text);
  std::array<double, 3> out{};
  for (int k = 0; k < 3; ++k) parseNumber(tokens[static_cast<std::size_t>(k)], out[static_cast<std::size_t>(k)]);
  return out;
}

/// <predecessor link=".."> or <successor link="..">, its origin and the link's existence.
std::string loopEnd(const TiXmlElement* element, const char* which, const std::string& file, const std::string& owner,
                    const std::map<std::string, int>& link_line, UrdfOrigin* origin) {
  const std::string link = requireLinkReference(element, which, file, owner);
  if (link_line.count(link) == 0) {
    throw ModelError(file, owner, std::string("<") + which + "> link " + inQuotes(link) + " does not exist");
  }
  if (origin != nullptr) {
    const TiXmlElement* o = element->FirstChildElement(which)->FirstChildElement("origin");
    origin->xyz = threeNumbers(o, "xyz", {0.0, 0.0, 0.0});
    origin->rpy = threeNumbers(o, "rpy", {0.0, 0.0, 0.0});
  }
  return link;
}

/// URDF+ loop closures and couplings (generalized_rbda's files), read after the links.
void readLoopExtensions(const TiXmlElement* robot, const std::string& file, const std::map<std::string, int>& link_line,
                        UrdfStructure& out) {
  std::set<std::string> names;
  const auto uniqueName = [&](const TiXmlElement* e, const std::set<std::string>& children) {
    const std::string name = requireName(e, file);
    const std::string owner = "<" + e->ValueStr() + " name=" + inQuotes(name) + "> (" + lineOf(e) + ")";
    if (!names.insert(name).second) throw ModelError(file, owner, "duplicate loop or coupling name");
    for (const TiXmlElement* child = e->FirstChildElement(); child != nullptr; child = child->NextSiblingElement()) {
      if (children.count(child->ValueStr()) == 0) {
        std::string known;
        for (const std::string& c : children) known += (known.empty() ? "<" : ">, <") + c;
        throw ModelError(file, owner, "unknown element <" + child->ValueStr() + "> (" + lineOf(child) +
                                          "); expected " + known + ">");
      }
    }
    checkNumbers(e, file, owner);
    return std::pair{name, owner};
  };
  for (const TiXmlElement* e = robot->FirstChildElement("loop"); e != nullptr; e = e->NextSiblingElement("loop")) {
    const auto [name, owner] = uniqueName(e, {"predecessor", "successor", "axis"});
    UrdfLoopEntry loop;
    loop.name = name;
    loop.line = e->Row();
    const char* type = e->Attribute("type");
    if (type == nullptr || std::string(type) != "revolute") {
      throw ModelError(file, owner, std::string("loop type ") + (type == nullptr ? "missing" : inQuotes(type)) +
                                        ": this loader reads type=\"revolute\" loops");
    }
    loop.predecessor = loopEnd(e, "predecessor", file, owner, link_line, &loop.predecessor_origin);
    loop.successor = loopEnd(e, "successor", file, owner, link_line, &loop.successor_origin);
    if (loop.predecessor == loop.successor) throw ModelError(file, owner, "predecessor and successor are the same link");
    const TiXmlElement* axis = e->FirstChildElement("axis");
    if (axis == nullptr) throw ModelError(file, owner, "missing <axis xyz=\"...\"> element");
    loop.axis = threeNumbers(axis, "xyz", {1.0, 0.0, 0.0});
    if (loop.axis[0] == 0.0 && loop.axis[1] == 0.0 && loop.axis[2] == 0.0) {
      throw ModelError(file, owner, "<axis xyz=\"0 0 0\">: the loop's axis must not be zero");
    }
    out.loops.push_back(std::move(loop));
  }
  for (const TiXmlElement* e = robot->FirstChildElement("coupling"); e != nullptr;
       e = e->NextSiblingElement("coupling")) {
    const auto [name, owner] = uniqueName(e, {"predecessor", "successor", "ratio"});
    UrdfCouplingEntry coupling;
    coupling.name = name;
    coupling.line = e->Row();
    coupling.predecessor = loopEnd(e, "predecessor", file, owner, link_line, nullptr);
    coupling.successor = loopEnd(e, "successor", file, owner, link_line, nullptr);
    if (coupling.predecessor == coupling.successor) {
      throw ModelError(file, owner, "predecessor and successor are the same link");
    }
    const TiXmlElement* ratio = e->FirstChildElement("ratio");
    const char* value = ratio != nullptr ? ratio->Attribute("value") : nullptr;
    if (value == nullptr) throw ModelError(file, owner, "missing <ratio value=\"...\"> element");
    parseNumber(value, coupling.ratio);
    if (coupling.ratio == 0.0) throw ModelError(file, owner, "<ratio value=" + inQuotes(value) + ">: must not be zero");
    out.couplings.push_back(std::move(coupling));
  }
}

}  // namespace

UrdfStructure scanUrdfStructure(const std::string& xml, const std::string& file) {
  TiXmlDocument doc;
  doc.Parse(xml.c_str());
  if (doc.Error()) {
    throw ModelError(file, "line " + std::to_string(doc.ErrorRow()) + ", column " + std::to_string(doc.ErrorCol()),
                     std::string("malformed XML: ") + doc.ErrorDesc());
  }
  const TiXmlElement* robot = doc.RootElement();
  if (robot == nullptr) throw ModelError(file, "", "malformed XML: no root element");
  if (robot->ValueStr() != "robot") {
    throw ModelError(file, "<" + robot->ValueStr() + "> (" + lineOf(robot) + ")",
                     "root element must be <robot>");
  }

  UrdfStructure out;
  const char* robot_name = robot->Attribute("name");
  out.robot_name = robot_name != nullptr ? robot_name : "";
  const std::string robot_element = "robot '" + out.robot_name + "'";

  std::map<std::string, int> link_line;
  for (const TiXmlElement* e = robot->FirstChildElement("link"); e != nullptr; e = e->NextSiblingElement("link")) {
    const std::string name = requireName(e, file);
    const std::string owner = "link " + inQuotes(name);
    if (const auto it = link_line.find(name); it != link_line.end()) {
      throw ModelError(file, owner, "duplicate link name (" + lineOf(e) + ", first defined on line " +
                                        std::to_string(it->second) + ")");
    }
    link_line[name] = e->Row();
    out.links.push_back(name);
    checkNumbers(e, file, owner);
  }
  for (const TiXmlElement* e = robot->FirstChildElement("material"); e != nullptr;
       e = e->NextSiblingElement("material")) {
    checkNumbers(e, file, "material " + inQuotes(requireName(e, file)));
  }
  if (out.links.empty()) throw ModelError(file, robot_element, "no <link> element");

  std::map<std::string, int> joint_line;
  std::map<std::string, std::string> parent_joint_of;  // child link -> joint name
  for (const TiXmlElement* e = robot->FirstChildElement("joint"); e != nullptr; e = e->NextSiblingElement("joint")) {
    UrdfJointEntry joint;
    joint.name = requireName(e, file);
    const std::string owner = "joint " + inQuotes(joint.name);
    if (const auto it = joint_line.find(joint.name); it != joint_line.end()) {
      throw ModelError(file, owner, "duplicate joint name (" + lineOf(e) + ", first defined on line " +
                                        std::to_string(it->second) + ")");
    }
    joint_line[joint.name] = e->Row();

    const char* type = e->Attribute("type");
    if (type == nullptr) throw ModelError(file, owner, "missing type attribute");
    joint.type = type;
    if (joint.type == "planar") {
      throw ModelError(file, owner, "unsupported joint type 'planar'");
    }
    static const std::set<std::string> kKnownTypes = {"revolute", "continuous", "prismatic", "fixed", "floating"};
    if (kKnownTypes.count(joint.type) == 0) throw ModelError(file, owner, "unknown joint type " + inQuotes(joint.type));

    if (const char* independent = e->Attribute("independent")) {
      // URDF+: the paper-004 coordinates of the joint's loop cluster.
      const std::string value = independent;
      if (value != "true" && value != "false") {
        throw ModelError(file, owner, "independent=" + inQuotes(value) + " (" + lineOf(e) + "): expected 'true' or 'false'");
      }
      if (value == "false" && joint.type != "revolute" && joint.type != "continuous" && joint.type != "prismatic") {
        throw ModelError(file, owner, "independent=\"false\" on a " + joint.type +
                                          " joint: only one-dof joints are coordinates of a loop");
      }
      if (value == "false") out.dependent_joints.push_back(joint.name);
    }

    joint.parent = requireLinkReference(e, "parent", file, owner);
    joint.child = requireLinkReference(e, "child", file, owner);
    if (link_line.count(joint.parent) == 0) {
      throw ModelError(file, owner, "parent link " + inQuotes(joint.parent) + " does not exist");
    }
    if (link_line.count(joint.child) == 0) {
      throw ModelError(file, owner, "child link " + inQuotes(joint.child) + " does not exist");
    }
    if (joint.parent == joint.child) throw ModelError(file, owner, "link " + inQuotes(joint.child) + " is its own parent");
    if (const auto it = parent_joint_of.find(joint.child); it != parent_joint_of.end()) {
      throw ModelError(file, "link " + inQuotes(joint.child),
                       "has two parent joints, " + inQuotes(it->second) + " and " + inQuotes(joint.name));
    }
    parent_joint_of[joint.child] = joint.name;

    checkNumbers(e, file, owner);
    if (joint.type == "revolute" || joint.type == "prismatic") {
      const TiXmlElement* limit = e->FirstChildElement("limit");
      if (limit == nullptr) {
        throw ModelError(file, owner, joint.type + " joint needs a <limit> element" +
                                          (joint.type == "revolute" ? " (use type 'continuous' for no limits)" : ""));
      }
    }
    if (const TiXmlElement* limit = e->FirstChildElement("limit")) {
      for (const char* attribute : {"velocity", "effort"}) {
        double value = 0.0;
        const char* text = limit->Attribute(attribute);
        if (text == nullptr) {
          throw ModelError(file, owner, std::string("<limit> (") + lineOf(limit) + ") has no " + attribute + " attribute");
        }
        if (text != nullptr && parseNumber(text, value) && value < 0.0) {
          throw ModelError(file, owner, std::string("negative ") + attribute + " limit " + inQuotes(text));
        }
      }
    }
    out.child_joints[joint.parent].push_back(static_cast<int>(out.joints.size()));
    out.joints.push_back(std::move(joint));
  }

  std::vector<std::string> roots;
  for (const std::string& link : out.links) {
    if (parent_joint_of.count(link) == 0) roots.push_back(link);
  }
  if (roots.empty()) throw ModelError(file, robot_element, "no root link: the joints form a cycle");
  if (roots.size() > 1) {
    std::string list;
    for (const std::string& r : roots) list += (list.empty() ? "" : ", ") + inQuotes(r);
    throw ModelError(file, robot_element, "several root links (" + list + "); a URDF tree has exactly one");
  }
  out.root_link = roots.front();

  // With one root and at most one parent per link, links the root cannot
  // reach sit on a cycle.
  std::set<std::string> reached;
  std::vector<std::string> stack{out.root_link};
  while (!stack.empty()) {
    const std::string link = stack.back();
    stack.pop_back();
    reached.insert(link);
    for (int j : out.child_joints[link]) stack.push_back(out.joints[j].child);
  }
  if (reached.size() != out.links.size()) {
    std::string list;
    for (const std::string& link : out.links) {
      if (reached.count(link) == 0) list += (list.empty() ? "" : ", ") + inQuotes(link);
    }
    throw ModelError(file, robot_element, "links " + list + " form a cycle unreachable from root " +
                                              inQuotes(out.root_link));
  }

  for (const UrdfJointEntry& joint : out.joints) {
    if (joint.type == "floating" && joint.parent != out.root_link) {
      throw ModelError(file, "joint " + inQuotes(joint.name),
                       "unsupported floating joint inside the tree (parent " + inQuotes(joint.parent) +
                           " is not the root link " + inQuotes(out.root_link) + ")");
    }
  }
  readLoopExtensions(robot, file, link_line, out);
  return out;
}

}  // namespace loopsim::urdf_detail
