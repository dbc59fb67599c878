#pragma once
// Internal to the loop-mechanism generators (paper 000 Figs. 2e, 4b; paper 001
// Figs. 6-9; paper 002 §IV-B; paper 004 Fig. 8e-f): chains of rods laid
// through points given in the world at the mechanism's reference pose (every
// revolute joint at 0), generic joint axes, and closures made where the two
// ends already coincide, so every loop closes at q0 by construction.
#include <string>
#include <vector>

#include <loopsim/constraints/constraint.hpp>
#include <loopsim/model/model_builder.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>

namespace loopsim::generators {

struct RodStyle {
  double width = 0.03;            // m
  double mass_per_length = 2.0;   // kg/m
  Vector4 rgba{0.7, 0.7, 0.7, 1.0};
  double stiffness = 0.0;         // revolute joints only: spring to angle 0 (N·m/rad)
  double damping = 0.0;           // N·m·s/rad
};

/// A body of a chain and its frame in the world at the reference pose.
struct ChainLink {
  int body = 0;
  SE3 world;            // body frame (origin at the joint, x along the rod) in the world
  double length = 0.0;  // the rod runs from the origin along x
  SE3 tip() const { return SE3(Matrix3::Identity(), Vector3(length, 0, 0)); }  // in the body frame
  Vector3 tipWorld() const { return world.t + world.R.col(0) * length; }
};

/// Joint axis of the k-th link in its own frame (x along the rod): 66° from the
/// rod, turned about it by k golden angles. No two links of a chain get
/// parallel axes, whatever the polyline, so closures are full rank in general
/// position (each generator's test checks the rank it states).
Vector3 genericLocalAxis(int k);

/// A rod body "<name>" with joint "<name>_joint" of the given spec: uniform
/// box of `length` along the body's x axis, visual included.
int addRodBody(ModelBuilder& builder, int parent, const std::string& name, const JointSpec& joint,
               const SE3& joint_placement, double length, const RodStyle& style);

/// One revolute rod "<name>" from world point a to b (its joint at a, axis
/// genericLocalAxis(axis_index) or `fixed_axis` in the world when non-zero)
/// on `parent`, whose frame is parent_world at the reference pose.
ChainLink addSegment(ModelBuilder& builder, int parent, const SE3& parent_world, const Vector3& a, const Vector3& b,
                     const std::string& name, int axis_index, const RodStyle& style,
                     const Vector3& fixed_axis = Vector3::Zero());

/// Serial revolute chain through points[0..n]: link k (name prefix + index,
/// from first_index on) runs from points[k] to points[k+1] with its joint at
/// points[k], axis genericLocalAxis(axis_index + k), or `fixed_axis` (world)
/// when non-zero. The parent body's frame is parent_world. Consecutive points
/// must be distinct. Colours darken along the chain.
std::vector<ChainLink> addPolylineChain(ModelBuilder& builder, int parent, const SE3& parent_world,
                                        const std::vector<Vector3>& points, const std::string& prefix,
                                        int first_index, int axis_index, const RodStyle& style,
                                        const Vector3& fixed_axis = Vector3::Zero());

/// n+1 points from a to b: the straight segment plus bulge·sin(πs) plus
/// wiggle·sin(2πs), s = k/n. The wiggle keeps the points off one line and
/// one plane (joints on one line would make a weld singular).
std::vector<Vector3> arcPoints(const Vector3& a, const Vector3& b, int n, const Vector3& bulge,
                               const Vector3& wiggle);

/// A closed polygon of n sides of about side_length, starting and ending at
/// `top`: a regular n-gon in the plane of unit vectors `down` and `side`
/// (centre top + R·down), interior vertices pushed alternately ±wiggle along
/// down × side. Returns n+1 points, the last equal to the first.
std::vector<Vector3> ringPoints(const Vector3& top, const Vector3& down, const Vector3& side, int n,
                                double side_length, double wiggle);

/// A constraint of `kind` from placement1 on body1 to body2 (0 = world), with
/// placement2 where frame A is at q0: it closes at q0 to round-off.
Constraint closeAt(const Model& model, const VectorX& q0, const std::string& name, ConstraintKind kind,
                   int body1, const SE3& placement1, int body2);

/// Throws ModelError naming the generator and parameter unless lo <= value <= hi.
void requireCount(const std::string& generator, const std::string& parameter, int value, int lo, int hi);
/// Throws ModelError naming the generator, the product its size parameters
/// describe (`count`, e.g. "1 + loops x links_per_loop = 1 + 200 x 100") and
/// the link count unless links <= kMaxMechanismLinks.
void requireLinkCount(const std::string& generator, const std::string& count, long long links);
/// Throws unless length, width and mass_per_length are finite and > 0 and
/// stiffness and damping finite and >= 0.
void requireRod(const std::string& generator, const RodParams& rod);
/// The RodStyle of RodParams in a colour.
RodStyle rodStyle(const RodParams& rod, const Vector4& rgba);

/// A colour for item i of n, along a fixed hue ramp.
Vector4 rampColour(int i, int n);

/// Uniform doubles in [0, 1) from a 64-bit seed, the same on every platform
/// (std distributions are implementation-defined).
class SplitMix64 {
 public:
  explicit SplitMix64(unsigned long long seed) : state_(seed) {}
  unsigned long long next();
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  unsigned long long state_;
};

}  // namespace loopsim::generators
