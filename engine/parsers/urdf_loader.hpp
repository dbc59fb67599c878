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
#include <filesystem>
#include <string>

#include <loopsim/model/model.hpp>

namespace loopsim {

struct UrdfOptions {
  bool floating_base = false;  // add a Floating "root_joint" between the world and the root link
  bool strict = false;         // triangle-inequality violations become errors
};

/// Loads a URDF file. Relative and package:// meshes resolve from the file's directory.
Model loadUrdf(const std::filesystem::path& file, const UrdfOptions& options = {});

/// Loads URDF text; source_name names it in error messages. Relative meshes
/// resolve from the current directory.
Model loadUrdfString(const std::string& xml, const std::string& source_name, const UrdfOptions& options = {});

}  // namespace loopsim
