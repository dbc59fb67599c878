// `models` and `bodies` of a scene file -> one forest under the world.
#include <cstdlib>
#include <optional>

#include <loopsim/model/errors.hpp>
#include <loopsim/parsers/mjcf_loader.hpp>
#include <loopsim/parsers/urdf_loader.hpp>
#include <loopsim/scene/generators.hpp>
#include <loopsim/model/name_suggestion.hpp>
#include <loopsim/scene/scene_parsing.hpp>

namespace loopsim::scene_yaml {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> namesFrom(const std::vector<std::string>& names, std::size_t first) {
  return {names.begin() + static_cast<std::ptrdiff_t>(std::min(first, names.size())), names.end()};
}

/// Relative to the scene file, else to an assets/ directory found upward from
/// the scene file's directory or the working directory, or $LOOPSIM_ASSETS_DIR.
fs::path resolveModelFile(const YamlValue& at, const std::string& relative, const fs::path& base_dir) {
  const fs::path given(relative);
  std::vector<fs::path> tried;
  auto consider = [&](const fs::path& candidate) {
    tried.push_back(candidate);
    std::error_code ec;
    return fs::is_regular_file(candidate, ec);
  };
  if (given.is_absolute()) {
    if (consider(given)) return given;
  } else {
    const fs::path base = base_dir.empty() ? fs::current_path() : fs::absolute(base_dir);
    if (consider((base / given).lexically_normal())) return (base / given).lexically_normal();
    if (const char* env = std::getenv("LOOPSIM_ASSETS_DIR"); env != nullptr && *env != '\0') {
      if (consider(fs::path(env) / given)) return fs::path(env) / given;
    }
    for (fs::path start : {base, fs::current_path()}) {
      for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
        const fs::path assets = dir / "assets";
        std::error_code ec;
        if (fs::is_directory(assets, ec)) {
          if (consider((assets / given).lexically_normal())) return (assets / given).lexically_normal();
          break;
        }
        if (dir == dir.parent_path()) break;
      }
    }
  }
  std::string list;
  for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t.string();
  at.fail("model file '" + relative + "' not found (looked at " + list + ")");
}

BaseMode parseBase(const YamlValue& v) {
  const std::string s = v.string();
  if (s == "fixed") return BaseMode::Fixed;
  if (s == "floating") return BaseMode::Floating;
  v.fail("base must be 'fixed' or 'floating', got " + v.valueText() + didYouMean(s, {"fixed", "floating"}));
}

GeneratedMechanism runGenerator(const YamlValue& entry) {
  const YamlValue name_value = entry["generator"];
  const std::string name = name_value.string();
  const GeneratorInfo* info = findGenerator(name);
  if (info == nullptr) {
    std::vector<std::string> names;
    std::string all;
    for (const auto& g : generatorRegistry()) {
      names.push_back(g.name);
      all += (all.empty() ? "" : ", ") + g.name;
    }
    name_value.fail("unknown generator '" + name + "'" + didYouMean(name, names) + "; available: " + all);
  }
  GeneratorArguments args;
  const YamlValue params = entry["params"];
  if (params.node().IsDefined()) {
    std::vector<std::string> valid;
    for (const auto& p : info->parameters) valid.push_back(p.name);
    params.requireMap(valid);
    for (const std::string& key : params.keys()) {
      const YamlValue value = params[key];
      if (!value.isScalar()) value.fail("expected a scalar parameter value, got " + value.valueText());
      args[key] = value.node().Scalar();
    }
  }
  try {
    return info->make(args);
  } catch (const ModelError& e) {
    // Point at the parameter when the generator names one.
    for (const auto& [key, value] : args) {
      if (e.element().find("parameter '" + key + "'") != std::string::npos) params[key].fail(e.message());
    }
    (params.node().IsDefined() ? params : name_value).fail(e.element() + ": " + e.message());
  }
}

}  // namespace

RigidShape parseShape(const YamlValue& map) {
  RigidShape shape;
  const YamlValue shape_value = map["shape"];
  if (!shape_value.node().IsDefined()) map.fail("'shape' is required (box, sphere, cylinder or capsule)");
  const std::string kind = shape_value.string();
  const YamlValue size = map["size"];
  if (!size.node().IsDefined()) map.fail("'size' is required");
  if (kind == "box") {
    shape.shape = VisualGeometry::Shape::Box;
    shape.size = size.vector3();
  } else if (kind == "sphere") {
    shape.shape = VisualGeometry::Shape::Sphere;
    shape.size.x() = size.isScalar() ? size.number() : size.numbers(1)[0];
  } else if (kind == "cylinder" || kind == "capsule") {
    shape.shape = kind == "cylinder" ? VisualGeometry::Shape::Cylinder : VisualGeometry::Shape::Capsule;
    const auto x = size.numbers(2);
    shape.size.head<2>() << x[0], x[1];
  } else {
    shape_value.fail("shape must be box, sphere, cylinder or capsule, got " + shape_value.valueText() +
                     didYouMean(kind, {"box", "sphere", "cylinder", "capsule"}));
  }
  for (int k = 0; k < (kind == "box" ? 3 : kind == "sphere" ? 1 : 2); ++k) {
    if (shape.size[k] <= 0.0) size.fail("sizes must be > 0");
  }
  const YamlValue mass = map["mass"];
  if (!mass.node().IsDefined()) map.fail("'mass' is required");
  shape.mass = mass.positiveNumber();
  if (map.has("rgba")) shape.rgba = map["rgba"].rgba();
  return shape;
}

AssembledScene assembleModels(const YamlValue& doc, const fs::path& base_dir, const Vector3& gravity,
                              const std::string& scene_name) {
  ModelAssembly assembly(scene_name, doc.file());
  assembly.setGravity(gravity);
  AssembledScene out;

  const YamlValue models = doc["models"];
  const YamlValue bodies = doc["bodies"];
  if (!models.node().IsDefined() && !bodies.node().IsDefined()) {
    doc.fail("a scene needs 'models' or 'bodies'");
  }
  // An empty list is a scene with nothing to simulate, almost surely a mistake.
  const std::size_t given = (models.node().IsSequence() ? models.size() : 1) * models.node().IsDefined() +
                            (bodies.node().IsSequence() ? bodies.size() : 1) * bodies.node().IsDefined();
  if (given == 0) (models.node().IsDefined() ? models : bodies).fail("is empty: a scene needs at least one model or body");
  if (models.node().IsDefined()) {
    models.requireSequence();
    // Every model is loaded first: a model attached to another ('attach') is
    // appended while the model holding its target is (the forest is built
    // depth-first), the others in their order.
    struct Loaded {
      Model model;
      AppendOptions options;
      VectorX q0;
      std::vector<Constraint> constraints;
      std::vector<std::string> independent_joints;  // URDF+ (unprefixed)
      std::optional<std::size_t> attachment;  // index into `attachments`
    };
    std::vector<Loaded> loaded;
    std::vector<Attachment> attachments;
    std::vector<std::size_t> attachment_entry;  // per attachment: its entry
    for (std::size_t i = 0; i < models.size(); ++i) {
      const YamlValue entry = models.at(i);
      entry.requireMap({"urdf", "mjcf", "generator", "params", "prefix", "base", "base_body", "pose", "attach"});
      const bool is_urdf = entry.has("urdf"), is_mjcf = entry.has("mjcf"), is_generator = entry.has("generator");
      if (is_urdf + is_mjcf + is_generator != 1) entry.fail("give exactly one of 'urdf' or 'generator' or 'mjcf'");
      if (!is_generator && entry.has("params")) entry["params"].fail("'params' applies to generators only");
      Loaded item;
      AppendOptions& options = item.options;
      if (entry.has("prefix")) options.prefix = entry["prefix"].string();
      const bool attached = entry.has("attach");
      if (attached) {
        // On a body or frame of another model, instead of a place in the world.
        for (const char* key : {"base", "pose", "base_body"}) {
          if (entry.has(key)) {
            entry[key].fail("'" + std::string(key) + "' does not apply to an attached model ('attach' places it)");
          }
        }
        const YamlValue attach = entry["attach"];
        attach.requireMap({"to", "placement"});
        if (!attach.has("to")) attach.fail("'attach' needs 'to': a body or frame of another model (prefixed name)");
        Attachment a;
        a.to = attach["to"].string();
        if (attach.has("placement")) a.placement = attach["placement"].pose();
        item.attachment = attachments.size();
        attachments.push_back(std::move(a));
        attachment_entry.push_back(i);
      }
      if (entry.has("base")) options.base = parseBase(entry["base"]);
      if (entry.has("pose")) options.base_pose = entry["pose"].pose();
      if (entry.has("base_body")) {
        if (options.base != BaseMode::Floating) entry["base_body"].fail("'base_body' needs 'base: floating'");
        entry["base_body"].requireMap({"shape", "size", "mass", "rgba"});
        options.floating_base_body = parseShape(entry["base_body"]);
      }
      try {
        if (is_urdf) {
          const YamlValue urdf = entry["urdf"];
          const fs::path file = resolveModelFile(urdf, urdf.string(), base_dir);
          // Floating, the loader keeps the root link's inertia (an attached model's rides on its target).
          // URDF+ loops and couplings come with the model, as MJCF equalities do.
          const bool keep_root = options.base == BaseMode::Floating || attached;
          UrdfMechanism load = loadUrdfMechanism(file);
          if (keep_root && !load.model.isFloatingBase()) load = loadUrdfMechanism(file, UrdfOptions{.floating_base = true});
          out.model_files.push_back(file.string());
          item.model = std::move(load.model);
          item.constraints = std::move(load.constraints);
          item.independent_joints = std::move(load.independent_joints);
        } else if (is_mjcf) {
          // The MJCF's equality constraints (loop closures) come with the model, prefixed.
          const YamlValue mjcf = entry["mjcf"];
          const fs::path file = resolveModelFile(mjcf, mjcf.string(), base_dir);
          MjcfLoad load = loadMjcf(file);
          if (options.base == BaseMode::Floating && !load.model.isFloatingBase() && !options.floating_base_body) {
            entry.fail("'" + mjcf.string() + "' has a fixed base; 'base: floating' also needs 'base_body'");
          }
          out.model_files.push_back(file.string());
          item.model = std::move(load.model);
          item.q0 = std::move(load.qpos0_loopsim);
          item.constraints = std::move(load.constraints);
        } else {
          GeneratedMechanism mech = runGenerator(entry);
          if (options.base == BaseMode::Floating && !mech.model.isFloatingBase() && !options.floating_base_body) {
            entry.fail("generator '" + mech.model.name +
                       "' builds a fixed-base mechanism; 'base: floating' also needs 'base_body' "
                       "({shape, size, mass}) for the new floating base");
          }
          item.model = std::move(mech.model);
          item.q0 = std::move(mech.q0);
          item.constraints = std::move(mech.constraints);
        }
      } catch (const ModelError& e) {
        if (e.file() == doc.file()) throw;  // already names the scene
        entry.fail(e.what());
      }
      loaded.push_back(std::move(item));
    }
    // What a model brings beside its bodies, renamed as the assembly placed it.
    const auto addModelTerms = [&out](const Loaded& item, const AppendedModel& where) {
      for (const Constraint& c : item.constraints) out.constraints.push_back(remapConstraint(c, where));
      for (const std::string& j : item.independent_joints) out.independent_joints.push_back(where.prefix + j);
    };
    for (std::size_t i = 0; i < loaded.size(); ++i) {
      if (!loaded[i].attachment) continue;
      Attachment& a = attachments[*loaded[i].attachment];
      a.model = &loaded[i].model;
      a.options = loaded[i].options;
      a.q0 = loaded[i].q0;
      const Loaded* item = &loaded[i];
      a.attached = [addModelTerms, item](const AppendedModel& where) { addModelTerms(*item, where); };
    }
    for (std::size_t i = 0; i < loaded.size(); ++i) {
      if (loaded[i].attachment) continue;
      const YamlValue entry = models.at(i);
      try {
        const AppendedModel where = assembly.append(loaded[i].model, loaded[i].options, loaded[i].q0, &attachments);
        addModelTerms(loaded[i], where);
      } catch (const ModelError& e) {
        if (e.file() == doc.file()) throw;
        entry.fail(e.what());
      }
    }
    for (std::size_t a = 0; a < attachments.size(); ++a) {
      if (attachments[a].done) continue;
      const YamlValue to = models.at(attachment_entry[a])["attach"]["to"];
      to.fail("no body or frame '" + attachments[a].to +
              "' in the other models (prefixed names, as `loopsim check` lists them; a model cannot attach to "
              "itself or to a model attached to it)");
    }
  }
  if (bodies.node().IsDefined()) {
    bodies.requireSequence();
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const YamlValue entry = bodies.at(i);
      entry.requireMap({"name", "shape", "size", "mass", "pose", "rgba", "friction", "collide"});
      if (!entry.has("name")) entry.fail("'name' is required");
      const RigidShape shape = parseShape(entry);
      const SE3 pose = entry.has("pose") ? entry["pose"].pose() : SE3::Identity();
      try {
        assembly.addFreeBody(entry["name"].string(), shape, pose);
      } catch (const ModelError& e) {
        entry["name"].fail(e.message());
      }
    }
  }
  ModelAssembly::Result built = std::move(assembly).build();
  out.model = std::move(built.model);
  out.q0 = std::move(built.q0);
  return out;
}

int jointByName(const YamlValue& at, const Model& model, const std::string& name) {
  const int j = model.jointId(name);
  if (j < 0) at.fail("unknown joint '" + name + "'" + didYouMean(name, namesFrom(model.joint_names, 1)));
  return j;
}

int frameByName(const YamlValue& at, const Model& model, const std::string& name) {
  const int f = model.frameId(name);
  if (f < 0) {
    std::vector<std::string> names;
    for (const auto& fr : model.frames) names.push_back(fr.name);
    at.fail("unknown frame '" + name + "'" + didYouMean(name, names));
  }
  return f;
}

int bodyByName(const YamlValue& at, const Model& model, const std::string& name) {
  const int b = model.bodyId(name);
  if (b < 0) at.fail("unknown body '" + name + "'" + didYouMean(name, model.body_names));
  return b;
}

}  // namespace loopsim::scene_yaml
