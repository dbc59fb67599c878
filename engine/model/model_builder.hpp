#pragma once
// Builds a Model in code (URDF/MJCF loaders and mechanism generators use it).
// Fixed attachments are merged here: their inertia is lumped into the moving
// body and the link is kept as a named frame.
#include <limits>
#include <optional>
#include <string>
#include <unordered_set>

#include <loopsim/model/model.hpp>

namespace loopsim {

struct JointSpec {
  JointType type = JointType::Revolute;
  Vector3 axis = Vector3::UnitZ();  // revolute / prismatic; normalised by the builder
  // Position limits for 1-dof joints; nullopt = unlimited (continuous).
  std::optional<double> lower, upper;
  double velocity_limit = std::numeric_limits<double>::infinity();
  double effort_limit = std::numeric_limits<double>::infinity();
  double damping = 0.0;           // per dof
  double armature = 0.0;          // per dof
  double stiffness = 0.0;         // 1-dof joints only
  double spring_reference = 0.0;  // 1-dof joints only
};

class ModelBuilder {
 public:
  /// source_file names the file in error messages (may be empty for models built in code).
  explicit ModelBuilder(std::string model_name, std::string source_file = "");

  /// Adds a moving body attached to parent_body (0 = world) through a joint
  /// whose frame sits at joint_placement in the parent body frame. The body
  /// frame coincides with the joint's child frame. Returns the body index.
  int addBody(int parent_body, const std::string& joint_name, const JointSpec& joint, const SE3& joint_placement,
              const Inertia& inertia, const std::string& body_name);

  /// Rigidly attaches a link to `body` at `placement`: lumps its inertia into
  /// the body and records a MergedLink frame. Returns the frame index.
  int addFixedLink(int body, const SE3& placement, const Inertia& inertia, const std::string& link_name);

  int addFrame(const std::string& name, int body, const SE3& placement, Frame::Kind kind = Frame::Kind::Site);
  void addVisual(VisualGeometry geometry);
  void addCollision(CollisionElement element);
  /// The two bodies' collision geometries never touch each other.
  void excludeCollision(int body_a, int body_b);
  void addWarning(std::string warning);
  void setGravity(const Vector3& g);

  /// Validates (names, finite numbers, inertias) and returns the model.
  /// With strict, triangle-inequality violations are errors instead of warnings.
  Model build(bool strict = false) &&;

 private:
  void requireUniqueBodyName(const std::string& name) const;
  Model model_;
  // Loading must stay linear in the link count (tens of thousands of links):
  // names are looked up in hash sets, and the per-dof vectors grow in
  // std::vector (amortised) before build() moves them into the model.
  std::unordered_set<std::string> frame_names_, joint_names_;
  std::vector<double> lower_, upper_, velocity_limit_, effort_limit_, damping_, armature_, stiffness_, spring_reference_;
};

/// Checks an inertia; returns an empty string when valid, else the reason.
/// Triangle-inequality violations are reported through *triangle_warning.
std::string inertiaProblem(const Inertia& inertia, std::string* triangle_warning = nullptr);

}  // namespace loopsim
