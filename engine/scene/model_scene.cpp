#include <loopsim/scene/model_scene.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/collision/shape_extent.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/parsers/urdf_loader.hpp>
#include <loopsim/scene/scene_loader.hpp>

namespace loopsim {

namespace fs = std::filesystem;

namespace {

std::string yamlQuoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

bool hasFloatingRoot(const Model& model) {
  for (int i = 1; i <= model.njoints(); ++i) {
    if (model.parent[static_cast<std::size_t>(i)] == 0 &&
        model.joint_types[static_cast<std::size_t>(i)] == JointType::Floating) {
      return true;
    }
  }
  return false;
}

bool hasHalfspace(const GeometryModel& geometry) {
  for (const Geometry& g : geometry.geometries()) {
    if (g.shape == GeometryShape::halfspace) return true;
  }
  return false;
}

}  // namespace

ModelScene loadModelScene(const fs::path& model_file, ModelFormat format, const ModelSceneOptions& options) {
  if (options.floating_base && format == ModelFormat::mjcf) {
    throw ModelError(model_file.string(), "--floating", "applies to URDF files only (an MJCF's joints say whether it floats)");
  }
  ModelScene out;
  out.text = "name: " + yamlQuoted(model_file.stem().string()) + "\nmodels:\n  - " +
             (format == ModelFormat::urdf ? "urdf: " : "mjcf: ") + yamlQuoted(fs::absolute(model_file).string()) + "\n";
  if (options.floating_base) out.text += "    base: floating\n";
  const fs::path base_dir = model_file.parent_path();
  try {
    out.scene = loadSceneString(out.text, model_file.string(), base_dir);
  } catch (const ModelError& e) {
    // A URDF+ file has no initial pose: its loops start at q = 0, often flat or open.
    if (format != ModelFormat::urdf || e.file() != model_file.string() ||
        loadUrdfMechanism(model_file).constraints.empty()) {
      throw;
    }
    throw ModelError(e.file(), e.element(),
                     e.message() + ". The file's loops are taken at its q = 0 (a URDF+ file has no initial pose): "
                                   "open it in a scene that starts from a closed, regular pose (models: [{urdf: " +
                         model_file.filename().string() +
                         "}], initial: {q: {...}}; scenes/README.md, \"URDF+ loops and couplings\")");
  }
  if (!options.ground || !hasFloatingRoot(*out.scene.model)) return out;

  if (out.scene.geometry && hasHalfspace(*out.scene.geometry)) {
    out.ground_note = "the model has its own ground plane";
    return out;
  }
  double lowest = std::numeric_limits<double>::infinity();
  if (out.scene.geometry) {
    Data data(*out.scene.model);
    forwardKinematics(*out.scene.model, data, out.scene.q0);
    lowest = lowestBodyGeometryHeight(*out.scene.geometry, data.oMi);
  }
  if (!std::isfinite(lowest)) {
    out.ground_note = "the model has no collision geometry to stand on a ground";
    return out;
  }
  const double lift = kGroundGap - lowest;
  std::ostringstream placed;
  placed.precision(17);
  placed << "    pose: {position: [0, 0, " << lift << "]}\n";
  out.text += placed.str() + "ground: {height: 0}\n";
  out.scene = loadSceneString(out.text, model_file.string(), base_dir);
  out.lift = lift;
  return out;
}

}  // namespace loopsim
