#include "input_file.hpp"

#include <cctype>
#include <fstream>

#include <loopsim/model/errors.hpp>
#include <loopsim/parsers/mjcf_loader.hpp>
#include <loopsim/parsers/urdf_loader.hpp>
#include <loopsim/scene/scene_loader.hpp>

namespace loopsim::app {

namespace fs = std::filesystem;

namespace {
// The first element name of an XML file ("robot", "mujoco"), skipping the
// declaration and comments; "" when none is found in the first few KB.
std::string rootElementName(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string head(8192, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  std::size_t at = 0;
  while ((at = head.find('<', at)) != std::string::npos) {
    ++at;
    if (at < head.size() && (head[at] == '?' || head[at] == '!')) continue;
    std::size_t end = at;
    while (end < head.size() && (std::isalnum(static_cast<unsigned char>(head[end])) || head[end] == '_')) ++end;
    return head.substr(at, end - at);
  }
  return "";
}
}  // namespace

InputKind inputKindOf(const fs::path& file) {
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (!fs::exists(status)) throw ModelError(file.string(), "", "no such file");
  if (!fs::is_regular_file(status)) throw ModelError(file.string(), "", "is not a regular file");
  const std::string ext = file.extension().string();
  if (ext == ".yaml" || ext == ".yml") return InputKind::Scene;
  if (ext == ".urdf") return InputKind::Urdf;
  if (ext == ".xml" || ext == ".mjcf") {
    const std::string root = rootElementName(file);
    if (root == "mujoco") return InputKind::Mjcf;
    if (root == "robot") return InputKind::Urdf;
    throw ModelError(file.string(), "", "root element <" + root + "> is neither <robot> (URDF) nor <mujoco> (MJCF)");
  }
  throw ModelError(file.string(), "",
                   "unknown file type '" + ext + "' (expected a scene .yaml/.yml, a URDF .urdf or an MJCF .xml)");
}

Model loadAnyModel(const fs::path& file, bool floating, bool strict) {
  const InputKind kind = inputKindOf(file);
  if (kind != InputKind::Urdf && (floating || strict)) {
    throw ModelError(file.string(), floating ? "--floating" : "--strict", "applies to URDF files only");
  }
  switch (kind) {
    case InputKind::Urdf: {
      // A URDF+ file's loops are named: the tree shown here is not the whole mechanism.
      UrdfMechanism load = loadUrdfMechanism(file, {.floating_base = floating, .strict = strict});
      if (!load.constraints.empty()) {
        std::string names;
        for (const Constraint& c : load.constraints) {
          names += (names.empty() ? "" : ", ") + std::string(constraintKindName(c.kind)) + " '" + c.name + "'";
        }
        load.model.warnings.push_back(file.filename().string() + ": the URDF+ loops and couplings (" + names +
                                      ") close this tree; a scene with this file as a model (models: [{urdf: " +
                                      file.filename().string() + "}]) simulates them");
      }
      return std::move(load.model);
    }
    case InputKind::Mjcf: return loadMjcf(file).model;
    case InputKind::Scene: {
      const Scene scene = loadScene(file);
      Model model = *scene.model;
      model.warnings = scene.warnings;  // the loaders' warnings and the scene's remarks
      return model;
    }
  }
  return loadUrdf(file);
}

}  // namespace loopsim::app
