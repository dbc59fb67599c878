#pragma once
// What the visual toggles add over the robot: body frames, centres of mass,
// constraint frames with each loop's closure error (magnified so that 1e-6 m
// shows), constraint forces λ as arrows, contacts with their forces and
// friction cones, and the collision geometry. Computed from a session's
// kinematics; drawn with the renderer's primitives.
#include "gui/sim_session.hpp"
#include "render/renderer.hpp"

namespace loopsim::app {

/// The collision geometry (the shapes contacts are found on), drawn translucent.
enum class CollisionDisplay { off, over_visuals, instead_of_visuals };

struct OverlayToggles {
  bool body_frames = false;
  bool centers_of_mass = false;
  bool constraint_frames = false;
  bool constraint_forces = false;
  bool contacts = false;  // contact points, normal and friction forces (one scale)
  bool friction_cones = false;  // each contact's Coulomb cone, translucent, along its normal
  CollisionDisplay collision = CollisionDisplay::off;
  bool transparent = false;
  bool wireframe = false;
};

/// Displayed length (m) of a closure error of `error` metres: 2 cm at 1e-6 m,
/// +2 cm per decade above, nothing below 1e-9 m.
float closureErrorLength(double error);

/// Every collision geometry on a body (not the ground) at the session's shown
/// pose, translucent; a convex hull as the box of its vertices, in wireframe.
void drawCollisionGeometry(render::Renderer& renderer, const SimulationSession& session);

/// `scale`: a length typical of the model (m), which sizes frames and arrows.
/// Returns the force scale used for λ arrows (N per metre of arrow), 0 when none drawn;
/// constraint and contact force arrows share it.
double drawOverlays(render::Renderer& renderer, const SimulationSession& session, const OverlayToggles& toggles,
                    float scale);

}  // namespace loopsim::app
