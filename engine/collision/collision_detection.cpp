#include <loopsim/collision/collision_detection.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/halfspace.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>
#include <fcl/narrowphase/distance.h>

namespace loopsim {

namespace {

// A collision object whose world AABB is grown by a fixed amount, so the
// broadphase pairs geometries that are closer than the margin. FCL's tree reads
// only getAABB(). The box is reached through getAABB(), never through the member
// itself: CollisionObject<double> is compiled in libfcl, and the library's accessor
// gives the address the library reads even where a build's Eigen alignment differs
// from Debian's 16 bytes (ours is held at 16 for fixed-size types: CMakeLists.txt).
class InflatedObject : public fcl::CollisionObjectd {
 public:
  InflatedObject(const std::shared_ptr<fcl::CollisionGeometryd>& shape, int geometry)
      : fcl::CollisionObjectd(shape) {
    setUserData(reinterpret_cast<void*>(static_cast<std::intptr_t>(geometry)));
  }
  void place(const SE3& oMg, double inflate) {
    setTransform(oMg.R, oMg.t);
    computeAABB();
    auto& box = const_cast<fcl::AABBd&>(getAABB());  // a mutable member of a non-const object
    // FCL bounds a rotated shape by the cube around its bounding sphere (a thigh's
    // box 0.21 m long gets a 0.24 m cube, and the broadphase then pairs it with the
    // trunk on every step); the rotated local box, |R| times its half extents, is tight.
    const fcl::AABBd& local = collisionGeometry()->aabb_local;
    if (local.min_.allFinite() && local.max_.allFinite()) {
      const Vector3 centre = oMg.actPoint(0.5 * (local.min_ + local.max_));
      const Vector3 half = oMg.R.cwiseAbs() * (0.5 * (local.max_ - local.min_));
      box.min_ = centre - half;
      box.max_ = centre + half;
    }
    box.min_.array() -= inflate;
    box.max_.array() += inflate;
  }
  int geometry() const { return static_cast<int>(reinterpret_cast<std::intptr_t>(getUserData())); }
};

std::shared_ptr<fcl::CollisionGeometryd> makeShape(const Geometry& g, double margin) {
  switch (g.shape) {
    case GeometryShape::sphere: return std::make_shared<fcl::Sphered>(g.size.x());
    case GeometryShape::box: return std::make_shared<fcl::Boxd>(g.size.x(), g.size.y(), g.size.z());
    case GeometryShape::cylinder: return std::make_shared<fcl::Cylinderd>(g.size.x(), g.size.y());
    case GeometryShape::capsule: return std::make_shared<fcl::Capsuled>(g.size.x(), g.size.y());
    case GeometryShape::halfspace:
      // Shifted outward by the margin: FCL's collision query against it reports every
      // shape closer than the margin to the real half-space (FCL 0.7 has no distance
      // query for half-spaces), and the real distances are computed from it.
      return std::make_shared<fcl::Halfspaced>(g.normal, g.offset + margin);
    case GeometryShape::convex: {
      // Vertices only: without faces FCL's support function visits every vertex,
      // which is what a convex hull given by its vertices needs.
      auto vertices = std::make_shared<std::vector<Vector3>>(g.vertices);
      auto faces = std::make_shared<std::vector<int>>();
      return std::make_shared<fcl::Convexd>(vertices, 0, faces);
    }
  }
  throw std::logic_error("collision: unknown geometry shape");
}

// A tangent t1 orthogonal to the unit normal n: the projection of previous (when
// given and not along n), else of world x (of world y when n is near x).
Vector3 tangentFor(const Vector3& n, const Vector3* previous) {
  if (previous != nullptr) {
    Vector3 t = *previous - n * n.dot(*previous);
    const double norm = t.norm();
    if (norm > 1e-6) return t / norm;
  }
  const Vector3 axis = std::abs(n.x()) < 0.9 ? Vector3::UnitX() : Vector3::UnitY();
  return (axis - n * n.dot(axis)).normalized();
}

}  // namespace

struct CollisionData::Impl {
  // A contact before persistence: where, which way, how far.
  struct Raw {
    int a, b;
    Vector3 position, normal;
    double distance;
  };
  // What persistence needs from the previous step besides the contact itself.
  struct Memory {
    Vector3 tangent_in_a;
    bool matched;
  };

  std::vector<std::shared_ptr<fcl::CollisionGeometryd>> shapes;
  std::vector<std::unique_ptr<InflatedObject>> objects;  // per geometry
  std::vector<SE3> placements;                            // per geometry, in the world
  std::vector<int> moving;                                // geometries on bodies >= 1
  fcl::DynamicAABBTreeCollisionManagerd broadphase;
  std::vector<int> halfspaces;                        // geometry indices
  std::vector<std::pair<int, int>> pairs;            // candidates of this step, (a < b)
  std::vector<Raw> raw;
  std::vector<ContactPoint> contacts, previous;
  std::vector<Memory> previous_memory;
  std::vector<Vector3> tangent_in_a;  // parallel to contacts
  const GeometryModel* geometry = nullptr;
  fcl::CollisionRequestd collide_request;
  fcl::CollisionResultd collide_result;
  fcl::DistanceRequestd distance_request, touching_request;
  fcl::DistanceResultd distance_result;
  std::uint64_t next_id = 1;
  int ngeometries = 0;

  explicit Impl(const GeometryModel& model) : geometry(&model), ngeometries(model.ngeometries()) {
    const double margin = model.settings().margin;
    const int n = model.ngeometries();
    shapes.reserve(static_cast<std::size_t>(n));
    objects.reserve(static_cast<std::size_t>(n));
    std::vector<fcl::CollisionObjectd*> bounded;
    for (int i = 0; i < n; ++i) {
      const Geometry& g = model.geometry(i);
      shapes.push_back(makeShape(g, margin));
      objects.push_back(std::make_unique<InflatedObject>(shapes.back(), i));
      objects.back()->place(g.placement, 0.5 * margin);
      placements.push_back(g.placement);  // the world placement of the world's geometries
      if (g.body != 0) moving.push_back(i);
      if (g.shape != GeometryShape::halfspace) bounded.push_back(objects.back().get());
    }
    broadphase.registerObjects(bounded);
    broadphase.setup();
    for (int h = 0; h < n; ++h) {
      if (model.geometry(h).shape == GeometryShape::halfspace) halfspaces.push_back(h);
    }
    const std::size_t room = static_cast<std::size_t>(4 * n + 16);
    pairs.reserve(room);
    raw.reserve(room);
    contacts.reserve(room);
    previous.reserve(room);
    previous_memory.reserve(room);
    tangent_in_a.reserve(room);
    // FCL's box-box gives up to 4 points; its other pairs give one.
    collide_request.num_max_contacts = 4;
    collide_request.enable_contact = true;
    distance_request.enable_nearest_points = true;
    // FCL's own GJK: its nearest points were the more accurate (libccd's are off by
    // 1e-4 in direction for two spheres 1 mm apart). Unsigned: with signed distance
    // this solver re-runs the collision query when GJK finds the shapes touching and
    // asserts that it collides, which for a box resting exactly on a box it did not.
    // Those touching pairs ask libccd's signed distance instead (touchingPair).
    distance_request.enable_nearest_points = true;
    distance_request.gjk_solver_type = fcl::GST_INDEP;
    distance_request.distance_tolerance = 1e-9;
    touching_request.enable_nearest_points = true;
    touching_request.enable_signed_distance = true;
    touching_request.gjk_solver_type = fcl::GST_LIBCCD;
    touching_request.distance_tolerance = 1e-9;
  }

  static bool collectPair(fcl::CollisionObjectd* o1, fcl::CollisionObjectd* o2, void* self) {
    auto* impl = static_cast<Impl*>(self);
    const int g1 = static_cast<InflatedObject*>(o1)->geometry();
    const int g2 = static_cast<InflatedObject*>(o2)->geometry();
    if (impl->geometry->canCollide(g1, g2)) impl->pairs.emplace_back(std::min(g1, g2), std::max(g1, g2));
    return false;  // keep going
  }

  void addRaw(int a, int b, const Vector3& position, const Vector3& normal, double distance) {
    raw.push_back({a, b, position, normal, distance});
  }

  // A geometry against a half-space, in closed form: the listed points of each
  // shape include its exact support point along -n (a sphere's or a capsule's
  // lowest point, a box's or a convex hull's lowest vertex, a cylinder's rim point
  // straight towards the plane), so they decide the contact and give the manifold.
  // (FCL's own shape-half-space tests allocate their contact list on every call.)
  void halfspacePair(int h, int s) {
    const Geometry& hs = geometry->geometry(h);
    const Geometry& gs = geometry->geometry(s);
    const double margin = geometry->settings().margin;
    // Cheap rejection on the shape's inflated box: its lowest corner along -n.
    const fcl::AABBd& box = objects[static_cast<std::size_t>(s)]->getAABB();
    Vector3 lowest;
    for (int k = 0; k < 3; ++k) lowest[k] = hs.normal[k] > 0.0 ? box.min_[k] : box.max_[k];
    if (hs.normal.dot(lowest) - hs.offset >= margin) return;

    const int a = std::min(h, s), b = std::max(h, s);
    const Vector3 n_out = hs.normal;                  // out of the half-space, towards the shape
    const Vector3 normal = a == h ? n_out : Vector3(-n_out);  // from a to b
    auto signedDistance = [&](const Vector3& p) { return n_out.dot(p) - hs.offset; };
    // A point p of the shape at signed distance d: the contact sits midway between p
    // and its projection on the plane.
    auto addPoint = [&](const Vector3& p, double d) {
      if (d < margin) addRaw(a, b, p - n_out * (0.5 * d), normal, d);
    };
    const SE3& M = placements[static_cast<std::size_t>(s)];
    switch (gs.shape) {
      case GeometryShape::sphere: {
        const Vector3 p = M.t - n_out * gs.size.x();
        addPoint(p, signedDistance(p));
        break;
      }
      case GeometryShape::capsule:
        for (const double side : {-0.5, 0.5}) {
          const Vector3 p = M.t + M.R.col(2) * (side * gs.size.y()) - n_out * gs.size.x();
          addPoint(p, signedDistance(p));
        }
        break;
      case GeometryShape::cylinder: {
        const Vector3 axis = M.R.col(2);
        Vector3 down = -n_out - axis * axis.dot(-n_out);  // towards the plane, across the axis
        down = down.norm() > 1e-9 ? Vector3(down.normalized()) : Vector3(M.R.col(0));
        const Vector3 side = axis.cross(down);
        const double r = gs.size.x();
        for (const double end : {-0.5, 0.5}) {
          const Vector3 centre = M.t + axis * (end * gs.size.y());
          for (const Vector3& spoke : {down, side, Vector3(-side), Vector3(-down)}) {
            const Vector3 p = centre + r * spoke;
            addPoint(p, signedDistance(p));
          }
        }
        break;
      }
      case GeometryShape::box: {
        const Vector3 half = 0.5 * gs.size;
        for (int corner = 0; corner < 8; ++corner) {
          const Vector3 local((corner & 1) ? half.x() : -half.x(), (corner & 2) ? half.y() : -half.y(),
                              (corner & 4) ? half.z() : -half.z());
          const Vector3 p = M.actPoint(local);
          addPoint(p, signedDistance(p));
        }
        break;
      }
      case GeometryShape::convex:
        for (const Vector3& v : gs.vertices) {
          const Vector3 p = M.actPoint(v);
          addPoint(p, signedDistance(p));
        }
        break;
      case GeometryShape::halfspace: break;  // world-world pairs never collide
    }
  }

  // Two bounded geometries: FCL's contacts when they overlap, else FCL's nearest
  // points when they are closer than the margin.
  void boundedPair(int a, int b) {
    auto* oa = objects[static_cast<std::size_t>(a)].get();
    auto* ob = objects[static_cast<std::size_t>(b)].get();
    collide_result.clear();
    fcl::collide(oa, ob, collide_request, collide_result);
    if (collide_result.isCollision()) {
      for (std::size_t k = 0; k < collide_result.numContacts(); ++k) {
        const fcl::Contactd& c = collide_result.getContact(k);
        // FCL's normal points from the first object to the second, as ours.
        addRaw(a, b, c.pos, c.normal.normalized(), -c.penetration_depth);
      }
      return;
    }
    distance_result.clear();
    double d = fcl::distance(oa, ob, distance_request, distance_result);
    const double margin = geometry->settings().margin;
    if (!(d < margin)) return;
    if (d < 0.0) {
      // GJK finds them touching where the collision query did not (within precision).
      distance_result.clear();
      d = std::min(0.0, fcl::distance(oa, ob, touching_request, distance_result));
    }
    const Vector3& pa = distance_result.nearest_points[0];
    const Vector3& pb = distance_result.nearest_points[1];
    // Apart, pb - pa points from a to b; overlapping (touching within GJK's
    // precision), the witness points cross over.
    Vector3 normal = d >= 0.0 ? Vector3(pb - pa) : Vector3(pa - pb);
    if (normal.norm() < 1e-12) {
      // Touching without overlap: no witness direction; take the line between the centres.
      normal = placements[static_cast<std::size_t>(b)].t - placements[static_cast<std::size_t>(a)].t;
      if (normal.norm() < 1e-12) normal = Vector3::UnitZ();
    }
    addRaw(a, b, 0.5 * (pa + pb), normal.normalized(), d);
  }

  // Gives each raw contact its id and frame, from the previous step's contact of the
  // same pair nearest to it when one is close enough.
  void persist(const std::vector<SE3>& oMi) {
    const double tolerance = geometry->settings().persistence_tolerance;
    contacts.clear();
    tangent_in_a.clear();
    for (Memory& m : previous_memory) m.matched = false;
    for (const Raw& r : raw) {
      const Geometry& ga = geometry->geometry(r.a);
      const Geometry& gb = geometry->geometry(r.b);
      const SE3& Ma = oMi[static_cast<std::size_t>(ga.body)];
      const SE3& Mb = oMi[static_cast<std::size_t>(gb.body)];
      ContactPoint c;
      c.geometry_a = r.a;
      c.geometry_b = r.b;
      c.body_a = ga.body;
      c.body_b = gb.body;
      c.position = r.position;
      c.normal = r.normal;
      c.distance = r.distance;
      c.friction = geometry->pairFriction(r.a, r.b);
      c.position_in_a = Ma.actInvPoint(r.position);
      c.position_in_b = Mb.actInvPoint(r.position);

      int best = -1;
      double best_gap = tolerance;
      for (std::size_t k = 0; k < previous.size(); ++k) {
        const ContactPoint& p = previous[k];
        if (previous_memory[k].matched || p.geometry_a != r.a || p.geometry_b != r.b) continue;
        const double gap = std::min((p.position_in_a - c.position_in_a).norm(), (p.position_in_b - c.position_in_b).norm());
        if (gap <= best_gap) {
          best_gap = gap;
          best = static_cast<int>(k);
        }
      }
      Vector3 previous_tangent;
      const Vector3* hint = nullptr;
      if (best >= 0) {
        previous_memory[static_cast<std::size_t>(best)].matched = true;
        c.id = previous[static_cast<std::size_t>(best)].id;
        previous_tangent = Ma.R * previous_memory[static_cast<std::size_t>(best)].tangent_in_a;
        hint = &previous_tangent;
      } else {
        c.id = next_id++;
      }
      const Vector3 t1 = tangentFor(c.normal, hint);
      c.frame.col(0) = t1;
      c.frame.col(1) = c.normal.cross(t1);
      c.frame.col(2) = c.normal;
      contacts.push_back(c);
      tangent_in_a.push_back(Ma.R.transpose() * t1);
    }
    previous.assign(contacts.begin(), contacts.end());
    previous_memory.clear();
    for (const Vector3& t : tangent_in_a) previous_memory.push_back({t, false});
  }
};

CollisionData::CollisionData(const GeometryModel& geometry) : impl_(std::make_unique<Impl>(geometry)) {}
CollisionData::~CollisionData() = default;
CollisionData::CollisionData(CollisionData&&) noexcept = default;
CollisionData& CollisionData::operator=(CollisionData&&) noexcept = default;

const std::vector<ContactPoint>& CollisionData::contacts() const { return impl_->contacts; }

void CollisionData::resetPersistence() {
  impl_->previous.clear();
  impl_->previous_memory.clear();
}

const std::vector<ContactPoint>& computeContacts(const GeometryModel& geometry, const std::vector<SE3>& oMi,
                                                 CollisionData& collision) {
  CollisionData::Impl& impl = *collision.impl_;
  if (impl.ngeometries != geometry.ngeometries()) {
    throw std::invalid_argument("computeContacts: the collision data was built for " +
                                std::to_string(impl.ngeometries) + " geometries, the geometry model has " +
                                std::to_string(geometry.ngeometries()));
  }
  if (static_cast<int>(oMi.size()) != geometry.nbodies()) {
    throw std::invalid_argument("computeContacts: " + std::to_string(oMi.size()) + " body placements for " +
                                std::to_string(geometry.nbodies()) + " bodies");
  }
  impl.geometry = &geometry;
  const double inflate = 0.5 * geometry.settings().margin;

  // World placements of the geometries (static ones were placed by the constructor).
  for (const int g : impl.moving) {
    const Geometry& geom = geometry.geometry(g);
    SE3& oMg = impl.placements[static_cast<std::size_t>(g)];
    oMg.setProduct(oMi[static_cast<std::size_t>(geom.body)], geom.placement);
    impl.objects[static_cast<std::size_t>(g)]->place(oMg, inflate);
  }
  impl.broadphase.update();

  impl.pairs.clear();
  impl.broadphase.collide(&impl, &CollisionData::Impl::collectPair);
  // Half-spaces are unbounded: the tree cannot prune them, each meets every geometry
  // the rules allow (a cheap box test in halfspacePair comes first).
  for (const int h : impl.halfspaces) {
    for (int other = 0; other < impl.ngeometries; ++other) {
      if (geometry.canCollide(h, other)) impl.pairs.emplace_back(std::min(h, other), std::max(h, other));
    }
  }
  std::sort(impl.pairs.begin(), impl.pairs.end());

  impl.raw.clear();
  for (const auto& [a, b] : impl.pairs) {
    if (geometry.geometry(a).shape == GeometryShape::halfspace) {
      impl.halfspacePair(a, b);
    } else if (geometry.geometry(b).shape == GeometryShape::halfspace) {
      impl.halfspacePair(b, a);
    } else {
      impl.boundedPair(a, b);
    }
  }
  impl.persist(oMi);
  return collision.contacts();
}

const std::vector<ContactPoint>& computeContacts(const GeometryModel& geometry, const Data& data,
                                                 CollisionData& collision) {
  return computeContacts(geometry, data.oMi, collision);
}

}  // namespace loopsim
