#include <loopsim/parsers/mesh_path.hpp>

#include <system_error>

namespace loopsim {

namespace fs = std::filesystem;

namespace {

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

ResolvedMeshPath resolveMeshPath(const std::string& reference, const fs::path& base_dir) {
  constexpr std::string_view kPackage = "package://";
  constexpr std::string_view kFile = "file://";
  std::error_code ec;
  fs::path start = fs::absolute(base_dir.empty() ? fs::path(".") : base_dir, ec).lexically_normal();

  if (reference.starts_with(kPackage)) {
    const std::string rest = reference.substr(kPackage.size());
    const auto slash = rest.find('/');
    const std::string package = rest.substr(0, slash);
    const std::string inside = slash == std::string::npos ? "" : rest.substr(slash + 1);
    // Walk up from the robot file's directory looking for the package folder.
    for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
      for (const fs::path& candidate : {dir / package / inside, dir.filename() == package ? dir / inside : fs::path()}) {
        if (!candidate.empty() && isFile(candidate)) return {candidate.lexically_normal().string(), true};
      }
      if (dir == dir.parent_path()) break;
    }
    return {reference, false};
  }

  fs::path path = reference.starts_with(kFile) ? fs::path(reference.substr(kFile.size())) : fs::path(reference);
  if (path.is_relative()) path = start / path;
  path = path.lexically_normal();
  return {path.string(), isFile(path)};
}

}  // namespace loopsim
