#pragma once
// First pass over an MJCF document, before MuJoCo sees it: checks the XML
// (so malformed files get a ModelError with line and column), follows
// <include> files, and lists the asset files the document references
// (<mesh>, <texture>, <hfield>) with their resolved paths. MuJoCo fails to
// compile a model whose asset files are absent, and its compiled mjModel (2.2)
// keeps neither mesh file names nor mesh scales, so the loader needs both.
//
// Path rules follow MuJoCo 2.2: a relative file resolves from the main file's
// directory joined with <compiler meshdir> (meshes) or <compiler texturedir>
// (textures, height fields); <compiler assetdir> sets both.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <loopsim/spatial/types.hpp>

namespace loopsim::mjcf_detail {

struct MjcfAssetFile {
  enum class Kind { Mesh, Texture, HeightField };
  Kind kind = Kind::Mesh;
  std::string element;     // e.g. "mesh 'left-knee-0'" for messages
  std::string name;        // asset name (a mesh defaults to its file's stem)
  std::string reference;   // the file attribute as written
  std::filesystem::path path;  // resolved
  bool found = false;
  Vector3 scale = Vector3::Ones();  // meshes: the scale attribute
};

struct MjcfAssetScan {
  std::string model_name;  // <mujoco model="...">
  std::vector<MjcfAssetFile> files;
  std::set<std::string> bodies_with_inertial;  // named <body> elements with an <inertial> child
  std::string inertia_from_geom = "auto";      // <compiler inertiafromgeom>
  /// Whether MuJoCo takes the named body's inertia from its <inertial>
  /// element (false: computed from its geoms).
  bool hasInertial(const std::string& body) const {
    return inertia_from_geom != "true" && bodies_with_inertial.count(body) != 0;
  }
  /// Mesh entry by mesh name, nullptr when unknown.
  const MjcfAssetFile* mesh(const std::string& name) const;
};

/// Throws ModelError (naming the file, line and column) on unreadable or
/// malformed XML, a root other than <mujoco>, or a missing <include> file.
MjcfAssetScan scanMjcfAssets(const std::filesystem::path& file);

/// A small closed mesh in the file format of `extension` (".obj", ".stl",
/// ".msh"; anything else gets OBJ text): an axis-aligned box centred at the
/// origin with half extents proportional to (1, 2, 3) / |scale|, so that after
/// MuJoCo applies the mesh scale its principal axes are the coordinate axes
/// in MuJoCo's order and the compiler leaves the geom pose as written.
std::string placeholderMesh(const std::string& extension, const Vector3& scale);

/// A valid 1x1 grey PNG (textures and PNG height fields).
std::string placeholderPng();

}  // namespace loopsim::mjcf_detail
