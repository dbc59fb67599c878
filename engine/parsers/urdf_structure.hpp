#pragma once
// First pass over a URDF document, before urdfdom sees it. urdfdom reports
// most problems only through console_bridge (or not at all: duplicate names,
// NaN values), so this pass checks the XML, names, tree shape and every
// numeric attribute itself and throws ModelError naming file, element and
// value. It also records the joints in document order, so bodies are numbered
// the way the file reads (urdfdom orders children by name).
#include <map>
#include <string>
#include <vector>

namespace loopsim::urdf_detail {

struct UrdfJointEntry {
  std::string name;
  std::string type;  // as written: revolute, continuous, prismatic, fixed, floating
  std::string parent;
  std::string child;
};

struct UrdfStructure {
  std::string robot_name;
  std::string root_link;
  std::vector<std::string> links;                           // document order
  std::vector<UrdfJointEntry> joints;                       // document order
  std::map<std::string, std::vector<int>> child_joints;     // link -> joint indices, document order
};

/// Throws ModelError (file = source_name) on malformed XML, missing or
/// duplicate names, joints naming missing links, several roots, links with two
/// parents, cycles, unsupported joint types, missing limits on revolute or
/// prismatic joints and on any non-numeric, NaN or Inf number.
UrdfStructure scanUrdfStructure(const std::string& xml, const std::string& source_name);

}  // namespace loopsim::urdf_detail
