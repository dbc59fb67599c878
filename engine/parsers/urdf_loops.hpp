#pragma once
// URDF+ loop closures and couplings -> constraints on the loaded tree.
//
//  - <loop type="revolute"> -> a revolute loop constraint: frame A on the
//    predecessor link (its <origin>, z turned onto <axis>), frame B likewise
//    on the successor. When every joint between the two links and their
//    nearest common ancestor is a revolute joint about an axis parallel to
//    the loop's (or a prismatic one across it), the loop is planar and only
//    its two in-plane rows {x, y} are kept: the other three are identically
//    satisfied and would make the rows dependent. Otherwise all five rows.
//  - <coupling> -> a coupling Σ_pred ratio·q − Σ_succ q = 0 over the one-dof
//    joints from the nearest common ancestor to each link (a rotor turning
//    `ratio` times its joint).
//  - independent="false" marks a dependent coordinate of the loop clusters
//    (paper 004): the cluster joints not so marked are the independent ones.
#include <string>
#include <vector>

#include <loopsim/constraints/constraint.hpp>
#include <loopsim/model/model.hpp>
#include <loopsim/parsers/urdf_structure.hpp>

namespace loopsim::urdf_detail {

struct UrdfLoopConstraints {
  std::vector<Constraint> constraints;          // loops, then couplings, in document order
  std::vector<std::string> independent_joints;  // empty unless the file marks a dependent joint
};

/// Throws ModelError (file = source_name) naming the element when a loop's
/// ends are one body, a coupling moves no joint or a multi-dof one, or a
/// joint marked dependent belongs to no loop or coupling of a file that has
/// some. In a file with none the marks are only warned about (Model::warnings).
UrdfLoopConstraints urdfLoopConstraints(Model& model, const UrdfStructure& structure, const std::string& source_name);

}  // namespace loopsim::urdf_detail
