#pragma once
// YAML scene files -> Scene (scene.hpp). The schema, by example (every key
// but `models` or `bodies` is optional; scenes/README.md has the long form):
//
//   name: four_bar                     # default: the file's stem
//   description: planar four-bar driven at the crank
//   models:                            # joined into ONE forest under the world
//     - generator: four_bar            # or  urdf: robots/atlas/atlas.urdf
//                                      # or  mjcf: robots/digit/digit.xml (its connect/weld/
//                                      #     coupling equalities come along, prefixed; Digit's
//                                      #     rigid-spring variant is digit_rigid_springs.xml)
//       params: {crank: 0.3, crank_angle: 1.0}
//       prefix: left_                  # prepended to bodies, joints, frames, constraints
//       base: fixed                    # fixed | floating; default: as the model is
//       base_body: {shape: box, size: [0.3, 0.3, 0.1], mass: 5}   # floating base of a fixed model
//       pose: {position: [0, 0, 1], rpy: [1.5708, 0, 0]}   # or quaternion: [x, y, z, w] (unit)
//   bodies:                            # free rigid bodies (Floating joint "<name>_joint")
//     - {name: box, shape: box, size: [0.2, 0.2, 0.2], mass: 1.0, pose: {...}, rgba: [1, 0, 0, 1]}
//       # box size = full extents [x, y, z]; sphere [r]; cylinder [r, length] (axis z)
//   initial:
//     q: {crank_joint: 0.5, box_joint: [0, 0, 1, 0, 0, 0, 1]}   # one value per joint dof of q
//     v: {crank_joint: 1.0}
//   hold: [crank_joint]                # kept fixed by the consistent-start projection
//   constraints:                       # added to those of the generators
//     - name: left_foot_weld
//       type: weld                     # weld | connect | revolute | coupling
//       frame1: left_foot              # or body1: name; frame or body on the first end
//       placement1: {position: [0, 0, 0]}   # relative to that frame/body (default identity)
//       frame2: world                  # or body2; default world
//       placement2: {...}              # default: where end 1 is at the initial q ("weld it where it stands")
//       rows: [vx, vy, vz]             # weld: wx wy wz vx vy vz; connect: x y z; revolute: x y z rx ry
//       kp: 100                        # explicit Baumgarte gains (else from the time constant)
//       kd: 20
//     - {name: gear, type: coupling, joints: [a, b], coefficients: [1, -2], offset: 0}
//   actuated: all                      # or a list of joint names (all = every non-floating joint)
//   controller:
//     type: sinusoid                   # none | pd_hold | gravity_compensation | sinusoid
//     kp: 200
//     kd: 20
//     drives: [{joint: crank_joint, amplitude: 0.5, frequency: 0.5, phase: 0, offset: 1.0}]
//   gravity: [0, 0, -9.81]
//   dt: 0.001
//   duration: 10
//   solver: {name: kkt, mu: 1e8, tolerance: 1e-10, max_iterations: 100, warm_start: true, soft_weight: 1e6}
//                                      # name: auto = the fastest exact solver by a timing probe at the start;
//                                      # mu: auto at the start: 3e3 · λ_max((J M⁻¹ Jᵀ)⁺) (lcaba, constrained-aba) or 1e6 · λ_max(M) (solvers/selection/auto_mu.hpp)
//                                      # or solver: kkt; default: one whose cost fits (default_solver.hpp), or the first registered solver
//                                      # with every capability the scene needs
//   stabilization: {time_constant: 0.1}   # Baumgarte T; 0 disables
//   projection: false                  # post-step projection onto the constraint manifold
//   redundant: false                   # the constraint set is knowingly rank-deficient
//   joint_limits: {enabled: true, slop: 0.001}   # the model's position limits as unilateral rows
//                                      # (contact/joint_limits.hpp); or joint_limits: false
//   ground: {height: 0, tilt: 30, friction: 0.8}   # a world half-space through (0, 0, height); normal: [x, y, z]
//                                      # or tilt (degrees about world y, descending along +x); default μ 1
//   obstacles:                         # static geometry on the world
//     - {name: step, shape: box, size: [1, 1, 0.1], pose: {...}, friction: 0.5}   # or sphere, cylinder,
//     - {name: wall, shape: plane, normal: [-1, 0, 0], offset: -2}                 # plane: n·x <= offset is solid
//   exclude: [[box, left_hand]]        # body pairs that never collide
//   contact: {solver: admm, tolerance: 1e-10, max_iterations: 1000, margin: 0.005}   # or solver: pgs
//   (bodies[] also take friction: μ (default 1) and collide: false; a pair's μ is the larger of the two)
//
// URDF and MJCF paths resolve relative to the scene file, else relative to the
// repository's assets/ directory (found upward from the scene file and the
// working directory, or $LOOPSIM_ASSETS_DIR).
//
// Validation is strict and every failure is a ModelError naming the file,
// the YAML path and line and the offending value: unknown keys (with the
// nearest valid key), unknown bodies, frames, joints, generators and solvers
// (nearest name), wrong value types, dt or duration <= 0, non-unit
// quaternions, missing files, a solver lacking a capability the scene needs,
// and a rank-deficient constraint set on an exact solver when the scene does
// not declare `redundant: true` (naming the dependent rows).
#include <filesystem>
#include <string>
#include <vector>

#include <loopsim/constraints/constraint_rank.hpp>
#include <loopsim/scene/scene.hpp>

namespace loopsim {

Scene loadScene(const std::filesystem::path& file);

/// name_for_errors names the text in messages; relative URDF paths resolve from base_dir.
Scene loadSceneString(const std::string& text, const std::string& name_for_errors,
                      const std::filesystem::path& base_dir = {});

}  // namespace loopsim
