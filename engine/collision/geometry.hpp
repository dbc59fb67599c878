#pragma once
// Collision geometry: what can touch what (Model/Data split as in Pinocchio: this
// GeometryModel is the description, CollisionData in collision_detection.hpp the
// per-step workspace built from it).
//
// A geometry is attached to a body of the Model (0 = the world, for the ground and
// static obstacles) at a placement in that body's frame. Shapes and their sizes:
//   sphere     size = (radius)
//   box        size = FULL extents (x, y, z), as URDF, FCL and our VisualGeometry;
//              MJCF gives half sizes, its loader doubles them
//   cylinder   size = (radius, length), axis z of the placement, centred
//   capsule    size = (radius, length of the cylindrical part), axis z, centred
//   halfspace  the solid {x : n·x <= offset} in world coordinates (the world body
//              only; MuJoCo's "plane" is this half-space: it collides on one side)
//   convex     the convex hull of the given vertices (in the geometry frame)
//
// Pair rules, as MuJoCo:
//   - two geometries on the same body never collide;
//   - contype/conaffinity: a pair may collide when
//     (contype_a & conaffinity_b) || (contype_b & conaffinity_a);
//   - a parent and its child body do not collide (setParentChildFilter(false) turns
//     this off), except when the parent is the world: as MuJoCo's filterparent, the
//     filter applies only when neither body is the world, so a robot's root link
//     still collides with the ground;
//   - explicit exclusions by body pair;
//   - the pair friction is the larger of the two geometries' friction (MuJoCo's
//     rule), unless a per-pair override names the pair.
#include <cstdint>
#include <string>
#include <vector>

#include <loopsim/model/model.hpp>
#include <loopsim/spatial/se3.hpp>

namespace loopsim {

enum class GeometryShape { sphere, box, cylinder, capsule, halfspace, convex };

/// "sphere", "box", "cylinder", "capsule", "halfspace", "convex".
const char* geometryShapeName(GeometryShape shape);

struct Geometry {
  std::string name;
  int body = 0;                     // index into the Model's bodies; 0 = the world
  SE3 placement;                    // in the body frame (identity for a half-space)
  GeometryShape shape = GeometryShape::sphere;
  Vector3 size = Vector3::Zero();   // see the table above; unused entries are 0
  Vector3 normal = Vector3::UnitZ();  // halfspace: outward unit normal (world)
  double offset = 0.0;                // halfspace: n·x <= offset is inside
  std::vector<Vector3> vertices;      // convex: in the geometry frame
  double friction = 1.0;              // Coulomb μ, >= 0 (+∞ allowed: no slip)
  std::uint32_t contype = 1;
  std::uint32_t conaffinity = 1;

  static Geometry sphere(std::string name, int body, const SE3& placement, double radius);
  /// full_size: the box's full extents (not half sizes).
  static Geometry box(std::string name, int body, const SE3& placement, const Vector3& full_size);
  static Geometry cylinder(std::string name, int body, const SE3& placement, double radius, double length);
  static Geometry capsule(std::string name, int body, const SE3& placement, double radius, double length);
  /// The solid below the plane n·x = offset (n need not be unit; it is normalised when added).
  static Geometry halfspace(std::string name, const Vector3& normal, double offset);
  static Geometry convex(std::string name, int body, const SE3& placement, std::vector<Vector3> vertices);
};

/// Settings of the detection (part of the description: every CollisionData built
/// from the model uses them).
struct CollisionSettings {
  /// Contacts are reported while the signed distance is below this (m), so they are
  /// found before the surfaces touch.
  double margin = 0.005;
  /// A contact keeps the previous step's id and tangents when its point moved less
  /// than this (m) on one of the two bodies.
  double persistence_tolerance = 0.005;
};

class GeometryModel {
 public:
  /// source_file names the file in error messages (may be empty for geometry built in code).
  explicit GeometryModel(const Model& model, std::string source_file = "");

  /// Checks and adds a geometry; returns its index. Throws ModelError naming the
  /// geometry and the value: an unknown body, a duplicate or empty name, a size
  /// that is zero, negative or not finite, a half-space off the world body or with a
  /// zero normal, a convex geometry with fewer than 4 vertices or a non-finite one,
  /// a friction that is negative or NaN, a placement that is not a rigid transform.
  int addGeometry(Geometry geometry);

  /// Excludes every pair between the two bodies (given by name or index). Throws
  /// ModelError naming the body when it does not exist.
  void excludeBodies(const std::string& body_a, const std::string& body_b);
  void excludeBodies(int body_a, int body_b);
  /// The friction of one geometry pair, whatever the per-geometry values. Throws
  /// ModelError naming the geometry or the value (negative or NaN).
  void setPairFriction(const std::string& geometry_a, const std::string& geometry_b, double mu);
  void setParentChildFilter(bool on) { parent_child_filter_ = on; }
  /// Throws ModelError naming the value when a setting is negative or not finite.
  void setSettings(const CollisionSettings& settings);

  int ngeometries() const { return static_cast<int>(geometries_.size()); }
  const std::vector<Geometry>& geometries() const { return geometries_; }
  const Geometry& geometry(int index) const { return geometries_[static_cast<std::size_t>(index)]; }
  /// Index of a geometry by name; -1 when absent.
  int geometryId(const std::string& name) const;
  const CollisionSettings& settings() const { return settings_; }
  int nbodies() const { return static_cast<int>(parent_.size()); }
  const std::string& sourceFile() const { return source_file_; }

  /// Whether the pair may collide under the rules above (same body, bitmasks,
  /// parent-child, exclusions).
  bool canCollide(int geometry_a, int geometry_b) const;
  /// The pair's friction: the override if one names the pair, else the larger μ.
  double pairFriction(int geometry_a, int geometry_b) const;

 private:
  int existingBody(const std::string& name, const std::string& element) const;
  int existingGeometry(const std::string& name, const std::string& element) const;

  std::string source_file_;
  std::vector<int> parent_;             // the Model's body parents
  std::vector<std::string> body_names_;
  std::vector<Geometry> geometries_;
  std::vector<std::pair<int, int>> excluded_bodies_;  // (min, max)
  struct PairFriction {
    int a, b;  // a < b
    double mu;
  };
  std::vector<PairFriction> pair_friction_;
  bool parent_child_filter_ = true;
  CollisionSettings settings_;
};

}  // namespace loopsim
