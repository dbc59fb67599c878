#include <loopsim/parsers/mjcf_loader.hpp>

#include <spdlog/spdlog.h>

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/model_builder.hpp>
#include <loopsim/parsers/mjcf_assets.hpp>

namespace loopsim {

namespace fs = std::filesystem;
using mjcf_detail::MjcfAssetFile;
using mjcf_detail::MjcfAssetScan;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string inQuotes(const std::string& s) { return "'" + s + "'"; }

std::string str(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// ---------------------------------------------------------------- MuJoCo handles

struct MjModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct MjDataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using MjModelPtr = std::unique_ptr<mjModel, MjModelDeleter>;
using MjDataPtr = std::unique_ptr<mjData, MjDataDeleter>;

/// mjVFS owns fixed arrays for 2000 file names (~2 MB): keep it on the heap.
class VirtualFiles {
 public:
  VirtualFiles() : vfs_(std::make_unique<mjVFS>()) { mj_defaultVFS(vfs_.get()); }
  ~VirtualFiles() { mj_deleteVFS(vfs_.get()); }
  VirtualFiles(const VirtualFiles&) = delete;
  VirtualFiles& operator=(const VirtualFiles&) = delete;

  /// MuJoCo 2.2 looks files up by base name only (it strips directories).
  void add(const std::string& base_name, const std::string& bytes, const std::string& file) {
    if (mj_findFileVFS(vfs_.get(), base_name.c_str()) >= 0) return;
    if (mj_makeEmptyFileVFS(vfs_.get(), base_name.c_str(), static_cast<int>(bytes.size())) != 0) {
      throw ModelError(file, "", "cannot add placeholder '" + base_name + "' to MuJoCo's virtual file system");
    }
    std::memcpy(vfs_->filedata[mj_findFileVFS(vfs_.get(), base_name.c_str())], bytes.data(), bytes.size());
  }
  const mjVFS* get() const { return vfs_.get(); }

 private:
  std::unique_ptr<mjVFS> vfs_;
};

// MuJoCo's default handlers append to MUJOCO_LOG.TXT in the working
// directory and print to stdout (which belongs to command output): route
// both through our logger instead. An error handler must not return.
void mujocoWarning(const char* message) { spdlog::warn("MuJoCo: {}", message); }
[[noreturn]] void mujocoError(const char* message) { throw ModelError("", "MuJoCo", message); }

void installMujocoMessageHandlers() {
  mju_user_warning = mujocoWarning;
  mju_user_error = mujocoError;
}

/// mj_loadXML; its error text becomes a ModelError naming the file, its
/// compiler warning (if any) is returned in *warning.
MjModelPtr compileMjcf(const fs::path& file, const VirtualFiles& files, const std::string& shown,
                       std::string* warning) {
  // MuJoCo's XML parser and compiler are not documented as reentrant.
  static std::mutex mujoco_parser_mutex;
  const std::lock_guard lock(mujoco_parser_mutex);
  installMujocoMessageHandlers();
  char error[1024] = "";
  mjModel* m = mj_loadXML(file.string().c_str(), files.get(), error, sizeof error);
  std::string text(error);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (m == nullptr) throw ModelError(shown, "", "MuJoCo could not load the model: " + (text.empty() ? "no reason given" : text));
  if (warning != nullptr) *warning = text;
  return MjModelPtr(m);
}

// ---------------------------------------------------------------- conversions

Quaternion mjQuaternion(const mjtNum* wxyz) { return Quaternion(wxyz[0], wxyz[1], wxyz[2], wxyz[3]).normalized(); }
Vector3 mjVector(const mjtNum* x) { return Vector3(x[0], x[1], x[2]); }
SE3 mjPose(const mjtNum* pos, const mjtNum* quat) { return {mjQuaternion(quat).toRotationMatrix(), mjVector(pos)}; }
SE3 translation(const Vector3& t) { return {Matrix3::Identity(), t}; }

std::string mjName(const mjModel* m, const int* name_adr, int id) { return std::string(m->names + name_adr[id]); }

/// Body inertia in the MuJoCo body frame (principal axes -> full matrix).
Inertia mjBodyInertia(const mjModel* m, int b) {
  const Matrix3 R = mjQuaternion(m->body_iquat + 4 * b).toRotationMatrix();
  const Vector3 principal = mjVector(m->body_inertia + 3 * b);
  return {m->body_mass[b], mjVector(m->body_ipos + 3 * b), R * principal.asDiagonal() * R.transpose()};
}

/// Where a MuJoCo body's frame lives in loopsim: on loopsim body `body`, at `offset`.
struct BodyPlacement {
  int body = 0;
  SE3 offset;
  int frame = 0;  // loopsim frame at the MuJoCo body frame
};

// A MuJoCo box, sphere, ellipsoid, cylinder or capsule as a shape and its size
// (VisualGeometry's convention: full box extents, full cylinder length; MuJoCo
// gives halves); false for other types.
bool mjPrimitive(int type, const mjtNum* size, VisualGeometry::Shape& shape, Vector3& out) {
  switch (type) {
    case mjGEOM_BOX:
      shape = VisualGeometry::Shape::Box;
      out = 2.0 * mjVector(size);
      return true;
    case mjGEOM_SPHERE:
      shape = VisualGeometry::Shape::Sphere;
      out = Vector3(size[0], 0.0, 0.0);
      return true;
    case mjGEOM_ELLIPSOID:
      shape = VisualGeometry::Shape::Ellipsoid;
      out = mjVector(size);  // radii
      return true;
    case mjGEOM_CYLINDER:
    case mjGEOM_CAPSULE:
      shape = type == mjGEOM_CYLINDER ? VisualGeometry::Shape::Cylinder : VisualGeometry::Shape::Capsule;
      out = Vector3(size[0], 2.0 * size[1], 0.0);
      return true;
    default: return false;
  }
}

bool isSimpleJointMotor(const mjModel* m, int a) {
  const int trn = m->actuator_trntype[a];
  if (trn != mjTRN_JOINT && trn != mjTRN_JOINTINPARENT) return false;
  if (m->actuator_dyntype[a] != mjDYN_NONE || m->actuator_gaintype[a] != mjGAIN_FIXED ||
      m->actuator_biastype[a] != mjBIAS_NONE) {
    return false;
  }
  const int type = m->jnt_type[m->actuator_trnid[2 * a]];
  return type == mjJNT_HINGE || type == mjJNT_SLIDE;
}

// ---------------------------------------------------------------- assembler

class MjcfAssembler {
 public:
  MjcfAssembler(const mjModel* m, const mjModel* mesh_pose_model, const MjcfAssetScan& scan,
                std::set<std::string> placeholder_meshes, std::string file, const MjcfOptions& options)
      : m_(m),
        mesh_pose_model_(mesh_pose_model),
        scan_(scan),
        placeholder_meshes_(std::move(placeholder_meshes)),
        file_(std::move(file)),
        options_(options),
        builder_(scan.model_name.empty() ? fs::path(file_).stem().string() : scan.model_name, file_) {}

  MjcfLoad assemble() && {
    builder_.setGravity(mjVector(m_->opt.gravity));
    computeMotors();
    placements_.assign(m_->nbody, {});
    out_.mujoco_joint.assign(m_->njnt, -1);
    for (int b = 1; b < m_->nbody; ++b) addBody(b);
    for (int g = 0; g < m_->ngeom; ++g) {
      addGeom(g);
      addCollisionGeom(g);
    }
    for (int x = 0; x < m_->nexclude; ++x) {
      // MuJoCo's signature: ((body1 + 1) << 16) + body2 + 1.
      const int signature = m_->exclude_signature[x];
      builder_.excludeCollision(placements_[(signature >> 16) - 1].body, placements_[(signature & 0xFFFF) - 1].body);
    }
    for (int s = 0; s < m_->nsite; ++s) addSite(s);
    warnUnsupported();
    if (!ignored_frictionloss_.empty()) {
      warn("joints", "frictionloss ignored (loopsim models viscous damping only): " + ignored_frictionloss_);
    }

    out_.mujoco_body_frame.resize(m_->nbody);
    for (int b = 0; b < m_->nbody; ++b) out_.mujoco_body_frame[b] = placements_[b].frame;
    out_.model = std::move(builder_).build(options_.strict);
    out_.qpos0_loopsim = referencePose(out_.model);
    for (int e = 0; e < m_->neq; ++e) addEquality(e);
    return std::move(out_);
  }

 private:
  void warn(const std::string& element, const std::string& message) {
    builder_.addWarning(file_ + ": " + element + ": " + message);
  }

  std::string bodyName(int b) const {
    if (b == 0) return "world";
    const std::string name = mjName(m_, m_->name_bodyadr, b);
    return name.empty() ? "body" + std::to_string(b) : name;
  }

  std::string jointName(int j) const {
    const std::string name = mjName(m_, m_->name_jntadr, j);
    if (!name.empty()) return name;
    const int b = m_->jnt_bodyid[j];
    const int k = j - m_->body_jntadr[b];
    return bodyName(b) + "_joint" + (m_->body_jntnum[b] > 1 ? std::to_string(k) : "");
  }

  /// A frame name not yet used (frames and bodies share one namespace).
  std::string uniqueFrameName(const std::string& wanted, const std::string& element) {
    std::string name = wanted;
    for (int k = 2; frame_names_.count(name) != 0; ++k) name = wanted + "_" + std::to_string(k);
    if (name != wanted) warn(element, "name " + inQuotes(wanted) + " already used by a frame; renamed " + inQuotes(name));
    frame_names_.insert(name);
    return name;
  }

  // Joint torque caps from the joint motors (gear * control range, force range).
  void computeMotors() {
    effort_limit_.assign(m_->njnt, -1.0);  // -1: no motor
    for (int a = 0; a < m_->nu; ++a) {
      const std::string name = mjName(m_, m_->name_actuatoradr, a);
      const std::string shown = name.empty() ? "actuator" + std::to_string(a) : name;
      if (!isSimpleJointMotor(m_, a)) {
        warn("actuator " + inQuotes(shown),
             "not a direct joint motor (transmission, activation dynamics, gain or bias); not converted");
        continue;
      }
      const int j = m_->actuator_trnid[2 * a];
      MjcfMotor motor;
      motor.name = shown;
      motor.joint = jointName(j);
      motor.gear = m_->actuator_gear[6 * a];
      double limit = kInf;
      if (m_->actuator_ctrllimited[a]) {
        motor.ctrl_lower = m_->actuator_ctrlrange[2 * a];
        motor.ctrl_upper = m_->actuator_ctrlrange[2 * a + 1];
        limit = std::abs(motor.gear) * std::max(std::abs(*motor.ctrl_lower), std::abs(*motor.ctrl_upper));
      }
      if (m_->actuator_forcelimited[a]) {
        motor.force_lower = m_->actuator_forcerange[2 * a];
        motor.force_upper = m_->actuator_forcerange[2 * a + 1];
        limit = std::min(limit, std::max(std::abs(*motor.force_lower), std::abs(*motor.force_upper)));
      }
      // Several motors on one joint add up.
      effort_limit_[j] = effort_limit_[j] < 0.0 ? limit : effort_limit_[j] + limit;
      out_.motors.push_back(std::move(motor));
    }
  }

  JointSpec jointSpec(int j, const std::string& element) {
    JointSpec spec;
    const int type = m_->jnt_type[j];
    const int dof = m_->jnt_dofadr[j];
    const int qadr = m_->jnt_qposadr[j];
    spec.damping = m_->dof_damping[dof];
    spec.armature = m_->dof_armature[dof];
    switch (type) {
      case mjJNT_HINGE:
      case mjJNT_SLIDE:
        spec.type = type == mjJNT_HINGE ? JointType::Revolute : JointType::Prismatic;
        spec.axis = mjVector(m_->jnt_axis + 3 * j);
        spec.stiffness = m_->jnt_stiffness[j];
        spec.spring_reference = m_->qpos_spring[qadr];
        if (m_->jnt_limited[j]) {
          spec.lower = m_->jnt_range[2 * j];
          spec.upper = m_->jnt_range[2 * j + 1];
        }
        if (effort_limit_[j] >= 0.0) spec.effort_limit = effort_limit_[j];
        break;
      case mjJNT_BALL:
        spec.type = JointType::Spherical;
        if (m_->jnt_limited[j]) warn(element, "cone limit ignored (loopsim limits only one-dof joints)");
        break;
      case mjJNT_FREE: spec.type = JointType::Floating; break;
      default: throw ModelError(file_, element, "unknown joint type " + std::to_string(type));
    }
    if ((type == mjJNT_BALL || type == mjJNT_FREE) && m_->jnt_stiffness[j] != 0.0) {
      warn(element, "stiffness " + str(m_->jnt_stiffness[j]) + " ignored (loopsim springs act on one-dof joints)");
    }
    if (m_->dof_frictionloss[dof] != 0.0) {
      ignored_frictionloss_ += (ignored_frictionloss_.empty() ? "" : ", ") + inQuotes(jointName(j)) + " " +
                               str(m_->dof_frictionloss[dof]);
    }
    return spec;
  }

  void addBody(int b) {
    const std::string name = bodyName(b);
    const std::string element = "body " + inQuotes(name);
    const BodyPlacement& parent = placements_[m_->body_parentid[b]];
    // The MuJoCo body frame before its joints move it, in the parent's loopsim body.
    const SE3 unjointed = parent.offset * mjPose(m_->body_pos + 3 * b, m_->body_quat + 4 * b);
    const Inertia inertia = mjBodyInertia(m_, b);
    const int njoints = m_->body_jntnum[b];

    if (njoints == 0) {
      if (parent.body == 0 && inertia.mass > 0.0) {
        warn(element, "has no joint and is fixed to the world; its mass " + str(inertia.mass) + " kg is ignored");
      }
      const int frame = builder_.addFixedLink(parent.body, unjointed, inertia, uniqueFrameName(name, element));
      next_frame_ = frame + 1;
      placements_[b] = {parent.body, unjointed, frame};
      return;
    }

    int current = parent.body;
    SE3 base = unjointed;  // MuJoCo frame before joint k, in loopsim body `current`
    SE3 offset;
    for (int k = 0; k < njoints; ++k) {
      const int j = m_->body_jntadr[b] + k;
      const std::string joint_name = jointName(j);
      const std::string joint_element = "joint " + inQuotes(joint_name);
      const JointSpec spec = jointSpec(j, joint_element);
      const Vector3 anchor = mjVector(m_->jnt_pos + 3 * j);
      const double ref = m_->qpos0[m_->jnt_qposadr[j]];
      SE3 placement;
      switch (spec.type) {
        case JointType::Floating:
          // MuJoCo places a free body at qpos directly (body pos/quat only set qpos0).
          if (njoints != 1) throw ModelError(file_, joint_element, "a free joint must be its body's only joint");
          placement = SE3::Identity();
          offset = SE3::Identity();
          break;
        case JointType::Revolute:
          // MuJoCo: F_k = F_{k-1} T(anchor) Rot(axis, q - ref) T(-anchor).
          placement = base * translation(anchor) *
                      SE3(Eigen::AngleAxisd(-ref, spec.axis.normalized()).toRotationMatrix(), Vector3::Zero());
          offset = translation(-anchor);
          break;
        case JointType::Spherical:
          placement = base * translation(anchor);
          offset = translation(-anchor);
          break;
        case JointType::Prismatic:
          // MuJoCo: F_k = F_{k-1} Trans(axis (q - ref)); the anchor plays no role.
          placement = base * translation(-ref * spec.axis.normalized());
          offset = SE3::Identity();
          break;
      }
      const bool last = k + 1 == njoints;
      const bool at_body_frame = last && offset.t.isZero(0.0);
      const std::string body_name =
          uniqueFrameName(at_body_frame ? name : name + "/" + joint_name, element);
      current = builder_.addBody(current, joint_name, spec, placement,
                                 last ? inertia.transformed(offset) : Inertia::Zero(), body_name);
      out_.mujoco_joint[j] = current;
      const int body_frame = next_frame_++;  // addBody appends the body's own frame
      base = offset;
      if (at_body_frame) placements_[b] = {current, offset, body_frame};
    }
    if (placements_[b].body != current) {
      const int frame = builder_.addFrame(uniqueFrameName(name, element), current, offset, Frame::Kind::MergedLink);
      next_frame_ = frame + 1;
      placements_[b] = {current, offset, frame};
    }
  }

  void addGeom(int g) {
    const int b = m_->geom_bodyid[g];
    const BodyPlacement& where = placements_[b];
    const std::string geom_name = mjName(m_, m_->name_geomadr, g);
    const int type = m_->geom_type[g];
    VisualGeometry v;
    v.name = geom_name.empty() ? bodyName(b) : geom_name;
    v.body = where.body;
    const mjtNum* size = m_->geom_size + 3 * g;
    const mjModel* pose_model = m_;
    if (!mjPrimitive(type, size, v.shape, v.size)) {
      if (type != mjGEOM_MESH) return;  // planes and height fields are contact geometry, not drawn
      v.shape = VisualGeometry::Shape::Mesh;
      const std::string mesh_name = mjName(m_, m_->name_meshadr, m_->geom_dataid[g]);
      const MjcfAssetFile* mesh = scan_.mesh(mesh_name);
      if (mesh != nullptr) {
        v.mesh_file = mesh->path.string();
        v.mesh_scale = mesh->scale;
      } else {
        v.mesh_file = mesh_name;  // inline mesh (vertex data in the XML): no file to draw
      }
      // MuJoCo 2.2 moves a mesh geom to the mesh's inertial frame; the
      // placeholder compile keeps the pose as written in the file.
      if (mesh_pose_model_ != nullptr) pose_model = mesh_pose_model_;
    }
    const int mat = m_->geom_matid[g];
    const float* rgba = m_->geom_rgba + 4 * g;
    const bool default_rgba = rgba[0] == 0.5f && rgba[1] == 0.5f && rgba[2] == 0.5f && rgba[3] == 1.0f;
    // MuJoCo's rule: an explicit geom rgba wins over the material's.
    if (mat >= 0 && default_rgba) rgba = m_->mat_rgba + 4 * mat;
    if (rgba[3] <= 0.0f) return;  // invisible in MuJoCo too (collision proxies)
    v.rgba = Vector4(rgba[0], rgba[1], rgba[2], rgba[3]);
    if (mat >= 0) v.material = mjName(m_, m_->name_matadr, mat);
    v.placement = where.offset * mjPose(pose_model->geom_pos + 3 * g, pose_model->geom_quat + 4 * g);
    builder_.addVisual(std::move(v));
  }

  // A geom MuJoCo would collide (contype or conaffinity set) -> CollisionElement.
  void addCollisionGeom(int g) {
    if (m_->geom_contype[g] == 0 && m_->geom_conaffinity[g] == 0) return;
    const int b = m_->geom_bodyid[g];
    const BodyPlacement& where = placements_[b];
    const std::string geom_name = mjName(m_, m_->name_geomadr, g);
    CollisionElement c;
    c.name = geom_name.empty() ? bodyName(b) + "_geom" + std::to_string(g) : geom_name;
    c.file = file_;
    c.element = "geom " + inQuotes(c.name);
    c.body = where.body;
    c.placement = where.offset * mjPose(m_->geom_pos + 3 * g, m_->geom_quat + 4 * g);
    const int type = m_->geom_type[g];
    VisualGeometry::Shape primitive{};
    std::optional<CollisionElement::Shape> shape;
    if (mjPrimitive(type, m_->geom_size + 3 * g, primitive, c.size)) shape = collisionShapeOf(primitive);
    else if (type == mjGEOM_PLANE) shape = CollisionElement::Shape::Plane;
    else if (type == mjGEOM_MESH) shape = CollisionElement::Shape::Mesh;
    if (!shape) {
      warn(c.element, std::string("collision shape ") + (type == mjGEOM_ELLIPSOID ? "ellipsoid" : "height field") +
                          " is not modelled; the geom does not collide");
      return;
    }
    c.shape = *shape;
    if (type == mjGEOM_MESH) {
      // MuJoCo's compiled vertices, in the frame its compiled geom pose refers
      // to; a placeholder (missing file) has none of the real ones.
      const int mesh = m_->geom_dataid[g];
      const std::string mesh_name = mjName(m_, m_->name_meshadr, mesh);
      const MjcfAssetFile* file = scan_.mesh(mesh_name);
      c.mesh_file = file != nullptr ? file->path.string() : mesh_name;
      if (placeholder_meshes_.count(mesh_name) != 0) {
        c.mesh_problem = "file not found";
      } else {
        const float* vert = m_->mesh_vert + 3 * m_->mesh_vertadr[mesh];
        for (int v = 0; v < m_->mesh_vertnum[mesh]; ++v) {
          c.vertices.emplace_back(vert[3 * v], vert[3 * v + 1], vert[3 * v + 2]);
        }
      }
    }
    // condim 1: frictionless (MuJoCo takes the larger condim of a pair, as
    // loopsim takes the larger friction). 4 and 6 add torsional and rolling
    // friction, which loopsim's point contacts do not have.
    const int condim = m_->geom_condim[g];
    c.friction = condim == 1 ? 0.0 : m_->geom_friction[3 * g];
    if (condim > 3) warn(c.element, "condim " + std::to_string(condim) + ": torsional and rolling friction are not modelled (sliding friction only)");
    c.contype = static_cast<std::uint32_t>(m_->geom_contype[g]);
    c.conaffinity = static_cast<std::uint32_t>(m_->geom_conaffinity[g]);
    builder_.addCollision(std::move(c));
  }

  void addSite(int s) {
    const int b = m_->site_bodyid[s];
    const BodyPlacement& where = placements_[b];
    std::string name = mjName(m_, m_->name_siteadr, s);
    if (name.empty()) name = bodyName(b) + "_site" + std::to_string(s - firstSiteOf(b));
    const std::string element = "site " + inQuotes(name);
    next_frame_ = 1 + builder_.addFrame(uniqueFrameName(name, element), where.body,
                                        where.offset * mjPose(m_->site_pos + 3 * s, m_->site_quat + 4 * s),
                                        Frame::Kind::Site);
  }

  int firstSiteOf(int b) const {
    for (int s = 0; s < m_->nsite; ++s)
      if (m_->site_bodyid[s] == b) return s;
    return 0;
  }

  void warnUnsupported() {
    for (int t = 0; t < m_->ntendon; ++t) {
      const std::string name = mjName(m_, m_->name_tendonadr, t);
      warn("tendon " + inQuotes(name.empty() ? "tendon" + std::to_string(t) : name),
           "tendons are not represented in loopsim; ignored");
    }
    for (int p = 0; p < m_->npair; ++p) {
      const std::string name = mjName(m_, m_->name_pairadr, p);
      warn("contact pair " + inQuotes(name.empty() ? "pair" + std::to_string(p) : name),
           "explicit contact pairs are not modelled (the geoms' own contype/conaffinity are); ignored");
    }
    if (m_->nsensor > 0) warn("sensors", std::to_string(m_->nsensor) + " sensors ignored");
    // Bodies whose inertia MuJoCo may have computed from a placeholder mesh.
    for (int g = 0; g < m_->ngeom; ++g) {
      if (m_->geom_type[g] != mjGEOM_MESH) continue;
      const std::string mesh_name = mjName(m_, m_->name_meshadr, m_->geom_dataid[g]);
      if (placeholder_meshes_.count(mesh_name) == 0) continue;
      const int b = m_->geom_bodyid[g];
      if (warned_inertia_bodies_.insert(b).second && !scan_.hasInertial(bodyName(b))) {
        warn("body " + inQuotes(bodyName(b)),
             "has no <inertial>; MuJoCo computed its inertia from geoms including placeholder mesh " +
                 inQuotes(mesh_name) + ", so its mass and inertia are not the real ones");
      }
    }
  }

  VectorX referencePose(const Model& model) const {
    VectorX q = VectorX::Zero(model.nq);
    for (int j = 0; j < m_->njnt; ++j) {
      const int ls = out_.mujoco_joint[j];
      const int iq = model.idx_q[ls];
      const mjtNum* q0 = m_->qpos0 + m_->jnt_qposadr[j];
      switch (m_->jnt_type[j]) {
        case mjJNT_HINGE:
        case mjJNT_SLIDE: q[iq] = q0[0]; break;
        case mjJNT_BALL: q.segment<4>(iq) << q0[1], q0[2], q0[3], q0[0]; break;
        case mjJNT_FREE: q.segment<7>(iq) << q0[0], q0[1], q0[2], q0[4], q0[5], q0[6], q0[3]; break;
        default: break;
      }
    }
    return q;
  }

  // Constraints reference loopsim bodies; MuJoCo bodies map through placements_.
  void addEquality(int e) {
    const std::string given = mjName(m_, m_->name_eqadr, e);
    const std::string name = given.empty() ? "equality" + std::to_string(e) : given;
    const int type = m_->eq_type[e];
    const char* kind = type == mjEQ_CONNECT ? "connect"
                       : type == mjEQ_WELD  ? "weld"
                       : type == mjEQ_JOINT ? "joint"
                       : type == mjEQ_TENDON ? "tendon"
                                             : "distance";
    const std::string element = std::string("equality ") + kind + " " + inQuotes(name);
    const mjtNum* data = m_->eq_data + mjNEQDATA * e;
    if (!m_->eq_active[e]) {
      modelWarn(element, "inactive in the file; not converted");
      return;
    }
    Constraint c;
    c.name = name;
    switch (type) {
      case mjEQ_CONNECT: {
        const int b1 = m_->eq_obj1id[e], b2 = m_->eq_obj2id[e];
        c.kind = ConstraintKind::Connect;
        c.placement1 = translation(mjVector(data));
        c.placement2 = translation(connectPointOnBody2(b1, b2, mjVector(data)));
        if (!attachEnds(c, b1, b2, element)) return;
        break;
      }
      case mjEQ_WELD: {
        // MuJoCo 2.2 eq_data: [anchor on body2 (3), relpos on body1 (3),
        // relquat (4), torquescale]; it holds when body2's point `anchor`
        // meets body1's point `relpos` and R2 = R1 R(relquat). The compiler
        // fills relpos/relquat from qpos0 when the file gives no relpose.
        const int b1 = m_->eq_obj1id[e], b2 = m_->eq_obj2id[e];
        c.kind = ConstraintKind::Weld;
        c.placement1 = SE3(mjQuaternion(data + 6).toRotationMatrix(), mjVector(data + 3));
        c.placement2 = translation(mjVector(data));
        if (data[10] != 1.0) modelWarn(element, "torquescale " + str(data[10]) + " ignored (loopsim welds are rigid)");
        if (!attachEnds(c, b1, b2, element)) return;
        break;
      }
      case mjEQ_JOINT: {
        // MuJoCo: q1 - q1⁰ = Σ a_k (q2 - q2⁰)^k. Linear ones are couplings.
        if (data[2] != 0.0 || data[3] != 0.0 || data[4] != 0.0) {
          modelWarn(element, "nonlinear polynomial coupling is not represented; not converted");
          return;
        }
        const int j1 = m_->eq_obj1id[e], j2 = m_->eq_obj2id[e];
        c.kind = ConstraintKind::Coupling;
        c.coupling_joints.push_back(out_.mujoco_joint[j1]);
        c.coupling_coefficients.push_back(1.0);
        c.coupling_offset = data[0] + m_->qpos0[m_->jnt_qposadr[j1]];
        if (j2 >= 0) {
          c.coupling_joints.push_back(out_.mujoco_joint[j2]);
          c.coupling_coefficients.push_back(-data[1]);
          c.coupling_offset -= data[1] * m_->qpos0[m_->jnt_qposadr[j2]];
        }
        for (int j : {j1, j2}) {
          if (j >= 0 && m_->jnt_type[j] != mjJNT_HINGE && m_->jnt_type[j] != mjJNT_SLIDE) {
            modelWarn(element, "couples a multi-dof joint; not converted");
            return;
          }
        }
        break;
      }
      default:
        modelWarn(element, "not represented in loopsim; not converted");
        return;
    }
    out_.constraints.push_back(std::move(c));
  }

  // After build(): warnings go straight into the model.
  void modelWarn(const std::string& element, const std::string& message) {
    out_.model.warnings.push_back(file_ + ": " + element + ": " + message);
  }

  /// body2's point (in body2's MuJoCo frame) that coincides with body1's
  /// anchor at qpos0: p2 = R2ᵀ (x1 + R1 a - x2), from MuJoCo's kinematics.
  Vector3 connectPointOnBody2(int b1, int b2, const Vector3& anchor) {
    const mjData* d = referenceKinematics();
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R1(d->xmat + 9 * b1), R2(d->xmat + 9 * b2);
    return R2.transpose() * (mjVector(d->xpos + 3 * b1) + R1 * anchor - mjVector(d->xpos + 3 * b2));
  }

  const mjData* referenceKinematics() {
    if (!reference_data_) {
      reference_data_.reset(mj_makeData(m_));
      if (!reference_data_) throw ModelError(file_, "", "MuJoCo could not allocate mjData");
      mju_copy(reference_data_->qpos, m_->qpos0, m_->nq);
      mj_kinematics(m_, reference_data_.get());
    }
    return reference_data_.get();
  }

  /// Moves the MuJoCo-body frames onto loopsim bodies; body1 must move (swap
  /// the ends otherwise). Returns false (with a warning) when both ends end
  /// up on the same rigid body.
  bool attachEnds(Constraint& c, int b1, int b2, const std::string& element) {
    const BodyPlacement& p1 = placements_[b1];
    const BodyPlacement& p2 = placements_[b2];
    c.body1 = p1.body;
    c.body2 = p2.body;
    c.placement1 = p1.offset * c.placement1;
    c.placement2 = p2.offset * c.placement2;
    if (c.body1 == c.body2) {
      modelWarn(element, "both bodies are rigidly attached to " + inQuotes(out_.model.body_names[c.body1]) +
                             "; the constraint is void and not converted");
      return false;
    }
    if (c.body1 == 0) {
      std::swap(c.body1, c.body2);
      std::swap(c.placement1, c.placement2);
    }
    return true;
  }

  const mjModel* m_;
  const mjModel* mesh_pose_model_;
  const MjcfAssetScan& scan_;
  std::set<std::string> placeholder_meshes_;
  std::string file_;
  MjcfOptions options_;
  ModelBuilder builder_;
  MjcfLoad out_;
  std::vector<BodyPlacement> placements_;
  std::vector<double> effort_limit_;
  std::set<std::string> frame_names_{"world"};
  int next_frame_ = 1;  // index of the builder's next frame (0 is the world)
  std::set<int> warned_inertia_bodies_;
  std::string ignored_frictionloss_;
  MjDataPtr reference_data_;
};

}  // namespace

MjcfLoad loadMjcf(const fs::path& file, const MjcfOptions& options) {
  const std::string shown = file.filename().string();
  const MjcfAssetScan scan = mjcf_detail::scanMjcfAssets(file);

  // Placeholders for missing asset files, by base name (MuJoCo's VFS key).
  VirtualFiles placeholders;
  std::set<std::string> placeholder_meshes;
  std::vector<std::string> warnings;
  std::map<std::string, std::string> present_base_names;  // base name -> a present file using it
  for (const MjcfAssetFile& f : scan.files)
    if (f.found) present_base_names.emplace(f.path.filename().string(), f.path.string());
  bool any_present_mesh = false;
  for (const MjcfAssetFile& f : scan.files) {
    if (f.found) {
      any_present_mesh = any_present_mesh || f.kind == MjcfAssetFile::Kind::Mesh;
      continue;
    }
    if (!options.placeholder_assets) continue;  // MuJoCo reports the missing file
    const std::string base = f.path.filename().string();
    const std::string extension = lowercase(f.path.extension().string());
    std::string bytes;
    if (f.kind == MjcfAssetFile::Kind::Mesh) {
      bytes = mjcf_detail::placeholderMesh(extension, f.scale);
      placeholder_meshes.insert(f.name);
    } else if (extension == ".png") {
      bytes = mjcf_detail::placeholderPng();
    } else {
      continue;  // no placeholder for this format: MuJoCo reports the missing file
    }
    placeholders.add(base, bytes, shown);
    warnings.push_back(shown + ": " + f.element + ": file " + inQuotes(f.reference) + " not found (" +
                       f.path.string() + "); a placeholder " +
                       (f.kind == MjcfAssetFile::Kind::Mesh ? "box mesh" : "1x1 image") + " is used");
    if (const auto it = present_base_names.find(base); it != present_base_names.end()) {
      warnings.push_back(shown + ": " + f.element + ": the placeholder for " + inQuotes(base) +
                         " also replaces the present file " + it->second +
                         " (MuJoCo's virtual files are keyed by base name)");
    }
  }

  std::string compiler_warning;
  const MjModelPtr m = compileMjcf(file, placeholders, shown, &compiler_warning);
  if (!compiler_warning.empty()) warnings.push_back(shown + ": MuJoCo compiler: " + compiler_warning);

  // Mesh geom poses as written in the file: compile once more with every
  // mesh replaced by a placeholder whose inertial frame is its own frame.
  MjModelPtr mesh_pose_model;
  if (any_present_mesh) {
    VirtualFiles all_placeholders;
    for (const MjcfAssetFile& f : scan.files) {
      const std::string extension = lowercase(f.path.extension().string());
      if (f.kind == MjcfAssetFile::Kind::Mesh) {
        all_placeholders.add(f.path.filename().string(), mjcf_detail::placeholderMesh(extension, f.scale), shown);
      } else if (!f.found && options.placeholder_assets && extension == ".png") {
        all_placeholders.add(f.path.filename().string(), mjcf_detail::placeholderPng(), shown);
      }
    }
    mesh_pose_model = compileMjcf(file, all_placeholders, shown, nullptr);
  }

  MjcfAssembler assembler(m.get(), mesh_pose_model.get(), scan, std::move(placeholder_meshes), shown, options);
  MjcfLoad out = std::move(assembler).assemble();
  out.model.warnings.insert(out.model.warnings.begin(), warnings.begin(), warnings.end());
  return out;
}

}  // namespace loopsim
