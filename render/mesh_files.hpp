#pragma once
// Mesh files of a model's visuals: package:// resolution and loading through
// assimp, each file read once. Unreadable files are remembered so that each
// is reported once.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "render/gl/mesh.hpp"

namespace loopsim::render {

/// The file a mesh reference names, or nullopt. A reference that is already a
/// file is itself; "package://pkg/rest" is looked up under each directory of
/// $LOOPSIM_PACKAGE_PATH, then $ROS_PACKAGE_PATH (':'-separated), then the
/// model's folder and its ancestors (as <dir>/pkg/rest, or <dir>/rest when
/// <dir> is named pkg); other relative paths are taken from the model's folder.
std::optional<std::filesystem::path> resolveMeshFile(const std::string& reference, const std::filesystem::path& model_dir);

/// Triangles of every mesh in the file (node transforms applied); throws
/// std::runtime_error naming the file when assimp cannot read it.
MeshData loadMeshFile(const std::filesystem::path& file);

class MeshCache {
 public:
  /// The GPU mesh of a reference, or nullptr with `error` set (the same
  /// error again on later calls, so callers warn once per file).
  const GpuMesh* get(const std::string& reference, const std::filesystem::path& model_dir, std::string& error);

 private:
  struct Entry {
    std::unique_ptr<GpuMesh> mesh;
    std::string error;
  };
  std::map<std::string, Entry> entries_;  // keyed by model_dir + reference
};

}  // namespace loopsim::render
