#include <loopsim/parsers/urdf_loader.hpp>

#include <console_bridge/console.h>
#include <spdlog/spdlog.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/model_builder.hpp>
#include <loopsim/parsers/mesh_path.hpp>
#include <loopsim/parsers/mesh_vertices.hpp>
#include <loopsim/parsers/urdf_loops.hpp>
#include <loopsim/parsers/urdf_structure.hpp>

namespace loopsim {

namespace fs = std::filesystem;

namespace {

using urdf_detail::inQuotes;

std::string str(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

/// urdfdom reports failures only through console_bridge; collect them (instead
/// of letting them reach stderr) so they can go into the ModelError.
class ConsoleCapture : public console_bridge::OutputHandler {
 public:
  ConsoleCapture() { console_bridge::useOutputHandler(this); }
  ~ConsoleCapture() override { console_bridge::restorePreviousOutputHandler(); }
  ConsoleCapture(const ConsoleCapture&) = delete;
  ConsoleCapture& operator=(const ConsoleCapture&) = delete;

  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level == console_bridge::CONSOLE_BRIDGE_LOG_ERROR) errors.push_back(text);
    if (level == console_bridge::CONSOLE_BRIDGE_LOG_WARN) warnings.push_back(text);
  }

  std::vector<std::string> errors, warnings;
};

SE3 toSE3(const urdf::Pose& pose) {
  const Quaternion q(pose.rotation.w, pose.rotation.x, pose.rotation.y, pose.rotation.z);
  return {q.normalized().toRotationMatrix(), Vector3(pose.position.x, pose.position.y, pose.position.z)};
}

Vector3 toVector(const urdf::Vector3& v) { return {v.x, v.y, v.z}; }

/// A URDF box, sphere or cylinder as a shape and its size (VisualGeometry's
/// convention: box full extents, sphere (r), cylinder (r, length)); false for a mesh.
bool urdfPrimitive(const urdf::Geometry& g, VisualGeometry::Shape& shape, Vector3& size) {
  switch (g.type) {
    case urdf::Geometry::BOX:
      shape = VisualGeometry::Shape::Box;
      size = toVector(static_cast<const urdf::Box&>(g).dim);
      return true;
    case urdf::Geometry::SPHERE:
      shape = VisualGeometry::Shape::Sphere;
      size = Vector3(static_cast<const urdf::Sphere&>(g).radius, 0.0, 0.0);
      return true;
    case urdf::Geometry::CYLINDER: {
      const auto& c = static_cast<const urdf::Cylinder&>(g);
      shape = VisualGeometry::Shape::Cylinder;
      size = Vector3(c.radius, c.length, 0.0);
      return true;
    }
    case urdf::Geometry::MESH: return false;
  }
  return false;
}

/// URDF gives the rotational inertia about the com in the <inertial> frame.
Inertia linkInertia(const urdf::Link& link) {
  if (!link.inertial) return Inertia::Zero();
  const urdf::Inertial& in = *link.inertial;
  Matrix3 I;
  I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
  const SE3 frame = toSE3(in.origin);
  return {in.mass, frame.t, frame.R * I * frame.R.transpose()};
}

struct LinkPlacement {
  int body = 0;
  SE3 in_body;  // link frame in the body frame
};

class UrdfModelAssembler {
 public:
  UrdfModelAssembler(const urdf_detail::UrdfStructure& structure, const urdf::ModelInterface& urdf,
                     std::string file, fs::path base_dir, const UrdfOptions& options)
      : structure_(structure),
        urdf_(urdf),
        file_(std::move(file)),
        base_dir_(std::move(base_dir)),
        options_(options),
        builder_(structure.robot_name, file_) {}

  Model assemble() && {
    const std::string& root = structure_.root_link;
    const urdf::Link& root_link = link(root);
    const Inertia root_inertia = linkInertia(root_link);
    requireValidInertia(root, root_inertia);
    if (options_.floating_base) {
      for (int j : childJoints(root)) {
        if (structure_.joints[j].type == "floating") {
          throw ModelError(file_, "joint " + inQuotes(structure_.joints[j].name),
                           "the file already has a floating joint at the root; do not also request a floating base");
        }
      }
      JointSpec spec;
      spec.type = JointType::Floating;
      const int body = builder_.addBody(0, "root_joint", spec, SE3::Identity(), root_inertia, root);
      placements_[root] = {body, SE3::Identity()};
    } else {
      // A root named "world" is the world itself; any other root is welded to it.
      if (root != "world") builder_.addFixedLink(0, SE3::Identity(), root_inertia, root);
      warnIfMassOnWorld(root, root_inertia);
      placements_[root] = {0, SE3::Identity()};
    }
    addShapes(root_link);
    addSubtree(root);
    if (!ignored_friction_.empty()) {
      builder_.addWarning(file_ + ": <dynamics friction> ignored (only damping is modelled) on joints " +
                          ignored_friction_);
    }
    if (!velocity_limited_.empty()) warnVelocityLimits();
    for (const std::string& w : urdfdom_warnings_) builder_.addWarning(file_ + ": urdfdom: " + w);
    Model model = std::move(builder_).build(options_.strict);
    spdlog::debug("{}: model '{}' with {} bodies, nq {}, nv {}, {} warnings", file_, model.name, model.njoints(),
                  model.nq, model.nv, model.warnings.size());
    return model;
  }

  void setUrdfdomWarnings(std::vector<std::string> warnings) { urdfdom_warnings_ = std::move(warnings); }

 private:
  const std::vector<int>& childJoints(const std::string& link_name) const {
    static const std::vector<int> kNone;
    const auto it = structure_.child_joints.find(link_name);
    return it == structure_.child_joints.end() ? kNone : it->second;
  }

  const urdf::Link& link(const std::string& name) const {
    const urdf::LinkConstSharedPtr l = urdf_.getLink(name);
    if (!l) throw ModelError(file_, "link " + inQuotes(name), "not found after parsing");
    return *l;
  }

  void warn(const std::string& element, const std::string& message) {
    builder_.addWarning(file_ + ": " + element + ": " + message);
  }

  void requireValidInertia(const std::string& link_name, const Inertia& inertia) {
    const std::string problem = inertiaProblem(inertia);
    if (!problem.empty()) throw ModelError(file_, "link " + inQuotes(link_name), problem);
  }

  // One warning for the whole model (a robot has a limit on every joint).
  void warnVelocityLimits() {
    constexpr std::size_t kNamed = 4;
    const std::size_t n = velocity_limited_.size();
    std::string joints;
    for (std::size_t k = 0; k < std::min(n, kNamed); ++k) joints += (k ? ", " : "") + velocity_limited_[k];
    if (n > kNamed) joints += " and " + std::to_string(n - kNamed) + " more";
    builder_.addWarning(file_ + ": <limit velocity> on " + std::to_string(n) + (n == 1 ? " joint" : " joints") + " (" +
                        joints + ") is not simulated; `loopsim run` reports every joint that exceeds it");
  }

  void warnIfMassOnWorld(const std::string& link_name, const Inertia& inertia) {
    if (inertia.mass > 0.0) {
      warn("link " + inQuotes(link_name), "fixed to the world; its mass " + str(inertia.mass) +
                                            " kg is ignored (load with a floating base to keep it)");
    }
  }

  // Depth-first, children in document order: the builder needs subtrees to be
  // contiguous index ranges. An explicit stack, not recursion: a chain of
  // 100k links must not overflow the call stack.
  void addSubtree(const std::string& parent_link) {
    std::vector<int> stack;
    auto pushChildren = [&](const std::string& link) {
      const std::vector<int>& children = childJoints(link);
      stack.insert(stack.end(), children.rbegin(), children.rend());
    };
    pushChildren(parent_link);
    while (!stack.empty()) {
      const urdf_detail::UrdfJointEntry& entry = structure_.joints[static_cast<std::size_t>(stack.back())];
      stack.pop_back();
      addJoint(entry);
      pushChildren(entry.child);
    }
  }

  void addJoint(const urdf_detail::UrdfJointEntry& entry) {
    const urdf::JointConstSharedPtr joint_ptr = urdf_.getJoint(entry.name);
    if (!joint_ptr) throw ModelError(file_, "joint " + inQuotes(entry.name), "not found after parsing");
    const urdf::Joint& joint = *joint_ptr;
    const std::string element = "joint " + inQuotes(entry.name);
    const urdf::Link& child = link(entry.child);
    const LinkPlacement& parent = placements_.at(entry.parent);
    const SE3 joint_in_body = parent.in_body * toSE3(joint.parent_to_joint_origin_transform);
    const Inertia inertia = linkInertia(child);
    requireValidInertia(entry.child, inertia);

    if (joint.mimic) {
      warn(element, "<mimic joint=" + inQuotes(joint.mimic->joint_name) + "> ignored; the joint moves independently");
    }
    // Dropped features are said, never silently lost.
    if (joint.safety) warn(element, "<safety_controller> ignored (soft limits and their gains are not simulated)");
    if (joint.calibration) warn(element, "<calibration> ignored");
    if (joint.type == urdf::Joint::FIXED) {
      const std::string child_element = "link " + inQuotes(entry.child);
      std::string triangle;
      inertiaProblem(inertia, &triangle);
      if (!triangle.empty() && parent.body != 0) {
        if (options_.strict) throw ModelError(file_, child_element, triangle);
        warn(child_element, triangle);
      }
      builder_.addFixedLink(parent.body, joint_in_body, inertia, entry.child);
      if (parent.body == 0) warnIfMassOnWorld(entry.child, inertia);
      placements_[entry.child] = {parent.body, joint_in_body};
      addShapes(child);
      return;
    }

    JointSpec spec;
    switch (joint.type) {
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS: spec.type = JointType::Revolute; break;
      case urdf::Joint::PRISMATIC: spec.type = JointType::Prismatic; break;
      case urdf::Joint::FLOATING:
        if (parent.body != 0) {
          throw ModelError(file_, element, "the file already has a floating joint at the root; do not also request a floating base");
        }
        spec.type = JointType::Floating;
        break;
      default: throw ModelError(file_, element, "unsupported joint type " + inQuotes(entry.type));
    }
    if (spec.type != JointType::Floating) spec.axis = toVector(joint.axis);
    if (joint.limits) {
      if (joint.type != urdf::Joint::CONTINUOUS && spec.type != JointType::Floating) {
        spec.lower = joint.limits->lower;
        spec.upper = joint.limits->upper;
      }
      if (spec.type != JointType::Floating) {
        spec.velocity_limit = joint.limits->velocity;
        spec.effort_limit = joint.limits->effort;
        // velocity="0" is URDF's usual "unspecified" (as effort="0"): no limit to report.
        if (spec.velocity_limit > 0.0 && std::isfinite(spec.velocity_limit)) {
          velocity_limited_.push_back(inQuotes(entry.name) + " " + str(spec.velocity_limit));
        }
      }
    }
    if (joint.dynamics) {
      spec.damping = joint.dynamics->damping;
      if (joint.dynamics->friction != 0.0) {
        ignored_friction_ += (ignored_friction_.empty() ? "" : ", ") + inQuotes(entry.name) + " " +
                             str(joint.dynamics->friction);
      }
    }
    const int body = builder_.addBody(parent.body, entry.name, spec, joint_in_body, inertia, entry.child);
    placements_[entry.child] = {body, SE3::Identity()};
    addShapes(child);
  }

  void addShapes(const urdf::Link& link) {
    addVisuals(link);
    addCollisions(link);
  }

  // <collision> -> CollisionElement, named after the link ("link/k" when it
  // has several). A mesh's vertices are read now; one that cannot be read is
  // warned about here and refused by a scene that makes it collide.
  void addCollisions(const urdf::Link& link) {
    const LinkPlacement& where = placements_.at(link.name);
    const std::size_t count = link.collision_array.size();
    for (std::size_t k = 0; k < count; ++k) {
      const urdf::CollisionSharedPtr& collision = link.collision_array[k];
      if (!collision || !collision->geometry) continue;
      CollisionElement c;
      c.name = count == 1 ? link.name : link.name + "/" + std::to_string(k);
      c.file = file_;
      c.element = "link " + inQuotes(link.name) + " <collision>" + (count == 1 ? "" : " " + std::to_string(k));
      c.body = where.body;
      c.placement = where.in_body * toSE3(collision->origin);
      const urdf::Geometry& g = *collision->geometry;
      VisualGeometry::Shape primitive{};
      if (urdfPrimitive(g, primitive, c.size)) {
        c.shape = *collisionShapeOf(primitive);
      } else {
        const auto& m = static_cast<const urdf::Mesh&>(g);
        c.shape = CollisionElement::Shape::Mesh;
        const ResolvedMeshPath resolved = resolveMeshPath(m.filename, base_dir_);
        c.mesh_file = resolved.path;
        MeshVertices mesh = readMeshVertices(resolved.path, toVector(m.scale));
        c.vertices = std::move(mesh.points);
        c.mesh_problem = std::move(mesh.problem);
        if (!c.mesh_problem.empty() && missing_meshes_.insert(m.filename).second) {
          warn(c.element, "collision mesh " + inQuotes(m.filename) + ": " + c.mesh_problem);
        }
      }
      builder_.addCollision(std::move(c));
    }
  }

  void addVisuals(const urdf::Link& link) {
    const LinkPlacement& where = placements_.at(link.name);
    for (const urdf::VisualSharedPtr& visual : link.visual_array) {
      if (!visual || !visual->geometry) continue;
      VisualGeometry geometry;
      geometry.name = link.name;
      geometry.body = where.body;
      geometry.placement = where.in_body * toSE3(visual->origin);
      const urdf::Geometry& g = *visual->geometry;
      if (!urdfPrimitive(g, geometry.shape, geometry.size)) {
        const auto& m = static_cast<const urdf::Mesh&>(g);
        geometry.shape = VisualGeometry::Shape::Mesh;
        geometry.mesh_scale = toVector(m.scale);
        const ResolvedMeshPath resolved = resolveMeshPath(m.filename, base_dir_);
        geometry.mesh_file = resolved.path;
        if (!resolved.found && missing_meshes_.insert(m.filename).second) {
          warn("link " + inQuotes(link.name), "mesh file " + inQuotes(m.filename) + " not found");
        }
      }
      if (visual->material) {
        const urdf::Color& c = visual->material->color;
        geometry.rgba = Vector4(c.r, c.g, c.b, c.a);
        geometry.material = visual->material->name;
      }
      builder_.addVisual(std::move(geometry));
    }
  }

  const urdf_detail::UrdfStructure& structure_;
  const urdf::ModelInterface& urdf_;
  std::string file_;
  fs::path base_dir_;
  UrdfOptions options_;
  ModelBuilder builder_;
  std::map<std::string, LinkPlacement> placements_;
  std::set<std::string> missing_meshes_;
  std::vector<std::string> urdfdom_warnings_;
  std::string ignored_friction_;  // "'joint' value, ..." collected into one warning
  std::vector<std::string> velocity_limited_;  // "'joint' value": limits that are reported, not simulated
};

UrdfMechanism loadFromXml(const std::string& xml, const std::string& source_name, const fs::path& base_dir,
                          const UrdfOptions& options) {
  const urdf_detail::UrdfStructure structure = urdf_detail::scanUrdfStructure(xml, source_name);

  urdf::ModelInterfaceSharedPtr parsed;
  std::vector<std::string> urdfdom_warnings;
  {
    // console_bridge's handler is process-global.
    static std::mutex console_mutex;
    const std::lock_guard lock(console_mutex);
    ConsoleCapture capture;
    parsed = urdf::parseURDF(xml);
    if (!parsed) {
      std::string detail;
      for (const std::string& e : capture.errors) detail += (detail.empty() ? "" : "; ") + e;
      throw ModelError(source_name, "", "urdfdom rejected the file: " + (detail.empty() ? "no reason given" : detail));
    }
    // urdfdom also logs errors it recovers from (e.g. it drops a visual with
    // an unknown geometry): a warning, or an error when strict.
    if (!capture.errors.empty() && options.strict) {
      std::string detail;
      for (const std::string& e : capture.errors) detail += (detail.empty() ? "" : "; ") + e;
      throw ModelError(source_name, "", "urdfdom reported: " + detail);
    }
    capture.warnings.insert(capture.warnings.end(), capture.errors.begin(), capture.errors.end());
    // urdfdom repeats some warnings (one per pass over the links).
    for (std::string& w : capture.warnings) {
      if (std::find(urdfdom_warnings.begin(), urdfdom_warnings.end(), w) == urdfdom_warnings.end()) {
        urdfdom_warnings.push_back(std::move(w));
      }
    }
  }

  UrdfModelAssembler assembler(structure, *parsed, source_name, base_dir, options);
  assembler.setUrdfdomWarnings(std::move(urdfdom_warnings));
  UrdfMechanism out;
  out.model = std::move(assembler).assemble();
  urdf_detail::UrdfLoopConstraints loops = urdf_detail::urdfLoopConstraints(out.model, structure, source_name);
  out.constraints = std::move(loops.constraints);
  out.independent_joints = std::move(loops.independent_joints);
  return out;
}

std::string readUrdfFile(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) throw ModelError(file.string(), "", "no such file");
  if (fs::is_directory(file, ec)) throw ModelError(file.string(), "", "is a directory, not a URDF file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ModelError(file.string(), "", std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw ModelError(file.string(), "", std::string("read error: ") + std::strerror(errno));
  return content.str();
}

/// The tree alone: refused when the file closes loops (it would load as an open chain).
Model treeOnly(UrdfMechanism&& mechanism, const std::string& source_name) {
  if (!mechanism.constraints.empty()) {
    const Constraint& c = mechanism.constraints.front();
    const bool loop = c.kind != ConstraintKind::Coupling;
    throw ModelError(source_name, std::string(loop ? "<loop" : "<coupling") + " name='" + c.name + "'>",
                     std::string("a ") + (loop ? "loop closure" : "joint coupling") +
                         " written as a URDF+ extension: the tree alone would be an open chain. Load the file "
                         "with its loops (loadUrdfMechanism, or as a scene model: models: [{urdf: FILE}])");
  }
  return std::move(mechanism.model);
}

}  // namespace

Model loadUrdf(const fs::path& file, const UrdfOptions& options) {
  return treeOnly(loadUrdfMechanism(file, options), file.filename().string());
}

Model loadUrdfString(const std::string& xml, const std::string& source_name, const UrdfOptions& options) {
  return treeOnly(loadUrdfMechanismString(xml, source_name, options), source_name);
}

UrdfMechanism loadUrdfMechanism(const fs::path& file, const UrdfOptions& options) {
  return loadFromXml(readUrdfFile(file), file.filename().string(), file.parent_path(), options);
}

UrdfMechanism loadUrdfMechanismString(const std::string& xml, const std::string& source_name,
                                      const UrdfOptions& options) {
  std::error_code ec;
  return loadFromXml(xml, source_name, fs::current_path(ec), options);
}

}  // namespace loopsim
