#pragma once
// Resolves mesh references found in robot descriptions (URDF <mesh filename>).
#include <filesystem>
#include <string>

namespace loopsim {

struct ResolvedMeshPath {
  std::string path;    // a file path when found, else the reference as written
  bool found = false;  // the file exists
};

/// Resolves `reference` relative to `base_dir` (the directory of the robot
/// file). "package://pkg/rest" is looked up as <dir>/pkg/rest and, when <dir>
/// itself is named pkg, <dir>/rest, for base_dir and each of its ancestors.
/// "file://" URIs are stripped. Missing files are reported, never thrown.
ResolvedMeshPath resolveMeshPath(const std::string& reference, const std::filesystem::path& base_dir);

}  // namespace loopsim
