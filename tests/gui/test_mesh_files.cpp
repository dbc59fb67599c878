// Mesh references of visuals: package:// resolution through the search paths
// and the model's folder, and reading through assimp (no window needed).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "render/mesh_files.hpp"

namespace {

namespace fs = std::filesystem;

// A package tree <root>/<package>/meshes/part.obj holding a copy of the test wedge.
fs::path makePackage(const std::string& root_name, const std::string& package) {
  const fs::path root = fs::temp_directory_path() / ("loopsim_mesh_test_" + std::to_string(::getpid())) / root_name;
  fs::create_directories(root / package / "meshes");
  fs::copy_file(fs::path(LOOPSIM_TEST_DATA_DIR) / "mjcf" / "meshes" / "wedge.obj", root / package / "meshes" / "part.obj",
                fs::copy_options::overwrite_existing);
  return root;
}

class EnvironmentVariable {
 public:
  EnvironmentVariable(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~EnvironmentVariable() { ::unsetenv(name_); }

 private:
  const char* name_;
};

}  // namespace

TEST(MeshFiles, PackageUrisResolveThroughTheSearchPathsThenTheModelFolder) {
  const fs::path loopsim_root = makePackage("loopsim_path", "robot_a");
  const fs::path ros_root = makePackage("ros_path", "robot_b");
  const fs::path model_root = makePackage("model_tree", "robot_c");
  const fs::path nowhere = fs::temp_directory_path() / "loopsim_mesh_test_nowhere";

  EXPECT_FALSE(loopsim::render::resolveMeshFile("package://robot_a/meshes/part.obj", nowhere).has_value());
  {
    const EnvironmentVariable a("LOOPSIM_PACKAGE_PATH", "/nonexistent:" + loopsim_root.string());
    const EnvironmentVariable b("ROS_PACKAGE_PATH", ros_root.string());
    EXPECT_EQ(loopsim::render::resolveMeshFile("package://robot_a/meshes/part.obj", nowhere),
              loopsim_root / "robot_a" / "meshes" / "part.obj");
    EXPECT_EQ(loopsim::render::resolveMeshFile("package://robot_b/meshes/part.obj", nowhere),
              ros_root / "robot_b" / "meshes" / "part.obj");
    // A package path entry may also be the package folder itself.
    const EnvironmentVariable c("LOOPSIM_PACKAGE_PATH", (loopsim_root / "robot_a").string());
    EXPECT_EQ(loopsim::render::resolveMeshFile("package://robot_a/meshes/part.obj", nowhere),
              loopsim_root / "robot_a" / "meshes" / "part.obj");
  }
  // The model's folder and its ancestors (a URDF in <root>/robot_c/urdf/).
  const auto in_model = loopsim::render::resolveMeshFile("package://robot_c/meshes/part.obj", model_root / "robot_c" / "urdf");
  ASSERT_TRUE(in_model.has_value());
  EXPECT_EQ(fs::canonical(*in_model), fs::canonical(model_root / "robot_c" / "meshes" / "part.obj"));
  // Plain relative paths: from the model's folder.
  EXPECT_TRUE(loopsim::render::resolveMeshFile("meshes/part.obj", model_root / "robot_c").has_value());
  EXPECT_FALSE(loopsim::render::resolveMeshFile("meshes/absent.obj", model_root / "robot_c").has_value());
  fs::remove_all(loopsim_root.parent_path());
}

TEST(MeshFiles, AssimpReadsTheTrianglesAndBounds) {
  const loopsim::render::MeshData mesh =
      loopsim::render::loadMeshFile(fs::path(LOOPSIM_TEST_DATA_DIR) / "mjcf" / "meshes" / "wedge.obj");
  EXPECT_GE(mesh.indices.size(), 3u * 4u);  // a tetrahedral wedge: 4 faces at least
  EXPECT_EQ(mesh.indices.size() % 3, 0u);
  EXPECT_NEAR(mesh.min_corner.x(), 0.0f, 1e-6f);
  EXPECT_NEAR(mesh.max_corner.x(), 0.10f, 1e-6f);
  EXPECT_NEAR(mesh.max_corner.y(), 0.05f, 1e-6f);
  EXPECT_NEAR(mesh.max_corner.z(), 0.03f, 1e-6f);
  const fs::path garbage = fs::temp_directory_path() / ("loopsim_mesh_test_garbage_" + std::to_string(::getpid()) + ".obj");
  std::ofstream(garbage) << "this is not a mesh\n";
  EXPECT_THROW(loopsim::render::loadMeshFile(garbage), std::runtime_error);
  EXPECT_THROW(loopsim::render::loadMeshFile(garbage.string() + ".absent.stl"), std::runtime_error);
  fs::remove(garbage);
}
