#include <loopsim/scene/scene_loader.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/number_text.hpp>
#include <loopsim/model/coordinate_names.hpp>
#include <loopsim/model/name_suggestion.hpp>
#include <loopsim/scene/run_length.hpp>
#include <loopsim/scene/scene_parsing.hpp>
#include <loopsim/solvers/loops/cluster_spanning.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {

namespace fs = std::filesystem;
using scene_yaml::YamlValue;

namespace {

const std::vector<std::string> kTopLevelKeys = {
    "name",    "description", "models",   "bodies",     "initial", "hold",     "constraints",   "actuated",
    "controller", "gravity",  "dt",       "duration",   "solver",  "stabilization", "projection", "redundant", "integrator",
    "independent", "joint_limits", "ground", "obstacles", "exclude", "contact"};

/// initial.q / initial.v: {joint: value or [values]}.
void parseInitial(const YamlValue& map, const Model& model, bool positions, VectorX& x) {
  if (!map.isMap()) map.fail("expected a map of joint names to values, got " + map.valueText());
  for (const std::string& name : map.keys()) {
    const YamlValue value = map[name];
    const int j = scene_yaml::jointByName(value, model, name);
    const int n = positions ? model.joint_nq[j] : model.joint_nv[j];
    const int start = positions ? model.idx_q[j] : model.idx_v[j];
    std::vector<double> values;
    if (n == 1) {
      values = {value.isScalar() ? value.number() : value.numbers(1)[0]};
    } else {
      values = value.numbers(n);
    }
    for (int k = 0; k < n; ++k) x[start + k] = values[k];
    if (positions && model.joint_types[j] != JointType::Revolute && model.joint_types[j] != JointType::Prismatic) {
      // Spherical [x y z w] or floating [px py pz x y z w]: the quaternion must be unit.
      const int iq = start + (model.joint_types[j] == JointType::Floating ? 3 : 0);
      const Quaternion quat(x[iq + 3], x[iq], x[iq + 1], x[iq + 2]);
      if (std::abs(quat.norm() - 1.0) > 1e-6) {
        std::ostringstream os;
        os << "quaternion [" << x[iq] << ", " << x[iq + 1] << ", " << x[iq + 2] << ", " << x[iq + 3]
           << "] is not unit (norm " << quat.norm() << "); quaternions are [x, y, z, w]";
        value.fail(os.str());
      }
    }
  }
}

std::vector<int> parseJointList(const YamlValue& list, const Model& model) {
  const std::vector<std::string> names = list.strings();
  std::vector<int> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const int j = scene_yaml::jointByName(list.at(i), model, names[i]);
    if (std::find(out.begin(), out.end(), j) != out.end()) list.at(i).fail("joint '" + names[i] + "' listed twice");
    out.push_back(j);
  }
  return out;
}

/// The names of joint j's dofs as the records' velocity columns end (wx wy wz
/// for a ball; wx wy wz vx vy vz for a floating joint; none for 1-dof joints).
std::vector<std::string> dofNames(const Model& model, int j) {
  std::vector<std::string> out;
  if (model.joint_nv[j] == 1) return out;
  const std::vector<std::string> columns = velocityColumns(model, "v");
  const std::string prefix = "v:" + model.joint_names[j] + ":";
  for (int k = 0; k < model.joint_nv[j]; ++k) out.push_back(columns[model.idx_v[j] + k].substr(prefix.size()));
  return out;
}

/// One entry of {joint: NAME, dofs: [...]}: a dof's name (wx, ...) or its
/// position k in the joint's velocity, from 0.
int parseDofPosition(const YamlValue& at, const Model& model, int j) {
  const std::string& joint = model.joint_names[j];
  const std::vector<std::string> names = dofNames(model, j);
  const std::string text = at.string();
  const auto named = std::find(names.begin(), names.end(), text);
  if (named != names.end()) return static_cast<int>(named - names.begin());
  const int n = model.joint_nv[j];
  const std::string range = n == 1 ? "its one dof is 0" : "0 to " + std::to_string(n - 1);
  if (text.empty() || (!std::isdigit(static_cast<unsigned char>(text[0])) && text[0] != '-' && text[0] != '+')) {
    std::string list;
    for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
    at.fail("unknown dof '" + text + "' of joint '" + joint + "'" + didYouMean(text, names) +
            (names.empty() ? "; " + range : "; its dofs are " + list + " (or " + range + ")"));
  }
  const int position = at.integer();
  if (position < 0 || position >= n) {
    at.fail("dof " + std::to_string(position) + " is not a dof of joint '" + joint + "', which has " +
            std::to_string(n) + " (" + range + ")");
  }
  return position;
}

/// independent: [JOINT, {joint: JOINT, dofs: [wx, ...]}, ...]: the model v
/// indices (increasing) of whole joints, or of some dofs of a multi-dof joint
/// (by name, as the records' columns: a ball's ω wx wy wz in its child frame,
/// a floating joint's wx wy wz vx vy vz; or by position from 0).
std::vector<int> parseIndependentDofs(const YamlValue& list, const Model& model) {
  list.requireSequence();
  std::vector<int> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YamlValue entry = list.at(i);
    std::vector<int> dofs;
    if (entry.isMap()) {
      entry.requireMap({"joint", "dofs"});
      if (!entry.has("joint")) entry.fail("'joint' is required ({joint: NAME, dofs: [...]})");
      const std::string name = entry["joint"].string();
      const int j = scene_yaml::jointByName(entry["joint"], model, name);
      if (!entry.has("dofs")) {
        entry.fail("'dofs' is required ({joint: NAME, dofs: [...]}); or list '" + name + "' alone for all its dofs");
      }
      const YamlValue positions = entry["dofs"];
      positions.requireSequence();
      if (positions.size() == 0) positions.fail("expected at least one dof of joint '" + name + "'");
      for (std::size_t k = 0; k < positions.size(); ++k) {
        dofs.push_back(model.idx_v[j] + parseDofPosition(positions.at(k), model, j));
      }
    } else {
      const std::string name = entry.string();
      const int j = scene_yaml::jointByName(entry, model, name);
      for (int k = 0; k < model.joint_nv[j]; ++k) dofs.push_back(model.idx_v[j] + k);
    }
    for (int d : dofs) {
      if (std::find(out.begin(), out.end(), d) != out.end()) {
        const int j = model.dof_joint[d];
        entry.fail("dof " + std::to_string(d - model.idx_v[j]) + " of joint '" + model.joint_names[j] +
                   "' listed twice");
      }
      out.push_back(d);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> parseActuated(const YamlValue& v, const Model& model) {
  if (v.isScalar()) {
    if (v.string() != "all") v.fail("expected 'all' or a list of joint names, got " + v.valueText());
    std::vector<int> out;
    for (int j = 1; j < model.nbodies(); ++j) {
      if (model.joint_types[j] != JointType::Floating) out.push_back(j);
    }
    return out;
  }
  std::vector<int> out = parseJointList(v, model);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (model.joint_types[out[i]] == JointType::Floating) {
      v.at(i).fail("joint '" + model.joint_names[out[i]] + "' is a floating base and cannot be actuated");
    }
  }
  return out;
}

ControllerSpec parseController(const YamlValue& map, const Model& model, const std::vector<int>& actuated) {
  map.requireMap({"type", "kp", "kd", "drives", "feedforward"});
  ControllerSpec spec;
  if (!map.has("type")) map.fail("'type' is required (none, pd_hold, gravity_compensation or sinusoid)");
  const YamlValue type = map["type"];
  const std::string t = type.string();
  const std::vector<std::string> types = {"none", "pd_hold", "gravity_compensation", "sinusoid"};
  if (t == "none") spec.kind = ControllerSpec::Kind::None;
  else if (t == "pd_hold") spec.kind = ControllerSpec::Kind::PdHold;
  else if (t == "gravity_compensation") spec.kind = ControllerSpec::Kind::GravityCompensation;
  else if (t == "sinusoid") spec.kind = ControllerSpec::Kind::Sinusoid;
  else type.fail("unknown controller type '" + t + "'" + didYouMean(t, types) + "; expected none, pd_hold, gravity_compensation or sinusoid");
  const bool needs_gains = spec.kind == ControllerSpec::Kind::PdHold || spec.kind == ControllerSpec::Kind::Sinusoid;
  for (const char* key : {"kp", "kd"}) {
    if (map.has(key)) {
      (key[1] == 'p' ? spec.kp : spec.kd) = map[key].nonNegativeNumber();
    } else if (needs_gains) {
      map.fail("controller '" + t + "' needs '" + key + "'");
    }
  }
  if (spec.kind != ControllerSpec::Kind::None && actuated.empty()) {
    map.fail("controller '" + t + "' drives the actuated joints, and the scene lists none (add 'actuated: [...]' or 'actuated: all')");
  }
  if (map.has("feedforward")) {
    const YamlValue feedforward = map["feedforward"];
    const std::string f = feedforward.string();
    if (f == "hold") spec.feedforward = ControllerSpec::Feedforward::Hold;
    else if (f != "none") feedforward.fail("unknown feedforward '" + f + "'" + didYouMean(f, {"none", "hold"}) + "; expected none or hold");
    if (spec.feedforward == ControllerSpec::Feedforward::Hold && spec.kind != ControllerSpec::Kind::PdHold &&
        spec.kind != ControllerSpec::Kind::Sinusoid) {
      feedforward.fail("feedforward 'hold' applies to controller types pd_hold and sinusoid, not '" + t + "'");
    }
  }
  if (map.has("drives")) {
    const YamlValue drives = map["drives"];
    if (spec.kind != ControllerSpec::Kind::Sinusoid) drives.fail("'drives' applies to controller type 'sinusoid' only");
    drives.requireSequence();
    for (std::size_t i = 0; i < drives.size(); ++i) {
      const YamlValue d = drives.at(i);
      d.requireMap({"joint", "amplitude", "frequency", "phase", "offset"});
      if (!d.has("joint")) d.fail("'joint' is required");
      SinusoidDrive drive;
      const YamlValue joint = d["joint"];
      drive.joint = scene_yaml::jointByName(joint, model, joint.string());
      if (model.joint_nq[drive.joint] != 1) joint.fail("a sinusoid drives a one-dof joint; '" + joint.string() + "' is not");
      if (std::find(actuated.begin(), actuated.end(), drive.joint) == actuated.end()) {
        joint.fail("joint '" + joint.string() + "' has a drive but is not in 'actuated'");
      }
      if (d.has("amplitude")) drive.amplitude = d["amplitude"].number();
      if (d.has("frequency")) drive.frequency_hz = d["frequency"].nonNegativeNumber();
      if (d.has("phase")) drive.phase = d["phase"].number();
      if (d.has("offset")) drive.offset = d["offset"].number();
      spec.drives.push_back(drive);
    }
  } else if (spec.kind == ControllerSpec::Kind::Sinusoid) {
    map.fail("controller 'sinusoid' needs 'drives'");
  }
  return spec;
}

void parseSolver(const YamlValue& v, Scene& scene) {
  if (v.isScalar()) {
    scene.solver = v.string();
    return;
  }
  v.requireMap({"name", "mu", "tolerance", "max_iterations", "warm_start", "soft_weight"});
  if (v.has("name")) scene.solver = v["name"].string();
  SolverSettings& s = scene.solver_settings;
  if (v.has("mu")) {
    // A positive number, or `auto`: μ from λ_max(M) at the initial state (solvers/selection/auto_mu.hpp).
    const YamlValue mu = v["mu"];
    if (!mu.isScalar()) mu.fail("expected a positive number or 'auto', got " + mu.valueText());
    if (mu.string() == "auto") {
      s.mu_auto = true;
    } else {
      try {
        s.mu = mu.positiveNumber();
      } catch (const ModelError&) {
        mu.fail("expected a positive number or 'auto', got " + mu.valueText());
      }
    }
  }
  if (v.has("tolerance")) {
    s.tolerance = v["tolerance"].positiveNumber();
    if (s.tolerance > kMaxResidualTolerance) {
      v["tolerance"].fail("must be at most " + numberText(kMaxResidualTolerance) + ", got " +
                          v["tolerance"].valueText() + toleranceHint(s.tolerance));
    }
  }
  if (v.has("max_iterations")) {
    s.max_iterations = v["max_iterations"].integer();
    if (s.max_iterations < 1) v["max_iterations"].fail("must be >= 1");
  }
  if (v.has("warm_start")) s.warm_start = v["warm_start"].boolean();
  if (v.has("soft_weight")) s.soft_weight = v["soft_weight"].positiveNumber();
}

/// "8.6e+11".
std::string formatFlops(double flops) {
  std::ostringstream os;
  os.precision(2);
  os << flops;
  return os.str();
}

Scene parse(const YamlValue& doc, const std::string& text, const fs::path& base_dir) {
  doc.requireMap(kTopLevelKeys);
  Scene scene;
  scene.source_file = doc.file();
  scene.text = text;
  scene.name = doc.has("name") ? doc["name"].string() : fs::path(doc.file()).stem().string();
  if (doc.has("description")) scene.description = doc["description"].string();

  Vector3 gravity(0.0, 0.0, -9.81);
  if (doc.has("gravity")) gravity = doc["gravity"].vector3();
  scene_yaml::AssembledScene assembled = scene_yaml::assembleModels(doc, base_dir, gravity, scene.name);
  scene.model_files = assembled.model_files;
  auto model = std::make_shared<Model>(std::move(assembled.model));
  scene.model = model;
  for (const auto& w : model->warnings) scene.warnings.push_back(w);

  scene.q0 = assembled.q0;
  scene.v0 = VectorX::Zero(model->nv);
  if (doc.has("initial")) {
    const YamlValue initial = doc["initial"];
    initial.requireMap({"q", "v"});
    if (initial.has("q")) parseInitial(initial["q"], *model, true, scene.q0);
    if (initial.has("v")) parseInitial(initial["v"], *model, false, scene.v0);
  }
  if (doc.has("hold")) scene.held_joints = parseJointList(doc["hold"], *model);

  scene.constraints = assembled.constraints;
  if (doc.has("constraints")) {
    for (Constraint& c : scene_yaml::parseConstraints(doc["constraints"], *model, scene.q0)) {
      scene.constraints.push_back(std::move(c));
    }
  }
  if (doc.has("actuated")) scene.actuated_joints = parseActuated(doc["actuated"], *model);
  // Paper 004's independent coordinates y of the loop clusters: one list, or one per view (cluster-aba
  // and cluster-rnea close every constraint in the clusters, cluster-efpa the internal loops alone);
  // checked below, and against the clusters when a cluster solver is chosen (refuseSolver, solvers/selection/solver_check.hpp).
  const bool independent_per_view = doc.has("independent") && doc["independent"].isMap();
  if (independent_per_view) {
    const YamlValue views = doc["independent"];
    views.requireMap({"all_constraints", "internal_loops"});
    if (!views.has("all_constraints") && !views.has("internal_loops")) {
      views.fail("expected a list, or a map with all_constraints (cluster-aba, cluster-rnea), internal_loops "
                 "(cluster-efpa) or both");
    }
    if (views.has("all_constraints")) {
      scene.solver_settings.independent_dofs = parseIndependentDofs(views["all_constraints"], *model);
    }
    if (views.has("internal_loops")) {
      scene.solver_settings.independent_dofs_internal_loops = parseIndependentDofs(views["internal_loops"], *model);
    }
  } else if (doc.has("independent")) {
    scene.solver_settings.independent_dofs = parseIndependentDofs(doc["independent"], *model);
    scene.solver_settings.independent_dofs_internal_loops = scene.solver_settings.independent_dofs;
  } else if (!assembled.independent_joints.empty()) {
    // A URDF+ file's independent="false" marks: its own loops' coordinates, and the whole
    // scene's when the scene closes nothing else.
    std::vector<int> dofs;
    for (const std::string& name : assembled.independent_joints) {
      const int j = model->jointId(name);
      if (j < 0) throw ModelError(doc.file(), "models", "the URDF+ independent joint '" + name + "' was merged away");
      dofs.push_back(model->idx_v[j]);
    }
    std::sort(dofs.begin(), dofs.end());
    scene.solver_settings.independent_dofs_internal_loops = dofs;
    if (scene.constraints.size() == assembled.constraints.size()) scene.solver_settings.independent_dofs = dofs;
  }
  if (doc.has("controller")) scene.controller = parseController(doc["controller"], *model, scene.actuated_joints);

  if (doc.has("dt")) scene.dt = doc["dt"].positiveNumber();
  if (doc.has("duration")) scene.duration = doc["duration"].positiveNumber();
  validateRunLength(scene.dt, scene.duration, doc.file(), doc.has("dt") ? doc["dt"].where() : "dt (default)",
                    doc.has("duration") ? doc["duration"].where() : "duration (default)");
  if (doc.has("stabilization")) {
    const YamlValue s = doc["stabilization"];
    s.requireMap({"time_constant"});
    if (s.has("time_constant")) scene.time_constant = s["time_constant"].nonNegativeNumber();
  }
  if (doc.has("integrator")) {
    const YamlValue integrator = doc["integrator"];
    integrator.requireMap({"damping"});
    if (integrator.has("damping")) {
      const YamlValue damping = integrator["damping"];
      const std::string mode = damping.string();
      const std::vector<std::string> modes = {"implicit", "explicit"};
      if (mode == "implicit") scene.damping = DampingIntegration::Implicit;
      else if (mode == "explicit") scene.damping = DampingIntegration::Explicit;
      else damping.fail("unknown damping integration '" + mode + "'" + didYouMean(mode, modes) + "; expected implicit or explicit");
    }
  }
  if (doc.has("projection")) scene.projection = doc["projection"].boolean();
  if (doc.has("redundant")) scene.redundant = doc["redundant"].boolean();
  if (doc.has("joint_limits")) {
    // true / false, or {enabled: bool, slop: m or rad}.
    const YamlValue limits = doc["joint_limits"];
    if (limits.isMap()) {
      limits.requireMap({"enabled", "slop"});
      if (limits.has("enabled")) scene.joint_limits.enabled = limits["enabled"].boolean();
      if (limits.has("slop")) scene.joint_limits.slop = limits["slop"].nonNegativeNumber();
    } else {
      scene.joint_limits.enabled = limits.boolean();
    }
  }

  scene_yaml::parseContact(doc, *model, scene);

  // The constraint set against the model (names, bodies, masks): ModelError
  // already names the scene file and the constraint.
  const ConstraintSet set(*model, scene.constraints, scene.time_constant);
  if (independent_per_view) {
    // Each list against its own view, whichever solver runs.
    const YamlValue views = doc["independent"];
    if (views.has("all_constraints")) {
      checkClustersAt(set, scene.solver_settings.independent_dofs, scene.q0, views["all_constraints"].where());
    }
    if (views.has("internal_loops")) {
      checkClustersAt(set, scene.solver_settings.independent_dofs_internal_loops, scene.q0,
                      views["internal_loops"].where(), ClusterScope::InternalLoops);
    }
  } else if (doc.has("independent")) {
    // Checked whichever solver runs: a declaration that cannot coordinate the loops is an error now.
    // With world constraints beside internal loops it may coordinate either the clusters of every
    // constraint (cluster-aba) or those of the internal loops alone (cluster-efpa, whose Delassus rows
    // are the world constraints); the cluster solvers check their own view when chosen.
    try {
      checkClustersAt(set, scene.solver_settings.independent_dofs, scene.q0, "independent");
    } catch (const ModelError& all_constraints) {
      if (!set.hasWorldConstraints() || !(set.hasInternalLoops() || set.hasCouplings())) throw;
      try {
        checkClustersAt(set, scene.solver_settings.independent_dofs, scene.q0, "independent",
                        ClusterScope::InternalLoops);
      } catch (const ModelError& internal_only) {
        throw ModelError(all_constraints.file(), "independent",
                         all_constraints.message() +
                             "; nor does it coordinate the internal loops alone (cluster-efpa): " + internal_only.message());
      }
    }
  }
  if (!rankCheckAffordable(*model, set.dimension())) {
    // An explicit decision, said: the dense check would take minutes at this size.
    const double m = set.dimension();
    scene.warnings.push_back(scene.source_file + ": constraints: rank not checked at load (" +
                             std::to_string(set.dimension()) + " rows on " + std::to_string(model->nv) +
                             " dofs: the dense check would cost ~" + formatFlops(model->nv * m * m) +
                             " flops); an undeclared dependent set is not caught here");
  } else if (scene.redundant) {
    const ConstraintRank rank = constraintRank(*model, scene.constraints, scene.q0);
    if (rank.rank == rank.dimension) {
      scene.warnings.push_back(scene.source_file + ": redundant: true, but the constraint set has full rank " +
                               std::to_string(rank.rank) + " at the initial configuration");
    }
  }
  if (doc.has("solver")) {
    parseSolver(doc["solver"], scene);
    const YamlValue name = doc["solver"].isScalar() ? doc["solver"] : doc["solver"]["name"];
    if (doc["solver"].isScalar() || doc["solver"].has("name")) {
      if (const auto refusal = refuseSolver(scene.solverProblem(), scene.solver)) {
        // The rank check is about the constraints, not the name.
        if (refusal->element == "constraints") throwRefusal(scene.source_file, *refusal);
        name.fail(refusal->element == "solver" ? refusal->reason : refusal->element + " " + refusal->reason);
      }
      return scene;
    }
  }
  SolverChoice choice = chooseDefaultSolver(scene.solverProblem());
  if (choice.refusal) throwRefusal(scene.source_file, *choice.refusal);
  scene.solver = std::move(choice.solver);
  return scene;
}

}  // namespace

Scene loadSceneString(const std::string& text, const std::string& name_for_errors, const fs::path& base_dir) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ModelError(name_for_errors, "line " + std::to_string(e.mark.line + 1) + ", column " +
                                          std::to_string(e.mark.column + 1),
                     "YAML syntax error: " + e.msg);
  }
  try {
    scene_yaml::rejectDuplicateKeys(root, name_for_errors);
    return parse(YamlValue(root, name_for_errors, ""), text, base_dir);
  } catch (const YAML::Exception& e) {
    // Conversions are checked before yaml-cpp sees them; anything left is still reported with its place.
    throw ModelError(name_for_errors, e.mark.line >= 0 ? "line " + std::to_string(e.mark.line + 1) : "", e.msg);
  }
}

Scene loadScene(const fs::path& file) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) {
    throw ModelError(file.string(), "", "is a directory, not a scene file (give one of its .yaml files)");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ModelError(file.string(), "", "cannot open scene file");
  std::ostringstream text;
  text << in.rdbuf();
  return loadSceneString(text.str(), file.string(), file.parent_path());
}

}  // namespace loopsim
