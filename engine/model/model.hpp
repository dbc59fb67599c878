#pragma once
// The immutable description of a multibody tree (Model/Data split: see data.hpp
// for the preallocated workspace). Build one with ModelBuilder or a loader.
//
// Indexing: body 0 is the world (no joint). Every body i >= 1 has exactly one
// joint, joint i, connecting it to parent[i] < i (topological order).
// Body i's frame is the joint's child frame: at q = neutral it sits at
// joint_placement[i] in the parent body's frame.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <loopsim/model/joint.hpp>
#include <loopsim/spatial/inertia.hpp>

namespace loopsim {

/// A named frame attached to a body (links merged by fixed joints, sites,
/// tool frames). placement is the frame's pose in the body frame.
struct Frame {
  enum class Kind { Body, MergedLink, Site };
  std::string name;
  int body = 0;
  SE3 placement;
  Kind kind = Kind::Body;
};

/// Visual geometry kept for rendering only; never used by dynamics.
struct VisualGeometry {
  enum class Shape { Box, Sphere, Cylinder, Capsule, Mesh, Ellipsoid };
  std::string name;      // owning link or geom name
  int body = 0;
  SE3 placement;         // in the body frame
  Shape shape = Shape::Box;
  Vector3 size = Vector3::Zero();  // box: full extents; sphere: (r); cylinder/capsule: (r, length of the cylindrical part); ellipsoid: radii
  Vector3 mesh_scale = Vector3::Ones();
  std::string mesh_file;           // resolved path when shape == Mesh
  Vector4 rgba{0.7, 0.7, 0.7, 1.0};
  std::string material;
};

/// Collision geometry as a model file declares it (URDF <collision>, MJCF
/// geoms with contype or conaffinity set): data only, like the visuals. A
/// scene with contact turns it into the detection's GeometryModel (collision/),
/// which checks the sizes.
struct CollisionElement {
  enum class Shape { Box, Sphere, Cylinder, Capsule, Mesh, Plane };
  std::string name;       // unique in the model
  std::string file;       // the model file, and where in it, for errors
  std::string element;    // e.g. "link 'FR_foot' <collision>", "geom 'left-sole'"
  int body = 0;
  SE3 placement;          // in the body frame; Plane: the plane z = 0 of this frame, solid below
  Shape shape = Shape::Box;
  Vector3 size = Vector3::Zero();  // as VisualGeometry: box full extents; sphere (r); cylinder/capsule (r, length)
  std::string mesh_file;           // Mesh: the resolved path (or the reference, when not found)
  std::vector<Vector3> vertices;   // Mesh: scaled, in the geometry frame; its convex hull collides
  std::string mesh_problem;        // Mesh: why there are no vertices (file missing or unreadable)
  double friction = std::numeric_limits<double>::quiet_NaN();  // Coulomb μ; NaN: the file gives none
  std::uint32_t contype = 1, conaffinity = 1;                   // MuJoCo's bitmasks (URDF: 1, 1)
};

/// A one-dof joint's placement P·X_J(q) split into constant parts, computed
/// once when the joint is added. Revolute (Rodrigues' formula with P.R folded
/// in): R(q) = axis_outer + cos q · cos_part + sin q · sin_part, 18 FMAs per
/// joint instead of building the axis rotation and multiplying by P.R
/// (the joint transforms weigh on CRBA; docs/performance.md). Prismatic: t(q) = P.t + q · axis_in_parent.
struct JointPlacementBasis {
  Matrix3 axis_outer = Matrix3::Zero();  // (P.R a) aᵀ
  Matrix3 cos_part = Matrix3::Zero();    // P.R - (P.R a) aᵀ
  Matrix3 sin_part = Matrix3::Zero();    // P.R [a]x
  Vector3 axis_in_parent = Vector3::Zero();  // P.R a
  // The joint axis is a = sign · e_k (k = unit_axis; -1 otherwise): then
  // R_world S = sign · R_world.col(k), with no product. Most URDF joints
  // have a unit axis (Atlas: all 30) and an unrotated origin (P.R = 1,
  // `unrotated`; Atlas: 27): then R(q) is the plane rotation about e_k, and
  // oR_parent · R(q) keeps column k and mixes the other two (12 FMAs, not 27).
  int unit_axis = -1;
  double unit_axis_sign = 0.0;
  bool unrotated = false;  // P.R is exactly the identity
};

struct Model {
  std::string name;
  int nq = 0;
  int nv = 0;

  // Per body (index 0 = world; entries at 0 are placeholders).
  std::vector<int> parent;
  std::vector<std::string> body_names;
  std::vector<Inertia> body_inertias;  // in the body frame
  std::vector<std::vector<int>> children;
  std::vector<int> subtree_end;  // bodies i..subtree_end[i]-1 form i's subtree
  std::vector<int> depth;        // world 0, roots 1

  // Per joint (joint i moves body i).
  std::vector<JointType> joint_types;
  std::vector<std::string> joint_names;
  std::vector<SE3> joint_placements;  // joint frame in the parent body frame
  std::vector<Vector3> joint_axes;    // unit, for revolute and prismatic
  std::vector<JointPlacementBasis> joint_bases;  // from joint_placements and joint_axes
  std::vector<int> idx_q, idx_v, joint_nq, joint_nv;

  // Joint-space vectors.
  VectorX lower_position_limit, upper_position_limit;  // size nq; +-inf where unlimited
  VectorX velocity_limit, effort_limit;                // size nv; +inf where unknown
  VectorX damping;                                     // size nv: tau = -damping * v
  VectorX armature;                                    // size nv: added to M's diagonal
  VectorX stiffness;                                   // size nv: tau = -stiffness * (q - spring_reference)
  VectorX spring_reference;                            // size nq
  std::vector<int> dof_joint;                          // size nv: joint owning each dof

  std::vector<Frame> frames;
  std::vector<VisualGeometry> visuals;
  std::vector<CollisionElement> collisions;
  std::vector<std::pair<int, int>> collision_exclusions;  // body pairs that never collide (MJCF <exclude>)
  std::vector<std::string> warnings;  // collected by loaders
  std::string source_file;

  Vector3 gravity{0.0, 0.0, -9.81};

  int nbodies() const { return static_cast<int>(parent.size()); }
  int njoints() const { return nbodies() - 1; }

  /// Index of a body, joint or frame by name; -1 when absent.
  int bodyId(const std::string& name) const;
  int jointId(const std::string& name) const;
  int frameId(const std::string& name) const;
  /// Like frameId but throws ModelError naming the frame.
  int existingFrame(const std::string& name) const;

  bool isFloatingBase() const { return njoints() > 0 && joint_types[1] == JointType::Floating; }
  /// The deepest body on both a's and b's paths to the world (0 = the world).
  int commonAncestor(int a, int b) const {
    while (a != b) {
      if (a > b) a = parent[a];  // parent[i] < i: the larger index is never the ancestor
      else b = parent[b];
    }
    return a;
  }
  double totalMass() const;
  int treeDepth() const;
};

/// The collision shape of a primitive the loaders read (sizes alike); nullopt
/// for an ellipsoid, which has none.
std::optional<CollisionElement::Shape> collisionShapeOf(VisualGeometry::Shape shape);

}  // namespace loopsim
