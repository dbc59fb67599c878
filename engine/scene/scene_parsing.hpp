#pragma once
// Internal to engine/scene: the parts of the YAML scene loader.
#include <filesystem>
#include <vector>

#include <loopsim/scene/model_assembly.hpp>
#include <loopsim/scene/scene.hpp>
#include <loopsim/scene/yaml_value.hpp>

namespace loopsim::scene_yaml {

/// The forest of `models` and `bodies`, with the generators' constraints.
struct AssembledScene {
  Model model;
  VectorX q0;
  std::vector<Constraint> constraints;
  std::vector<std::string> model_files;
  /// URDF+ models' independent coordinates of their own loops (prefixed joint names).
  std::vector<std::string> independent_joints;
};
AssembledScene assembleModels(const YamlValue& doc, const std::filesystem::path& base_dir, const Vector3& gravity,
                              const std::string& scene_name);

/// The `constraints` list; placements default to closing at q0.
std::vector<Constraint> parseConstraints(const YamlValue& list, const Model& model, const VectorX& q0);

/// Name lookups failing with the nearest valid name.
int jointByName(const YamlValue& at, const Model& model, const std::string& name);
int frameByName(const YamlValue& at, const Model& model, const std::string& name);
int bodyByName(const YamlValue& at, const Model& model, const std::string& name);

/// {shape, size, mass, rgba}: box size = extents [x, y, z], sphere [r] (or r), cylinder and capsule
/// [r, length] (a capsule's length is its cylindrical part).
RigidShape parseShape(const YamlValue& map);

/// ground, obstacles, the free bodies' shapes (bodies[].friction, collide), exclude
/// and contact -> scene.geometry (null when nothing can touch), the contact solver
/// and its settings; obstacles' visuals are added to `model`.
void parseContact(const YamlValue& doc, Model& model, Scene& scene);

}  // namespace loopsim::scene_yaml
