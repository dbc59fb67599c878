#pragma once
// Joins several models and free rigid bodies into ONE multibody forest under
// the world, the way a scene needs it ("two robots holding one box").
//
// Each appended model gets a name prefix (bodies, joints, frames, visuals),
// a base pose in the world and a base mode:
//  - Keep:     roots attached to the world by a joint keep it (placement composed
//              with the base pose); floating roots stay floating;
//  - Fixed:    as Keep, but a floating root is welded where it stands: the root
//              body merges into the world (its inertia leaves the dynamics, its
//              frames and visuals stay as world frames) and its children hang
//              from the world;
//  - Floating: floating roots stay floating; roots attached to the world by a
//              joint are carried by a new floating body "<prefix>floating_base"
//              whose inertia comes from AppendOptions::floating_base_body (a fixed
//              model's root link is the world and has no inertia to reuse).
// A model may instead be attached to a body or frame of another (a hand on a
// robot's wrist): passed to the append of the model that holds the target,
// it is appended there, inside the target's subtree (the builder takes bodies
// depth-first), its world frame at the target; a floating root is welded there
// with its inertia added to the target body's, its world-jointed roots hang
// from it. Attachments may target attached models in turn.
// Floating joints of the assembly have identity placements, so their q is the
// body's pose in the world ([position; quaternion xyzw]), as docs/conventions.md states.
// The assembly also collects the initial configuration q0.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <loopsim/constraints/constraint.hpp>
#include <loopsim/model/model_builder.hpp>
#include <loopsim/scene/rigid_shapes.hpp>

namespace loopsim {

enum class BaseMode { Keep, Fixed, Floating };

struct AppendOptions {
  std::string prefix;
  SE3 base_pose;  // the appended model's world frame, in the world
  BaseMode base = BaseMode::Keep;
  std::optional<RigidShape> floating_base_body;  // needed for Floating on a fixed-root model
};

/// Where a body of an appended model went.
struct BodyMapping {
  int body = 0;    // body of the assembly carrying it (0 = the world)
  SE3 placement;   // the source body frame in that body's frame
};

struct AppendedModel {
  std::string prefix;
  std::vector<BodyMapping> bodies;  // per source body; [0] = the source's world frame
  std::vector<int> joints;          // per source joint: joint of the assembly, -1 when merged away
};

/// A model to attach to a body or frame of a model being appended (ModelAssembly::append).
struct Attachment {
  std::string to;         // a body or frame of the assembly, prefixed ("r_hand_mount")
  SE3 placement;          // the attached model's world frame in that body or frame
  const Model* model = nullptr;
  AppendOptions options;  // its prefix (base and base_pose do not apply)
  VectorX q0;             // its configuration to start from (empty = neutral)
  std::function<void(const AppendedModel&)> attached;  // called once it is in
  bool done = false;
};

class ModelAssembly {
 public:
  /// source_file names the scene in error messages.
  explicit ModelAssembly(std::string name, std::string source_file = "");

  /// Appends `model` (whose bodies are in depth-first order, as every Model is).
  /// q0: the source model's configuration to start from (empty = neutral).
  /// `attachments`: models that may attach to a body or frame of this one (or
  /// of a model attached meanwhile); those that do are appended and marked done.
  AppendedModel append(const Model& model, const AppendOptions& options, const VectorX& q0 = {},
                       std::vector<Attachment>* attachments = nullptr);

  /// A free rigid body: a Floating joint "<name>_joint" from the world, starting at `pose`.
  int addFreeBody(const std::string& name, const RigidShape& shape, const SE3& pose);

  void setGravity(const Vector3& gravity) { builder_.setGravity(gravity); }

  struct Result {
    Model model;
    VectorX q0;
  };
  /// Builds the model (validation as ModelBuilder::build) and the initial configuration.
  Result build() &&;

 private:
  int addBody(int parent, const std::string& joint_name, const JointSpec& spec, const SE3& placement,
              const Inertia& inertia, const std::string& body_name, const Eigen::Ref<const VectorX>& q_init);
  int addFloatingBody(const std::string& joint_name, const Inertia& inertia, const std::string& body_name,
                      const SE3& pose);
  AppendedModel appendAt(const Model& model, const AppendOptions& options, const VectorX& q0,
                         const std::optional<BodyMapping>& at, std::vector<Attachment>* attachments);

  // Per-dof properties copied from a source joint, written after build (the
  // builder takes one value per joint; sources may differ per dof).
  struct DofProperties {
    int joint = 0;
    VectorX lower, upper, spring_reference;                     // nq of the joint
    VectorX velocity_limit, effort_limit, damping, armature, stiffness;  // nv of the joint
  };

  ModelBuilder builder_;
  std::string source_file_;
  std::vector<double> q0_;
  std::vector<DofProperties> copied_dofs_;
  int nbodies_ = 1;
};

/// The constraint of an appended model in the assembly: name prefixed, bodies
/// and placements mapped, coupling joints renumbered. A first end merged into
/// the world swaps the two ends (the first body must move).
Constraint remapConstraint(const Constraint& constraint, const AppendedModel& where);

}  // namespace loopsim
