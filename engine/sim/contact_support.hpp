#pragma once
// What a pose stands on, for the holding feed-forward (controller feedforward:
// hold). A robot on contacts has no weld whose force the hold can balance
// against; its supports are the contacts of the pose: each resting face's
// points (the contacts of a geometry pair within kRestingFaceTolerance of the
// pair's nearest one, so a sole box gives its four lower corners and not its
// upper ones), of the pairs that are within kSupportReach (a scene starts its
// robot a few millimetres above the ground), each as a connect constraint
// (3 rows) joining the point on the body to where it is. The hold then splits
// the load between the actuators and the contact points (least effort, then
// the least forces: holding_forces.hpp), as it does between the actuators and
// the welds of a welded scene. The supports are the controller's model only:
// the dynamics keep the contacts.
#include <string>
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/control/holding_forces.hpp>
#include <loopsim/scene/scene.hpp>

namespace loopsim {

/// How far above its support a pose may start and still stand on it (m).
inline constexpr double kSupportReach = 0.02;
/// The points of a resting face: within this of the pair's nearest point (m).
inline constexpr double kRestingFaceTolerance = 1e-3;

struct Support {
  Constraint constraint;  // connect, frame A at the point on the body (world axes at q)
  Vector3 normal;         // world: the direction the support pushes the body
  double friction = 0.0;  // the pair's μ
};

/// The supports of the scene's robot at q (none without contact geometry).
std::vector<Support> supportsAt(const Scene& scene, const Eigen::Ref<const VectorX>& q);

/// The scene's constraints followed by the supports' connects: what the
/// holding feed-forward balances against.
std::vector<Constraint> holdingConstraints(const Scene& scene, const std::vector<Support>& supports);

/// Warnings on the holding forces of `supports` (their λ after the scene's own rows
/// in `hold`): a support that pulls, or pushes outside its friction cone.
std::vector<std::string> supportWarnings(const Scene& scene, const std::vector<Support>& supports,
                                         const HoldingForces& hold);

}  // namespace loopsim
