#include "render/mesh_files.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include <loopsim/parsers/mesh_path.hpp>

namespace loopsim::render {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> searchPath(const char* variable) {
  std::vector<fs::path> dirs;
  const char* value = std::getenv(variable);
  if (value == nullptr) return dirs;
  std::stringstream list(value);
  std::string dir;
  while (std::getline(list, dir, ':')) {
    if (!dir.empty()) dirs.emplace_back(dir);
  }
  return dirs;
}

void appendNode(const aiScene& scene, const aiNode& node, const aiMatrix4x4& parent, MeshData& out) {
  const aiMatrix4x4 transform = parent * node.mTransformation;
  aiMatrix3x3 normal_transform(transform);
  normal_transform.Inverse().Transpose();
  for (unsigned k = 0; k < node.mNumMeshes; ++k) {
    const aiMesh& mesh = *scene.mMeshes[node.mMeshes[k]];
    const std::uint32_t base = out.vertexCount();
    for (unsigned i = 0; i < mesh.mNumVertices; ++i) {
      const aiVector3D p = transform * mesh.mVertices[i];
      aiVector3D n = mesh.HasNormals() ? normal_transform * mesh.mNormals[i] : aiVector3D(0, 0, 1);
      n.Normalize();
      out.addVertex({p.x, p.y, p.z}, {n.x, n.y, n.z});
    }
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines left by triangulation
      out.indices.insert(out.indices.end(), {base + face.mIndices[0], base + face.mIndices[1], base + face.mIndices[2]});
    }
  }
  for (unsigned c = 0; c < node.mNumChildren; ++c) appendNode(scene, *node.mChildren[c], transform, out);
}

}  // namespace

std::optional<fs::path> resolveMeshFile(const std::string& reference, const fs::path& model_dir) {
  std::error_code ec;
  if (fs::is_regular_file(reference, ec)) return fs::path(reference);
  if (reference.starts_with("package://")) {
    std::vector<fs::path> roots = searchPath("LOOPSIM_PACKAGE_PATH");
    for (const fs::path& dir : searchPath("ROS_PACKAGE_PATH")) roots.push_back(dir);
    for (const fs::path& root : roots) {
      // Only the root itself (no walking up): a package path lists package parents.
      const std::string rest = reference.substr(std::string("package://").size());
      for (const fs::path& candidate : {root / rest, root.filename() == rest.substr(0, rest.find('/'))
                                                          ? root / rest.substr(rest.find('/') + 1)
                                                          : fs::path()}) {
        if (!candidate.empty() && fs::is_regular_file(candidate, ec)) return candidate.lexically_normal();
      }
    }
  }
  const ResolvedMeshPath in_model_dir = resolveMeshPath(reference, model_dir);
  if (in_model_dir.found) return fs::path(in_model_dir.path);
  return std::nullopt;
}

MeshData loadMeshFile(const fs::path& file) {
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(file.string(), aiProcess_Triangulate | aiProcess_GenSmoothNormals |
                                                              aiProcess_JoinIdenticalVertices | aiProcess_SortByPType);
  if (scene == nullptr || scene->mRootNode == nullptr) {
    throw std::runtime_error("cannot read mesh " + file.string() + ": " + importer.GetErrorString());
  }
  MeshData data;
  appendNode(*scene, *scene->mRootNode, aiMatrix4x4(), data);
  if (data.indices.empty()) throw std::runtime_error("mesh " + file.string() + " has no triangles");
  data.computeBounds();
  return data;
}

const GpuMesh* MeshCache::get(const std::string& reference, const fs::path& model_dir, std::string& error) {
  const std::string key = model_dir.string() + '\n' + reference;
  auto found = entries_.find(key);
  if (found == entries_.end()) {
    Entry entry;
    const std::optional<fs::path> file = resolveMeshFile(reference, model_dir);
    if (!file) {
      entry.error = "mesh file '" + reference + "' not found (searched LOOPSIM_PACKAGE_PATH, ROS_PACKAGE_PATH and " +
                    (model_dir.empty() ? std::string("the working directory") : model_dir.string()) + ")";
    } else {
      try {
        entry.mesh = std::make_unique<GpuMesh>(loadMeshFile(*file));
      } catch (const std::exception& e) {
        entry.error = e.what();
      }
    }
    found = entries_.emplace(key, std::move(entry)).first;
  }
  error = found->second.error;
  return found->second.mesh.get();
}

}  // namespace loopsim::render
