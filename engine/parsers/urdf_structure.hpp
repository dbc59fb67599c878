#pragma once
// First pass over a URDF document, before urdfdom sees it. urdfdom reports
// most problems only through console_bridge (or not at all: duplicate names,
// NaN values), so this pass checks the XML, names, tree shape and every
// numeric attribute itself and throws ModelError naming file, element and
// value. It also records the joints in document order, so bodies are numbered
// the way the file reads (urdfdom orders children by name).
#include <array>
#include <map>
#include <string>
#include <vector>

namespace loopsim::urdf_detail {

/// A name or value as the URDF loaders' messages quote it: 'name'.
inline std::string inQuotes(const std::string& s) { return "'" + s + "'"; }

struct UrdfJointEntry {
  std::string name;
  std::string type;  // as written: revolute, continuous, prismatic, fixed, floating
  std::string parent;
  std::string child;
};

/// An <origin xyz rpy> as written (zeros when absent).
struct UrdfOrigin {
  std::array<double, 3> xyz{0.0, 0.0, 0.0};
  std::array<double, 3> rpy{0.0, 0.0, 0.0};
};

/// URDF+ <loop type="revolute">: a loop-closing revolute joint between a
/// frame on the predecessor link and one on the successor link, turning
/// about `axis` (in both frames).
struct UrdfLoopEntry {
  std::string name;
  int line = 0;
  std::string predecessor, successor;  // link names
  UrdfOrigin predecessor_origin, successor_origin;
  std::array<double, 3> axis{1.0, 0.0, 0.0};
};

/// URDF+ <coupling>: the successor's joints turn `ratio` times the
/// predecessor's (each summed from the two links' nearest common ancestor).
struct UrdfCouplingEntry {
  std::string name;
  int line = 0;
  std::string predecessor, successor;  // link names
  double ratio = 1.0;
};

struct UrdfStructure {
  std::string robot_name;
  std::string root_link;
  std::vector<std::string> links;                           // document order
  std::vector<UrdfJointEntry> joints;                       // document order
  std::map<std::string, std::vector<int>> child_joints;     // link -> joint indices, document order
  std::vector<UrdfLoopEntry> loops;                         // URDF+ extensions, document order
  std::vector<UrdfCouplingEntry> couplings;
  std::vector<std::string> dependent_joints;                // joints with independent="false"
};

/// Throws ModelError (file = source_name) on malformed XML, missing or
/// duplicate names, joints naming missing links, several roots, links with two
/// parents, cycles, unsupported joint types, missing limits on revolute or
/// prismatic joints and on any non-numeric, NaN or Inf number; and on URDF+
/// <loop> and <coupling> elements it cannot read (unknown type, missing or
/// unknown links, a zero axis or ratio) and independent attributes other than
/// "true" or "false".
UrdfStructure scanUrdfStructure(const std::string& xml, const std::string& source_name);

}  // namespace loopsim::urdf_detail
