#include "test_models.hpp"

#include <random>
#include <sstream>

#include <loopsim/model/model_builder.hpp>

namespace loopsim::test {

namespace {

// A rigid body of the given mass with a random com near `com_center` and a
// random rotated principal inertia of the order of m * size².
Inertia randomInertia(std::mt19937& rng, double mass, const Vector3& com_center, double size) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> moment(1.0, 1.8);  // max < sum of the other two
  const Vector3 com = com_center + 0.2 * size * Vector3(unit(rng), unit(rng), unit(rng));
  const Vector3 principal = mass * size * size / 12.0 * Vector3(moment(rng), moment(rng), moment(rng));
  const Matrix3 R = exp3(Vector3(unit(rng), unit(rng), unit(rng)) * 1.5);
  return {mass, com, R * principal.asDiagonal() * R.transpose()};
}

Vector3 randomUnit(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Vector3 x(n(rng), n(rng), n(rng));
  return x / x.norm();
}

JointSpec revolute(const Vector3& axis, Passive passive, std::mt19937& rng, bool limited = true) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  JointSpec j;
  j.type = JointType::Revolute;
  j.axis = axis;
  if (limited) {
    j.lower = -1.5 - u(rng);
    j.upper = 1.0 + u(rng);
  }
  if (passive == Passive::On) {
    j.armature = 0.01 + 0.05 * u(rng);
    j.damping = 0.1 + 0.5 * u(rng);
    j.stiffness = 2.0 * u(rng);
    j.spring_reference = 0.3 * (u(rng) - 0.5);
  }
  return j;
}

JointSpec prismatic(const Vector3& axis, Passive passive, std::mt19937& rng) {
  JointSpec j = revolute(axis, passive, rng);
  j.type = JointType::Prismatic;
  j.lower = -0.3;
  j.upper = 0.4;
  return j;
}

JointSpec spherical(Passive passive) {
  JointSpec j;
  j.type = JointType::Spherical;
  if (passive == Passive::On) {
    j.armature = 0.02;
    j.damping = 0.2;
  }
  return j;
}

// "prefix<k>" (through a stream: GCC 12 reports a false -Wrestrict on
// chained std::string operator+ here).
std::string indexed(const std::string& prefix, int k) {
  std::ostringstream os;
  os << prefix << k;
  return os.str();
}

SE3 offset(const Vector3& t, std::mt19937& rng, double tilt = 0.3) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  return {exp3(tilt * Vector3(unit(rng), unit(rng), unit(rng))), t};
}

}  // namespace

Model fixedChain7(Passive passive) {
  std::mt19937 rng(7);
  ModelBuilder b("chain7");
  // Axes cycle z, y, x with a random tilt so no two consecutive axes are parallel.
  const Vector3 base_axes[3] = {Vector3::UnitZ(), Vector3::UnitY(), Vector3::UnitX()};
  int parent = 0;
  for (int k = 0; k < 7; ++k) {
    const Vector3 axis = (base_axes[k % 3] + 0.3 * randomUnit(rng)).normalized();
    const SE3 placement = offset(k == 0 ? Vector3(0, 0, 0.1) : Vector3(0.05, 0.02, 0.25), rng);
    const Inertia inertia = randomInertia(rng, 3.0 - 0.3 * k, Vector3(0, 0, 0.12), 0.25);
    parent = b.addBody(parent, indexed("j", k + 1), revolute(axis, passive, rng, k % 2 == 0), placement,
                       inertia, indexed("link", k + 1));
    if (k == 3) b.addFrame("mid", parent, offset(Vector3(0.1, -0.05, 0.08), rng, 1.0));
  }
  b.addFrame("tool", parent, offset(Vector3(0.02, 0.03, 0.15), rng, 1.0));
  return std::move(b).build(true);
}

Model branchingTree(Passive passive) {
  std::mt19937 rng(11);
  ModelBuilder b("branching_tree");
  auto inertia = [&](double m) { return randomInertia(rng, m, Vector3(0.0, 0.0, 0.1), 0.2); };
  // Depth-first: trunk, then branch A (spherical, revolute, prismatic), branch B.
  const int trunk = b.addBody(0, "trunk_z", revolute(Vector3::UnitZ(), passive, rng, false),
                              offset(Vector3(0, 0, 0.2), rng), inertia(4.0), "trunk");
  const int slider = b.addBody(trunk, "slide", prismatic(randomUnit(rng), passive, rng),
                               offset(Vector3(0.0, 0.0, 0.3), rng), inertia(2.0), "slider");
  const int ball_a = b.addBody(slider, "ball_a", spherical(passive), offset(Vector3(0.2, 0.0, 0.1), rng),
                               inertia(1.5), "arm_a1");
  const int elbow_a = b.addBody(ball_a, "elbow_a", revolute(randomUnit(rng), passive, rng),
                                offset(Vector3(0.0, 0.1, 0.3), rng), inertia(1.0), "arm_a2");
  const int tip_a = b.addBody(elbow_a, "slide_a", prismatic(randomUnit(rng), passive, rng),
                              offset(Vector3(0.0, 0.0, 0.25), rng), inertia(0.5), "arm_a3");
  b.addFrame("tip_a", tip_a, offset(Vector3(0.03, 0.0, 0.1), rng, 1.0));
  const int ball_b = b.addBody(slider, "ball_b", spherical(passive), offset(Vector3(-0.2, 0.0, 0.1), rng),
                               inertia(1.5), "arm_b1");
  const int wrist_b = b.addBody(ball_b, "wrist_b", revolute(randomUnit(rng), passive, rng),
                                offset(Vector3(0.0, -0.1, 0.3), rng), inertia(0.8), "arm_b2");
  b.addFrame("tip_b", wrist_b, offset(Vector3(0.0, 0.05, 0.12), rng, 1.0));
  const int side = b.addBody(trunk, "side_x", revolute(randomUnit(rng), passive, rng),
                             offset(Vector3(0.0, 0.3, 0.1), rng), inertia(1.2), "side");
  const int side_ball = b.addBody(side, "side_ball", spherical(passive), offset(Vector3(0.0, 0.2, 0.0), rng),
                                  inertia(0.7), "side_tip");
  b.addFrame("tip_side", side_ball, offset(Vector3(0.05, 0.05, 0.05), rng, 1.0));
  return std::move(b).build(true);
}

Model floatingHumanoid(Passive passive) {
  std::mt19937 rng(31);
  ModelBuilder b("humanoid");
  JointSpec free_flyer;
  free_flyer.type = JointType::Floating;
  const int pelvis = b.addBody(0, "root", free_flyer, SE3::Identity(),
                               randomInertia(rng, 10.0, Vector3::Zero(), 0.3), "pelvis");

  // Appends a serial chain of revolute joints with the given axes, masses and
  // link offsets (offsets[k] places joint k in the previous link).
  auto chain = [&](int parent, const std::string& prefix, std::initializer_list<Vector3> axes,
                   std::initializer_list<double> masses, std::initializer_list<Vector3> offsets) {
    auto axis = axes.begin();
    auto mass = masses.begin();
    auto off = offsets.begin();
    for (int k = 0; axis != axes.end(); ++k, ++axis, ++mass, ++off) {
      const Vector3 tilted = (*axis + 0.1 * randomUnit(rng)).normalized();
      const Vector3 link_center = 0.5 * *off;
      parent = b.addBody(parent, indexed(prefix + "_j", k + 1), revolute(tilted, passive, rng),
                         offset(*off, rng, 0.1), randomInertia(rng, *mass, link_center, 0.15 + 0.1 * *mass / 5.0),
                         indexed(prefix + "_link", k + 1));
    }
    return parent;
  };
  const Vector3 X = Vector3::UnitX(), Y = Vector3::UnitY(), Z = Vector3::UnitZ();
  for (const double side : {1.0, -1.0}) {
    const std::string name = side > 0 ? "left_leg" : "right_leg";
    const int foot = chain(pelvis, name, {Z, X, Y, Y, Y, X}, {1.5, 1.5, 6.0, 3.5, 0.8, 1.2},
                           {Vector3(0.0, 0.1 * side, -0.08), Vector3(0, 0, -0.03), Vector3(0, 0, -0.04),
                            Vector3(0.0, 0.0, -0.42), Vector3(0.0, 0.0, -0.40), Vector3(0, 0, -0.03)});
    b.addFrame(side > 0 ? "left_sole" : "right_sole", foot, SE3(Matrix3::Identity(), Vector3(0.04, 0.0, -0.06)));
  }
  const int chest = chain(pelvis, "torso", {Z, Y, X}, {3.0, 3.0, 15.0},
                          {Vector3(0, 0, 0.12), Vector3(0, 0, 0.05), Vector3(0, 0, 0.05)});
  const int head = chain(chest, "neck", {Z, Y}, {0.5, 3.5}, {Vector3(0, 0, 0.35), Vector3(0, 0, 0.05)});
  b.addFrame("head_site", head, offset(Vector3(0.05, 0.0, 0.12), rng, 0.5));
  for (const double side : {1.0, -1.0}) {
    const std::string name = side > 0 ? "left_arm" : "right_arm";
    const int hand = chain(chest, name, {Y, X, Z, Y, Z, X, Y}, {1.8, 1.5, 1.5, 1.2, 0.6, 0.4, 0.4},
                           {Vector3(0.0, 0.2 * side, 0.3), Vector3(0, 0.03 * side, 0), Vector3(0, 0.03 * side, 0),
                            Vector3(0.0, 0.0, -0.28), Vector3(0.0, 0.0, -0.12), Vector3(0.0, 0.0, -0.12),
                            Vector3(0, 0, -0.03)});
    b.addFrame(side > 0 ? "left_hand" : "right_hand", hand, offset(Vector3(0.02, 0.0, -0.1), rng, 0.8));
  }
  return std::move(b).build(true);
}

}  // namespace loopsim::test
