#pragma once
// The vertices of a mesh file (STL, OBJ, DAE, ... through assimp), for
// collision: the detection collides with their convex hull, as MuJoCo does
// with mesh geoms.
#include <filesystem>
#include <string>
#include <vector>

#include <loopsim/spatial/types.hpp>

namespace loopsim {

struct MeshVertices {
  std::vector<Vector3> points;  // scaled, in the mesh file's frame (its node transforms applied)
  std::string problem;          // empty when read; else why not ("file not found", assimp's message)
};

/// Reads every vertex of every mesh in the file, scaled per axis. Never throws:
/// a file that cannot be read gives an empty point list and the reason.
MeshVertices readMeshVertices(const std::filesystem::path& file, const Vector3& scale);

}  // namespace loopsim
