#include <loopsim/parsers/mesh_vertices.hpp>

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <system_error>

namespace loopsim {

namespace {

void collect(const aiScene& scene, const aiNode& node, const aiMatrix4x4& parent, const Vector3& scale,
             std::vector<Vector3>& out) {
  const aiMatrix4x4 transform = parent * node.mTransformation;
  for (unsigned k = 0; k < node.mNumMeshes; ++k) {
    const aiMesh& mesh = *scene.mMeshes[node.mMeshes[k]];
    for (unsigned i = 0; i < mesh.mNumVertices; ++i) {
      const aiVector3D p = transform * mesh.mVertices[i];
      out.emplace_back(scale.x() * p.x, scale.y() * p.y, scale.z() * p.z);
    }
  }
  for (unsigned c = 0; c < node.mNumChildren; ++c) collect(scene, *node.mChildren[c], transform, scale, out);
}

}  // namespace

MeshVertices readMeshVertices(const std::filesystem::path& file, const Vector3& scale) {
  MeshVertices result;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    result.problem = "file not found";
    return result;
  }
  Assimp::Importer importer;
  // Only positions are needed; a face-per-vertex file (OBJ, STL) lists shared corners once.
  const aiScene* scene = importer.ReadFile(file.string(), aiProcess_JoinIdenticalVertices);
  if (scene == nullptr || scene->mRootNode == nullptr) {
    result.problem = importer.GetErrorString();
    if (result.problem.empty()) result.problem = "no mesh in the file";
    return result;
  }
  collect(*scene, *scene->mRootNode, aiMatrix4x4(), scale, result.points);
  if (result.points.empty()) result.problem = "the file holds no vertices";
  return result;
}

}  // namespace loopsim
