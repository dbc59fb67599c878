#include <cmath>

#include <loopsim/model/model_builder.hpp>
#include <loopsim/scene/generators.hpp>
#include <loopsim/scene/generators/mechanism_parts.hpp>
#include <loopsim/scene/rigid_shapes.hpp>

namespace loopsim {

using generators::require;

namespace {

using Shape = VisualGeometry::Shape;

constexpr double kThigh = 0.4, kShank = 0.4, kAnkleToSole = 0.08, kHipDrop = 0.1;
// Builds the tree part by part: each part is a joint plus a solid primitive.
class HumanoidBuilder {
 public:
  ModelBuilder builder{"humanoid_tree"};

  int part(int parent, const std::string& joint, JointType type, const Vector3& axis, const Vector3& offset,
           double limit_lo, double limit_hi, const std::string& body, Shape shape, const Vector3& size, double mass,
           const Vector3& center, const Vector4& rgba) {
    JointSpec spec;
    spec.type = type;
    spec.axis = axis;
    if (type == JointType::Revolute) {
      spec.lower = limit_lo;
      spec.upper = limit_hi;
      spec.effort_limit = 300.0;
      spec.velocity_limit = 10.0;
    }
    const RigidShape solid{shape, size, mass, rgba};
    const int id = builder.addBody(parent, joint, spec, SE3(Matrix3::Identity(), offset),
                                   shapeInertia(solid, "body '" + body + "'", center), body);
    builder.addVisual(shapeVisual(solid, body, id, SE3(Matrix3::Identity(), center)));
    return id;
  }
  int joint(int parent, const std::string& name, const Vector3& axis, const Vector3& offset, double lo, double hi,
            const std::string& body, Shape shape, const Vector3& size, double mass, const Vector3& center,
            const Vector4& rgba) {
    return part(parent, name, JointType::Revolute, axis, offset, lo, hi, body, shape, size, mass, center, rgba);
  }
};


}  // namespace

GeneratedMechanism humanoidTree(const HumanoidTreeParams& p) {
  const std::string gen = "humanoid_tree";
  require(std::isfinite(p.knee_bend) && p.knee_bend >= 0.0 && p.knee_bend <= 1.2, gen,
          "knee_bend must be in [0, 1.2] rad");
  require(!p.weld_feet || p.knee_bend >= 0.05, gen,
          "welded feet need knee_bend >= 0.05: stretched legs are singular (the welds lose rank)");
  const Vector3 X = Vector3::UnitX(), Y = Vector3::UnitY(), Z = Vector3::UnitZ(), O = Vector3::Zero();
  const Vector4 skin{0.85, 0.7, 0.55, 1.0}, dark{0.25, 0.27, 0.32, 1.0}, blue{0.2, 0.4, 0.75, 1.0},
      joint_grey{0.55, 0.55, 0.6, 1.0};

  HumanoidBuilder h;
  const int pelvis = h.part(0, "root_joint", JointType::Floating, Z, O, 0, 0, "pelvis", Shape::Box,
                            Vector3(0.2, 0.3, 0.15), 10.0, O, dark);
  for (const auto& [side, s] : {std::pair{std::string("left"), 1.0}, std::pair{std::string("right"), -1.0}}) {
    const std::string n = side + "_";
    int b = h.joint(pelvis, n + "hip_yaw", Z, Vector3(0, s * 0.1, -kHipDrop), -0.8, 0.8, n + "hip_yaw_link",
                    Shape::Sphere, Vector3(0.05, 0, 0), 1.0, O, joint_grey);
    b = h.joint(b, n + "hip_roll", X, O, -0.6, 0.6, n + "hip_roll_link", Shape::Sphere, Vector3(0.05, 0, 0), 1.0, O,
                joint_grey);
    b = h.joint(b, n + "hip_pitch", Y, O, -1.8, 0.6, n + "thigh", Shape::Cylinder, Vector3(0.06, kThigh, 0), 7.0,
                Vector3(0, 0, -kThigh / 2), blue);
    b = h.joint(b, n + "knee", Y, Vector3(0, 0, -kThigh), 0.0, 2.5, n + "shank", Shape::Cylinder,
                Vector3(0.05, kShank, 0), 4.0, Vector3(0, 0, -kShank / 2), blue);
    b = h.joint(b, n + "ankle_pitch", Y, Vector3(0, 0, -kShank), -1.0, 1.0, n + "ankle_link", Shape::Sphere,
                Vector3(0.04, 0, 0), 0.5, O, joint_grey);
    b = h.joint(b, n + "ankle_roll", X, O, -0.6, 0.6, n + "foot_link", Shape::Box, Vector3(0.22, 0.1, 0.05), 1.5,
                Vector3(0.03, 0, -0.055), dark);
    h.builder.addFrame(n + "foot", b, SE3(Matrix3::Identity(), Vector3(0, 0, -kAnkleToSole)));
  }
  int b = h.joint(pelvis, "torso_yaw", Z, Vector3(0, 0, 0.1), -0.8, 0.8, "torso_yaw_link", Shape::Sphere,
                  Vector3(0.06, 0, 0), 2.0, O, joint_grey);
  b = h.joint(b, "torso_pitch", Y, O, -0.6, 0.8, "torso_pitch_link", Shape::Sphere, Vector3(0.06, 0, 0), 2.0, O,
              joint_grey);
  const int chest = h.joint(b, "torso_roll", X, O, -0.5, 0.5, "chest", Shape::Box, Vector3(0.22, 0.34, 0.4), 20.0,
                            Vector3(0, 0, 0.22), dark);
  h.joint(chest, "neck_pitch", Y, Vector3(0, 0, 0.45), -0.6, 0.8, "head", Shape::Sphere, Vector3(0.1, 0, 0), 4.0,
          Vector3(0, 0, 0.12), skin);
  for (const auto& [side, s] : {std::pair{std::string("left"), 1.0}, std::pair{std::string("right"), -1.0}}) {
    const std::string n = side + "_";
    b = h.joint(chest, n + "shoulder_pitch", Y, Vector3(0, s * 0.22, 0.38), -2.5, 2.5, n + "shoulder_pitch_link",
                Shape::Sphere, Vector3(0.045, 0, 0), 1.0, O, joint_grey);
    b = h.joint(b, n + "shoulder_roll", X, O, -1.5, 1.5, n + "shoulder_roll_link", Shape::Sphere,
                Vector3(0.045, 0, 0), 1.0, O, joint_grey);
    b = h.joint(b, n + "shoulder_yaw", Z, O, -2.0, 2.0, n + "upper_arm", Shape::Cylinder, Vector3(0.045, 0.28, 0),
                2.5, Vector3(0, 0, -0.14), blue);
    b = h.joint(b, n + "elbow", Y, Vector3(0, 0, -0.28), -2.5, 0.0, n + "forearm", Shape::Cylinder,
                Vector3(0.04, 0.25, 0), 1.5, Vector3(0, 0, -0.125), blue);
    b = h.joint(b, n + "wrist_yaw", Z, Vector3(0, 0, -0.25), -1.5, 1.5, n + "wrist_yaw_link", Shape::Sphere,
                Vector3(0.03, 0, 0), 0.4, O, joint_grey);
    b = h.joint(b, n + "wrist_pitch", Y, O, -1.5, 1.5, n + "wrist_pitch_link", Shape::Sphere, Vector3(0.03, 0, 0),
                0.4, O, joint_grey);
    b = h.joint(b, n + "wrist_roll", X, O, -1.5, 1.5, n + "hand_link", Shape::Box, Vector3(0.08, 0.04, 0.12), 0.6,
                Vector3(0, 0, -0.07), skin);
    h.builder.addFrame(n + "hand", b, SE3(Matrix3::Identity(), Vector3(0, 0, -0.1)));
  }

  GeneratedMechanism out;
  out.model = std::move(h.builder).build();
  const Model& m = out.model;
  out.q0 = VectorX::Zero(m.nq);
  const double bend = p.knee_bend;
  // Thigh and shank both at bend/2 from vertical: the sole is this far below the pelvis.
  const double pelvis_height = kHipDrop + (kThigh + kShank) * std::cos(bend / 2.0) + kAnkleToSole;
  out.q0.head<7>() << 0, 0, pelvis_height, 0, 0, 0, 1;
  auto set = [&](const std::string& joint, double value) { out.q0[m.idx_q[m.jointId(joint)]] = value; };
  for (const std::string side : {"left", "right"}) {
    // Thigh pitched forward by bend/2, shank back by bend/2: ankle under hip, sole flat.
    set(side + "_hip_pitch", -bend / 2.0);
    set(side + "_knee", bend);
    set(side + "_ankle_pitch", -bend / 2.0);
    set(side + "_elbow", -0.4);
  }
  set("left_shoulder_roll", 0.2);
  set("right_shoulder_roll", -0.2);

  if (p.weld_feet) {
    for (const std::string side : {"left", "right"}) {
      const Frame& sole = m.frames[m.existingFrame(side + "_foot")];
      Constraint weld;
      weld.name = side + "_foot_weld";
      weld.kind = ConstraintKind::Weld;
      weld.body1 = sole.body;
      weld.placement1 = sole.placement;
      weld.body2 = 0;
      weld.placement2 = generators::worldPlacement(m, out.q0, sole.body, sole.placement);
      out.constraints.push_back(weld);
    }
    out.constraint_dim = out.constraint_rank = 12;
  }
  out.doc = std::string("humanoid-sized floating tree: pelvis on a floating root, 2 legs x 6, torso 3, neck 1, ") +
            "2 arms x 7 (30 joints, nq 37, nv 36), standing with knees bent" +
            (p.weld_feet ? "; both soles welded to the world: constraint dimension 12, rank 12" : "; no constraints");
  return out;
}

}  // namespace loopsim
