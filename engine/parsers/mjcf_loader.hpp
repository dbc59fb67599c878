#pragma once
// MJCF (MuJoCo XML) -> Model + loop-closure constraints. MuJoCo's own parser
// and compiler read the file (mj_loadXML -> mjModel); the compiled mjModel is
// then converted through ModelBuilder. MuJoCo is never used for dynamics.
// Every problem is a ModelError naming the file; non-fatal findings go to
// Model::warnings, each naming the element.
//
// Mapping (MuJoCo body order is already depth-first):
//  - hinge -> Revolute, slide -> Prismatic, ball -> Spherical, free ->
//    Floating, with damping, armature, stiffness, spring reference
//    (qpos_spring) and limits (jnt_limited / jnt_range);
//  - loopsim q equals MuJoCo qpos joint by joint (same angles, limits and
//    spring references) except that quaternions are stored [x y z w]
//    (MuJoCo: [w x y z]). A hinge/slide `ref` is folded into the joint
//    placement, since MuJoCo rotates by qpos - qpos0;
//  - velocities: hinge, slide and ball dofs are equal (ball: angular velocity
//    in the child frame). Free joint: loopsim v = [ω; v] in the body frame,
//    MuJoCo qvel = [v in world; ω in the body frame];
//  - loopsim's body frame is the joint frame, so a hinge or ball joint whose
//    anchor (joint pos) is off the MuJoCo body origin gets its loopsim body
//    frame at the anchor. Inertia, geoms, sites and children are re-expressed
//    exactly, and such a body is named "<body>/<joint>" while a frame named
//    after the MuJoCo body keeps the original body placement. A body with
//    several joints becomes a chain of massless bodies "<body>/<joint>", one
//    per joint, the last carrying the inertia;
//  - a body without joints is merged into its parent (inertia lumped, kept as
//    a MergedLink frame); unnamed elements are named "<body>_joint",
//    "<body>_site<k>", "body<id>", "equality<k>";
//  - inertia from body_mass, body_ipos, body_iquat, body_inertia (principal
//    axes -> full rotational inertia);
//  - geoms -> VisualGeometry: box (full extents), sphere (r), cylinder and
//    capsule (r, full length of the cylindrical part), ellipsoid -> sphere of
//    its largest semi-axis, mesh (file and scale from the XML); planes,
//    height fields and fully transparent geoms (collision proxies) are not
//    drawn. Sites -> Site frames;
//  - geoms with contype or conaffinity set -> Model::collisions (plane, box,
//    sphere, cylinder, capsule, mesh with MuJoCo's compiled vertices), with
//    the bitmasks and the sliding friction (condim 1: frictionless; 4 and 6
//    warned: no torsional or rolling friction); <contact><exclude> ->
//    Model::collision_exclusions. Ellipsoid and height-field collision
//    geoms are warned about and do not collide;
//  - equality connect -> Connect and weld -> Weld with both frames as MuJoCo
//    computes them (body2's connect point and the weld's relative pose from
//    the kinematics at qpos0 unless given); a joint equality with a linear
//    polynomial -> Coupling;
//  - joint motors (gain fixed, no dynamics or bias) are listed in
//    MjcfLoad::motors and set the joint's effort limit (|gear| * control
//    range, capped by the force range).
//  - Warnings (naming the element) for what loopsim cannot represent: tendons,
//    other actuators, explicit contact pairs,
//    sensors, nonlinear joint and tendon equalities, inactive equalities,
//    frictionloss, ball/free joint stiffness and ball cone limits.
//
// Missing asset files: MuJoCo refuses to compile a model whose mesh or
// texture files are absent. With placeholder_assets the loader supplies a
// small placeholder for each through MuJoCo's virtual file system (a box
// mesh, a 1x1 PNG) and warns, naming the asset; the VisualGeometry keeps the
// original mesh path. Inertia computed by MuJoCo from such a placeholder
// mesh (bodies without <inertial>) would be wrong: that is warned about too.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <loopsim/constraints/constraint.hpp>
#include <loopsim/model/model.hpp>

namespace loopsim {

struct MjcfOptions {
  bool strict = false;             // triangle-inequality violations become errors
  bool placeholder_assets = true;  // substitute missing mesh/texture files (else MuJoCo's error)
};

/// A MuJoCo `motor` on a joint: joint torque = gear * ctrl.
struct MjcfMotor {
  std::string name;
  std::string joint;
  double gear = 1.0;
  std::optional<double> ctrl_lower, ctrl_upper;    // when ctrllimited
  std::optional<double> force_lower, force_upper;  // when forcelimited
};

struct MjcfLoad {
  Model model;
  std::vector<Constraint> constraints;  // connect, weld, coupling; in file order
  VectorX qpos0_loopsim;                // MuJoCo's qpos0 (reference pose) in loopsim's layout
  std::vector<MjcfMotor> motors;
  /// Per MuJoCo body id: the loopsim frame at that body's MuJoCo frame (world: 0).
  std::vector<int> mujoco_body_frame;
  /// Per MuJoCo joint id: the loopsim joint (= body) index.
  std::vector<int> mujoco_joint;
};

/// Loads an MJCF file. Throws ModelError naming the file on a missing or
/// unreadable file, malformed XML, MuJoCo compile errors and models loopsim
/// cannot represent (e.g. a free joint inside the tree).
MjcfLoad loadMjcf(const std::filesystem::path& file, const MjcfOptions& options = {});

}  // namespace loopsim
