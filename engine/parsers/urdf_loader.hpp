#pragma once
// URDF -> Model. Parsing is done by urdfdom after a strict first pass (see
// urdf_structure.hpp); every problem is a ModelError naming the file's base
// name, the element and the value. Non-fatal findings (ignored friction or
// mimic tags, missing mesh files, masses fixed to the world) are collected in
// Model::warnings; the loader itself prints nothing.
//
// Mapping:
//  - bodies are added depth-first from the root link, children in document order;
//  - revolute -> Revolute (limited), continuous -> Revolute (no position limits),
//    prismatic -> Prismatic, fixed -> link merged into its parent body
//    (inertia lumped, link kept as a MergedLink frame);
//  - the joint frame sits at the URDF joint origin and the child body frame
//    coincides with it;
//  - the root link is fixed to the world (body 0, its inertia ignored) unless
//    floating_base adds a Floating joint "root_joint" (or the file has a
//    URDF `floating` joint whose parent is the root link);
//  - <inertial> origin/mass/inertia -> Inertia in the link frame; a missing
//    <inertial> is zero;
//  - <dynamics damping> -> damping; visuals keep shape, placement, rgba and
//    the resolved mesh path.
//  - <collision> (box, sphere, cylinder, mesh) -> Model::collisions, on the
//    body the link is merged into, named after the link ("link/k" when it
//    has several); a mesh keeps its vertices (read with assimp; the convex
//    hull collides). URDF has no friction or bitmasks: the scene's apply.
//  - URDF+ (generalized_rbda's extension for closed chains): <loop
//    type="revolute">, <coupling> and joints' independent="false" are read by
//    loadUrdfMechanism as constraints (urdf_loops.hpp has the mapping);
//    loadUrdf, which returns the tree alone, refuses a file that has them.
#include <filesystem>
#include <string>
#include <vector>

#include <loopsim/constraints/constraint.hpp>
#include <loopsim/model/model.hpp>

namespace loopsim {

struct UrdfOptions {
  bool floating_base = false;  // add a Floating "root_joint" between the world and the root link
  bool strict = false;         // triangle-inequality violations become errors
};

/// A URDF+ file: the tree and its loop closures and couplings.
struct UrdfMechanism {
  Model model;
  std::vector<Constraint> constraints;          // <loop>s, then <coupling>s, in document order
  std::vector<std::string> independent_joints;  // of the loops' clusters; empty unless a joint is marked dependent
};

/// Loads a URDF file. Relative and package:// meshes resolve from the file's
/// directory. A file with URDF+ loops or couplings is refused (naming the
/// element): its tree alone would be an open chain; use loadUrdfMechanism.
Model loadUrdf(const std::filesystem::path& file, const UrdfOptions& options = {});

/// Loads URDF text; source_name names it in error messages. Relative meshes
/// resolve from the current directory.
Model loadUrdfString(const std::string& xml, const std::string& source_name, const UrdfOptions& options = {});

/// Loads a URDF or URDF+ file with its loops and couplings as constraints.
UrdfMechanism loadUrdfMechanism(const std::filesystem::path& file, const UrdfOptions& options = {});
UrdfMechanism loadUrdfMechanismString(const std::string& xml, const std::string& source_name,
                                      const UrdfOptions& options = {});

}  // namespace loopsim
