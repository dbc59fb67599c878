#pragma once
// A scene as MuJoCo reads it, for stepping it beside loopsim (the contact step
// benchmark, and tests that use MuJoCo as an oracle). Needs MuJoCo linked.
//
// What MuJoCo gets:
//   - the robot: the scene's URDF through MuJoCo's importer (mujoco_urdf.hpp:
//     inertials as written, <collision> elements as geoms, a free joint for a
//     floating base), or the scene's MJCF as it is (Digit: its loops as MuJoCo's
//     connect equalities; the file's own <option> gives way);
//   - or, for a scene of free bodies (`bodies:`), each body with a free joint
//     of the same name, its inertia and its collision geometries as geoms;
//   - every half-space of the scene (the ground, tilted or not) as a plane with
//     its friction;
//   - the PD: kp as a position actuator per actuated joint, kd as the joint's
//     damping (MuJoCo's Euler integrator takes it implicitly, as loopsim does);
//     the holding feed-forward as applied joint forces (setMujocoState);
//   - the elliptic cone, the Euler integrator at the scene's dt and gravity, and
//     the stiffest contact setting MuJoCo's 2·dt floor allows (solref 0.002 1).
#include <mujoco/mujoco.h>

#include <string>

#include <loopsim/bench/mujoco_handles.hpp>
#include <loopsim/scene/scene.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim::mujoco_peer {

/// The scene's MJCF text as above. Throws ModelError naming the scene file when
/// it has neither one URDF/MJCF model nor only free bodies.
std::string mujocoSceneText(const Scene& scene);

/// mujocoSceneText compiled, with the PD's kd as joint damping.
MjModelPtr mujocoSceneModel(const Scene& scene);

/// The simulation's state in MuJoCo's coordinates (writeMujocoState), the
/// position actuators holding the scene's initial pose and the controller's
/// feed-forward as applied joint forces; then mj_forward.
void setMujocoState(const Simulation& simulation, const mjModel* m, mjData* d);

}  // namespace loopsim::mujoco_peer
