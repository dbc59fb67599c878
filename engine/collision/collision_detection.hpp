#pragma once
// Collision detection with FCL (the Flexible Collision Library): the contact points
// of a GeometryModel at the bodies' placements (Data::oMi), with their normals,
// signed distances, friction, contact frames and ids that persist from step to step.
//
//   - Broadphase: FCL's dynamic AABB tree over the bounded geometries, each box
//     inflated by half the margin, so two geometries closer than the margin are a
//     candidate pair. Half-spaces are unbounded and stay out of the tree: each is
//     tested against every geometry it may collide with.
//   - Narrowphase: FCL's collision query, then, for a pair that does not overlap,
//     FCL's distance query (nearest points) to report it inside the margin band.
//     Against a half-space FCL 0.7 has no distance query, so the half-space is
//     shifted outward by the margin and FCL's collision query decides.
//   - Manifolds: FCL gives one point for a box, cylinder, capsule or convex mesh on a
//     half-space (the deepest). A box resting on its face needs its four corners, so
//     against a half-space the supporting points are listed: the box's and the
//     convex mesh's vertices, the capsule's two end spheres, eight points on the
//     cylinder's rims (the deepest point of each rim and the points a quarter and a
//     half turn away), each kept when its own signed distance is below the margin.
//     Box-box contacts are FCL's (up to 4 once the boxes overlap; one, the nearest
//     points, inside the margin band; one with the normal along the line between
//     the centres when they touch exactly, where FCL's queries disagree).
//   - Persistence: a contact of the same geometry pair whose point moved less than
//     settings().persistence_tolerance on one of the two bodies since the previous
//     step keeps its id and its tangent directions (for warm starts).
#include <cstdint>
#include <memory>
#include <vector>

#include <loopsim/collision/geometry.hpp>
#include <loopsim/model/data.hpp>

namespace loopsim {

struct ContactPoint {
  int geometry_a = 0, geometry_b = 0;  // geometry_a < geometry_b
  int body_a = 0, body_b = 0;
  /// World position between the two surfaces: midway between them along the normal
  /// against a half-space and inside the margin band; for two overlapping bounded
  /// geometries FCL's contact point (midway for sphere-box and box-box, on the
  /// centre line for two spheres).
  Vector3 position = Vector3::Zero();
  /// Unit normal from a to b: the direction in which b must move to separate.
  Vector3 normal = Vector3::UnitZ();
  /// Signed distance between the surfaces along the normal; negative = penetration.
  double distance = 0.0;
  /// The pair's Coulomb friction (GeometryModel::pairFriction).
  double friction = 0.0;
  /// Contact frame in the world: columns t1, t2, n (right-handed, n = normal), the
  /// frame of the contact problem's blocks [t1, t2, n].
  Matrix3 frame = Matrix3::Identity();
  /// Stays the same while the contact persists; never reused.
  std::uint64_t id = 0;
  /// The position in body a's and body b's frames.
  Vector3 position_in_a = Vector3::Zero(), position_in_b = Vector3::Zero();
};

/// The workspace of the detection, built once from a complete GeometryModel: FCL's
/// shapes, collision objects and broadphase tree, the candidate pairs and the
/// contacts. Changed geometries or settings need a new CollisionData (a different
/// geometry count is refused); the pair rules are read at each detection. Our own
/// storage is reused once the contact count has been seen, but FCL's queries
/// allocate (measured: 9 allocations per detection for 6 touching pairs).
class CollisionData {
 public:
  explicit CollisionData(const GeometryModel& geometry);
  ~CollisionData();
  CollisionData(CollisionData&&) noexcept;
  CollisionData& operator=(CollisionData&&) noexcept;

  /// The contacts of the last detection, sorted by geometry pair.
  const std::vector<ContactPoint>& contacts() const;
  /// Forgets the previous step's contacts: the next detection gives new ids.
  void resetPersistence();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  friend const std::vector<ContactPoint>& computeContacts(const GeometryModel&, const std::vector<SE3>&,
                                                          CollisionData&);
};

/// Detects the contacts at the body placements oMi (one per body of the model, 0 =
/// the world) and returns collision.contacts(). `collision` must have been built
/// from `geometry` (same geometry count); std::invalid_argument otherwise.
const std::vector<ContactPoint>& computeContacts(const GeometryModel& geometry, const std::vector<SE3>& oMi,
                                                 CollisionData& collision);
/// The same at data.oMi (run forwardKinematics first).
const std::vector<ContactPoint>& computeContacts(const GeometryModel& geometry, const Data& data,
                                                 CollisionData& collision);

}  // namespace loopsim
