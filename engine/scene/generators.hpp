#pragma once
// Procedural mechanisms with parameters. Each returns a fixed- or
// floating-base Model, its constraints, a start configuration q0 on which
// every loop closes (to round-off), and its constraint dimension and rank at
// q0. Spatial generators use non-parallel joint axes so that each weld or
// connect is full rank; planar ones use in-plane rows.
//
// Scenes reach them by name through generatorRegistry() (scene_loader.hpp).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <loopsim/constraints/constraint.hpp>
#include <loopsim/model/model.hpp>

namespace loopsim {

struct GeneratedMechanism {
  Model model;
  std::vector<Constraint> constraints;
  VectorX q0;               // configuration where the loops close
  std::string doc;          // one paragraph: what it is, its dof, dimension and rank
  int constraint_dim = 0;   // Σ rows of the constraints
  int constraint_rank = 0;  // rank of J(q0)
};

/// Planar four-bar in the xy plane, revolute z axes: ground pivots A = (0,0,0)
/// and D = (ground,0,0); crank (joint "crank_joint" at A; bodies are named like
/// their joints without "_joint") carries the coupler
/// ("coupler_joint"); the rocker ("rocker_joint") hangs from D. The coupler tip
/// closes on the rocker tip through revolute loop "loop" with the in-plane row
/// mask {x, y}. Constraint dimension 2, rank 2; 1 dof. q0 has the crank at
/// crank_angle (absolute, rad) and the other two joints on the "elbow up"
/// assembly, computed in closed form, so φ(q0) = 0 to round-off.
struct FourBarParams {
  double ground = 0.9, crank = 0.3, coupler = 1.0, rocker = 0.8;  // link lengths (m)
  double crank_angle = 1.0;                                       // rad
  double width = 0.04;                                            // link cross-section (m)
  double mass_per_length = 2.0;                                   // kg/m
};
GeneratedMechanism fourBar(const FourBarParams& params = {});

/// Spatial closed chain of `links` (>= 6) revolute joints (bodies "link_i",
/// joints "link_i_joint", tip frame "tip"). At q = 0 the links
/// form a regular horizontal polygon (each joint frame turned by 2π/links about
/// z and shifted `length` along x), so the tip returns to the first pivot; the
/// joint axes are tilted by `tilt` from z towards directions spread by the
/// golden angle (no two parallel). Closure "loop" of the tip to the world at
/// q0 = 0: connect (dimension 3, rank 3; links - 3 dof) or revolute
/// (dimension 5, rank 5; links - 5 dof).
struct SpatialChainParams {
  int links = 6;
  double length = 0.3;  // m
  double tilt = 0.6;    // rad
  bool revolute_closure = false;
  double width = 0.03;
  double mass_per_length = 2.0;
};
GeneratedMechanism spatialChain(const SpatialChainParams& params = {});

/// Hanging chain of `links` revolute joints (bodies "link_1".."link_n", joints
/// "link_1_joint".., axes with
/// non-parallel directions and z components of alternating sign), each link
/// `length` long along -z, starting from a bent pose q0 (a fixed pattern of
/// angles up to `bend` rad). With weld_tip the tip frame "tip" is welded to the
/// world where it is at q0: dimension 6, rank 6 (needs links >= 7 for the
/// chain to move: links - 6 dof). Without it: no constraints.
struct PendulumChainParams {
  int links = 7;
  double length = 0.25;
  double bend = 0.5;
  bool weld_tip = true;
  double width = 0.03;
  double mass_per_length = 2.0;
};
GeneratedMechanism pendulumChain(const PendulumChainParams& params = {});

/// Humanoid-sized floating tree (about 83 kg, 1.6 m): pelvis on a Floating
/// "root_joint"; legs of 6 joints (hip yaw, roll, pitch, knee, ankle pitch,
/// roll), torso of 3 (yaw, pitch, roll), a neck pitch and arms of 7 (shoulder
/// pitch, roll, yaw, elbow, wrist yaw, pitch, roll): 30 joints, nq 37, nv 36.
/// Every revolute joint has a 0.05 kg m² rotor armature.
/// Joint names "left_knee", "torso_yaw", "neck_pitch", ...; sole frames
/// "left_foot"/"right_foot", hand frames "left_hand"/"right_hand". q0 stands
/// with knees bent by knee_bend and soles on z = 0. With weld_feet, both soles
/// are welded to the world where they stand ("left_foot_weld",
/// "right_foot_weld"): dimension 12, rank 12 (knees bent, legs non-singular).
struct HumanoidTreeParams {
  double knee_bend = 0.4;  // rad, > 0 keeps the legs away from the stretched singularity
  bool weld_feet = true;
};
GeneratedMechanism humanoidTree(const HumanoidTreeParams& params = {});

/// Knowingly rank-deficient sets.
///  planar_connect:    the four-bar (defaults) closed by a full 3D connect
///                     "loop" instead of the in-plane rows: the z row is
///                     identically zero on a planar mechanism. Dimension 3, rank 2.
///  duplicate_connect: the 6-link spatial chain closed twice by identical
///                     connects "loop" and "loop_copy". Dimension 6, rank 3.
struct RedundantMechanismParams {
  enum class Variant { PlanarConnect, DuplicateConnect };
  Variant variant = Variant::PlanarConnect;
};
GeneratedMechanism redundantMechanism(const RedundantMechanismParams& params = {});

// ---- Registry: generators by name, parameters as YAML scalar text. ----

struct GeneratorParameter {
  enum class Kind { Number, Integer, Boolean, Choice };
  std::string name;
  Kind kind = Kind::Number;
  std::string default_value;         // as written in YAML
  std::string doc;
  std::vector<std::string> choices;  // Kind::Choice
};

using GeneratorArguments = std::map<std::string, std::string>;

struct GeneratorInfo {
  std::string name;
  std::string doc;
  std::vector<GeneratorParameter> parameters;
  /// Arguments not given take their defaults. Throws ModelError on a value of
  /// the wrong kind or out of range (element "parameter 'name'").
  std::function<GeneratedMechanism(const GeneratorArguments&)> make;
};

const std::vector<GeneratorInfo>& generatorRegistry();
/// nullptr when unknown.
const GeneratorInfo* findGenerator(const std::string& name);

}  // namespace loopsim
