// Collision geometry and detection (engine/collision): the pair rules (same body,
// contype/conaffinity, parent-child as MuJoCo, exclusions, pair friction) and the
// checks of bad input; detection against closed forms (sphere on a level and a
// tilted plane, in contact, in the margin band and apart; sphere-sphere and
// sphere-box at random poses; capsule and cylinder on a plane), the manifolds FCL
// does not give (a box on its face, edge and corner; a convex mesh), contact frames,
// and contact ids that persist across small motions and change when a contact is lost.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <loopsim/collision/collision_detection.hpp>
#include <loopsim/collision/geometry.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/model/model_builder.hpp>

using namespace loopsim;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// world ─ free_a (floating)          bodies 1
//       ─ free_b (floating)          2
//       ─ base (floating) ─ link1 (revolute) ─ link2 (revolute)   3, 4, 5
Model testModel() {
  ModelBuilder builder("collision_test");
  const Inertia inertia(1.0, Vector3::Zero(), 0.01 * Matrix3::Identity());
  JointSpec floating;
  floating.type = JointType::Floating;
  JointSpec hinge;
  hinge.type = JointType::Revolute;
  builder.addBody(0, "free_a_joint", floating, SE3::Identity(), inertia, "free_a");
  builder.addBody(0, "free_b_joint", floating, SE3::Identity(), inertia, "free_b");
  const int base = builder.addBody(0, "base_joint", floating, SE3::Identity(), inertia, "base");
  const int link1 = builder.addBody(base, "joint1", hinge, SE3::Identity(), inertia, "link1");
  builder.addBody(link1, "joint2", hinge, SE3::Identity(), inertia, "link2");
  return std::move(builder).build();
}

constexpr int kFreeA = 1, kFreeB = 2, kBase = 3, kLink1 = 4, kLink2 = 5;

std::vector<SE3> identityPlacements(const Model& model) {
  return std::vector<SE3>(static_cast<std::size_t>(model.nbodies()), SE3::Identity());
}

SE3 translation(double x, double y, double z) { return SE3(Matrix3::Identity(), Vector3(x, y, z)); }

Matrix3 randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Quaternion q(normal(rng), normal(rng), normal(rng), normal(rng));
  return q.normalized().toRotationMatrix();
}

// The rotation turning direction a onto direction b about a × b.
Matrix3 rotationBetween(const Vector3& a, const Vector3& b) {
  const Vector3 u = a.normalized(), v = b.normalized();
  const Vector3 axis = u.cross(v);
  if (axis.norm() < 1e-12) {
    if (u.dot(v) > 0.0) return Matrix3::Identity();
    const Vector3 any = std::abs(u.x()) < 0.9 ? Vector3::UnitX() : Vector3::UnitY();
    return Eigen::AngleAxisd(std::numbers::pi, u.cross(any).normalized()).toRotationMatrix();
  }
  return Eigen::AngleAxisd(std::atan2(axis.norm(), u.dot(v)), axis.normalized()).toRotationMatrix();
}

Vector3 randomUnit(std::mt19937& rng) {
  std::normal_distribution<double> normal;
  return Vector3(normal(rng), normal(rng), normal(rng)).normalized();
}

// The error a call throws, or an empty one when it does not throw.
template <class F>
ModelError modelErrorOf(F&& f) {
  try {
    f();
  } catch (const ModelError& e) {
    return e;
  }
  return ModelError("", "", "");
}

void expectFrame(const ContactPoint& c) {
  const Matrix3& R = c.frame;
  EXPECT_LT((R.transpose() * R - Matrix3::Identity()).norm(), 1e-12);
  EXPECT_NEAR(R.determinant(), 1.0, 1e-12);
  EXPECT_LT((R.col(2) - c.normal).norm(), 1e-15);
  EXPECT_NEAR(c.normal.norm(), 1.0, 1e-12);
}

}  // namespace

// ---------------------------------------------------------------- geometry

TEST(CollisionGeometry, BadSizesAreRefusedNamingTheGeometryAndTheValue) {
  const Model model = testModel();
  GeometryModel geometry(model, "scene.yaml");
  struct Case {
    Geometry g;
    std::string value;
  };
  const std::vector<Case> cases = {
      {Geometry::sphere("zero_sphere", kFreeA, SE3::Identity(), 0.0), "got 0"},
      {Geometry::sphere("negative_sphere", kFreeA, SE3::Identity(), -0.25), "got -0.25"},
      {Geometry::sphere("nan_sphere", kFreeA, SE3::Identity(), kNaN), "got nan"},
      {Geometry::sphere("infinite_sphere", kFreeA, SE3::Identity(), kInf), "got inf"},
      {Geometry::box("flat_box", kFreeA, SE3::Identity(), Vector3(0.2, 0.0, 0.2)), "(0.2, 0, 0.2)"},
      {Geometry::box("negative_box", kFreeA, SE3::Identity(), Vector3(0.2, 0.3, -0.4)), "(0.2, 0.3, -0.4)"},
      {Geometry::cylinder("nan_cylinder", kFreeA, SE3::Identity(), 0.1, kNaN), "length must be positive and finite, got nan"},
      {Geometry::capsule("thin_capsule", kFreeA, SE3::Identity(), -0.01, 0.3), "radius must be positive and finite, got -0.01"},
      {Geometry::convex("too_few", kFreeA, SE3::Identity(), {Vector3::Zero(), Vector3::UnitX(), Vector3::UnitY()}),
       "at least 4 vertices, got 3"},
      {Geometry::convex("nan_vertex", kFreeA, SE3::Identity(),
                        {Vector3::Zero(), Vector3::UnitX(), Vector3::UnitY(), Vector3(0.0, kNaN, 1.0)}),
       "vertex 3 is not finite"},
      {Geometry::halfspace("zero_normal", Vector3::Zero(), 0.0), "normal must be finite and nonzero, got (0, 0, 0)"},
      {Geometry::halfspace("nan_offset", Vector3::UnitZ(), kNaN), "offset must be finite, got nan"},
  };
  for (const Case& c : cases) {
    const ModelError e = modelErrorOf([&] { geometry.addGeometry(c.g); });
    EXPECT_EQ(e.file(), "scene.yaml") << c.g.name;
    EXPECT_EQ(e.element(), "geometry '" + c.g.name + "'");
    EXPECT_NE(e.message().find(c.value), std::string::npos) << e.what();
  }
  EXPECT_EQ(geometry.ngeometries(), 0);

  Geometry moving_plane = Geometry::halfspace("moving_plane", Vector3::UnitZ(), 0.0);
  moving_plane.body = kFreeA;
  EXPECT_NE(modelErrorOf([&] { geometry.addGeometry(moving_plane); }).message().find("got body 1"), std::string::npos);
  const ModelError unknown_body =
      modelErrorOf([&] { geometry.addGeometry(Geometry::sphere("lost", 17, SE3::Identity(), 0.1)); });
  EXPECT_NE(unknown_body.message().find("body 17 does not exist"), std::string::npos) << unknown_body.what();
  Geometry skewed = Geometry::sphere("skewed", kFreeA, SE3::Identity(), 0.1);
  skewed.placement.R(0, 1) = 0.5;
  EXPECT_NE(modelErrorOf([&] { geometry.addGeometry(skewed); }).message().find("rigid transform"), std::string::npos);
  geometry.addGeometry(Geometry::sphere("ball", kFreeA, SE3::Identity(), 0.1));
  EXPECT_NE(modelErrorOf([&] { geometry.addGeometry(Geometry::sphere("ball", kFreeB, SE3::Identity(), 0.1)); })
                .message()
                .find("exists already"),
            std::string::npos);
  EXPECT_EQ(geometry.ngeometries(), 1);
}

TEST(CollisionGeometry, BadFrictionExclusionsAndSettingsAreRefusedNamingTheValue) {
  const Model model = testModel();
  GeometryModel geometry(model, "robot.urdf");
  for (const double mu : {-0.5, kNaN}) {
    Geometry g = Geometry::sphere("slippery", kFreeA, SE3::Identity(), 0.1);
    g.friction = mu;
    const ModelError e = modelErrorOf([&] { geometry.addGeometry(g); });
    EXPECT_EQ(e.element(), "geometry 'slippery'");
    EXPECT_NE(e.message().find(std::string("friction must be >= 0, got ") + (std::isnan(mu) ? "nan" : "-0.5")),
              std::string::npos)
        << e.what();
  }
  Geometry sticky = Geometry::sphere("sticky", kFreeA, SE3::Identity(), 0.1);
  sticky.friction = kInf;  // no slip: allowed, as in the contact problem
  EXPECT_NO_THROW(geometry.addGeometry(sticky));
  geometry.addGeometry(Geometry::sphere("other", kFreeB, SE3::Identity(), 0.1));

  const ModelError unknown = modelErrorOf([&] { geometry.excludeBodies("base", "tail"); });
  EXPECT_EQ(unknown.file(), "robot.urdf");
  EXPECT_EQ(unknown.element(), "exclusion 'base' - 'tail'");
  EXPECT_NE(unknown.message().find("no body named 'tail'"), std::string::npos) << unknown.what();
  EXPECT_NE(modelErrorOf([&] { geometry.excludeBodies(kBase, 42); }).message().find("body 42 does not exist"),
            std::string::npos);
  EXPECT_NE(modelErrorOf([&] { geometry.setPairFriction("sticky", "other", -1.0); }).message().find("got -1"),
            std::string::npos);
  EXPECT_NE(modelErrorOf([&] { geometry.setPairFriction("sticky", "ghost", 0.5); }).message().find("'ghost'"),
            std::string::npos);
  CollisionSettings settings;
  settings.margin = -0.001;
  EXPECT_NE(modelErrorOf([&] { geometry.setSettings(settings); }).message().find("margin must be >= 0 and finite, got -0.001"),
            std::string::npos);
  settings.margin = 0.01;
  settings.persistence_tolerance = kNaN;
  EXPECT_NE(modelErrorOf([&] { geometry.setSettings(settings); }).message().find("got nan"), std::string::npos);
  EXPECT_EQ(geometry.settings().margin, CollisionSettings{}.margin);  // unchanged after a refusal
}

TEST(CollisionGeometry, PairRulesFollowMuJoCo) {
  const Model model = testModel();
  GeometryModel geometry(model);
  const int ground = geometry.addGeometry(Geometry::halfspace("ground", Vector3::UnitZ(), 0.0));
  const int a = geometry.addGeometry(Geometry::sphere("a", kFreeA, SE3::Identity(), 0.1));
  const int a2 = geometry.addGeometry(Geometry::sphere("a2", kFreeA, translation(0.05, 0, 0), 0.1));
  const int b = geometry.addGeometry(Geometry::sphere("b", kFreeB, SE3::Identity(), 0.1));
  const int base = geometry.addGeometry(Geometry::box("base", kBase, SE3::Identity(), Vector3(0.1, 0.2, 0.3)));
  const int link1 = geometry.addGeometry(Geometry::capsule("link1", kLink1, SE3::Identity(), 0.05, 0.3));
  const int link2 = geometry.addGeometry(Geometry::capsule("link2", kLink2, SE3::Identity(), 0.05, 0.3));

  EXPECT_FALSE(geometry.canCollide(a, a2));  // same body
  EXPECT_FALSE(geometry.canCollide(a, a));
  EXPECT_TRUE(geometry.canCollide(a, b));
  EXPECT_TRUE(geometry.canCollide(ground, base));     // the world's child: not filtered
  EXPECT_FALSE(geometry.canCollide(base, link1));     // parent-child
  EXPECT_FALSE(geometry.canCollide(link2, link1));    // child-parent
  EXPECT_TRUE(geometry.canCollide(base, link2));      // grandparent: collides
  geometry.setParentChildFilter(false);
  EXPECT_TRUE(geometry.canCollide(base, link1));
  geometry.setParentChildFilter(true);
  geometry.excludeBodies("free_b", "base");
  EXPECT_FALSE(geometry.canCollide(b, base));
  EXPECT_FALSE(geometry.canCollide(base, b));
  EXPECT_TRUE(geometry.canCollide(a, base));
  geometry.excludeBodies(0, kFreeA);
  EXPECT_FALSE(geometry.canCollide(ground, a));
  EXPECT_TRUE(geometry.canCollide(ground, b));
}

TEST(CollisionGeometry, BitmasksAndPairFriction) {
  const Model model = testModel();
  GeometryModel geometry(model);
  auto sphere = [&](const char* name, int body, std::uint32_t contype, std::uint32_t conaffinity, double mu) {
    Geometry g = Geometry::sphere(name, body, SE3::Identity(), 0.1);
    g.contype = contype;
    g.conaffinity = conaffinity;
    g.friction = mu;
    return geometry.addGeometry(g);
  };
  const int p = sphere("p", kFreeA, 1, 0, 0.3);
  const int q = sphere("q", kFreeB, 0, 1, 0.9);
  const int r = sphere("r", kBase, 2, 2, 0.5);
  const int s = sphere("s", kLink2, 0, 0, 0.1);
  EXPECT_TRUE(geometry.canCollide(p, q));   // p.contype & q.conaffinity
  EXPECT_TRUE(geometry.canCollide(q, p));
  EXPECT_FALSE(geometry.canCollide(p, r));  // 1 & 2 = 0 both ways
  EXPECT_FALSE(geometry.canCollide(q, r));
  EXPECT_FALSE(geometry.canCollide(s, p));
  EXPECT_FALSE(geometry.canCollide(s, q));

  EXPECT_EQ(geometry.pairFriction(p, q), 0.9);  // the larger
  EXPECT_EQ(geometry.pairFriction(r, p), 0.5);
  geometry.setPairFriction("q", "p", 0.05);
  EXPECT_EQ(geometry.pairFriction(p, q), 0.05);
  EXPECT_EQ(geometry.pairFriction(q, p), 0.05);
  EXPECT_EQ(geometry.pairFriction(q, r), 0.9);
}

TEST(CollisionGeometry, HalfspaceNormalIsNormalised) {
  const Model model = testModel();
  GeometryModel geometry(model);
  const int h = geometry.addGeometry(Geometry::halfspace("ground", Vector3(0.0, 0.0, 2.0), 3.0));
  EXPECT_EQ(geometry.geometry(h).normal, Vector3::UnitZ());
  EXPECT_EQ(geometry.geometry(h).offset, 1.5);
}

// ---------------------------------------------------------------- detection

TEST(CollisionDetection, SphereOnLevelPlaneInContactInTheMarginAndApart) {
  const Model model = testModel();
  GeometryModel geometry(model);
  CollisionSettings settings;
  settings.margin = 0.01;
  geometry.setSettings(settings);
  geometry.addGeometry(Geometry::halfspace("ground", Vector3::UnitZ(), 0.25));
  Geometry ball = Geometry::sphere("ball", kFreeA, translation(0.0, 0.0, 0.05), 0.1);
  ball.friction = 0.4;
  geometry.addGeometry(ball);
  CollisionData collision(geometry);
  auto oMi = identityPlacements(model);
  // Sphere centre at z = 0.25 - 0.05 + 0.1 + gap.
  for (const double gap : {-0.003, 0.0, 0.004, 0.0099}) {
    oMi[kFreeA] = translation(0.3, -0.2, 0.3 + gap);
    const auto& contacts = computeContacts(geometry, oMi, collision);
    ASSERT_EQ(contacts.size(), 1u) << gap;
    const ContactPoint& c = contacts[0];
    EXPECT_EQ(c.geometry_a, 0);
    EXPECT_EQ(c.geometry_b, 1);
    EXPECT_EQ(c.body_a, 0);
    EXPECT_EQ(c.body_b, kFreeA);
    EXPECT_NEAR(c.distance, gap, 1e-12);
    EXPECT_LT((c.normal - Vector3::UnitZ()).norm(), 1e-12);
    EXPECT_LT((c.position - Vector3(0.3, -0.2, 0.25 + 0.5 * gap)).norm(), 1e-12);
    EXPECT_EQ(c.friction, 1.0);  // max(1 default, 0.4)
    EXPECT_LT((c.position_in_b - Vector3(0.0, 0.0, -0.05 - 0.5 * gap)).norm(), 1e-12);
    expectFrame(c);
  }
  for (const double gap : {0.0101, 0.05, 1.0}) {
    oMi[kFreeA] = translation(0.3, -0.2, 0.3 + gap);
    EXPECT_TRUE(computeContacts(geometry, oMi, collision).empty()) << gap;
  }
}

TEST(CollisionDetection, SphereOnTiltedPlanesAtRandomPoses) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const Model model = testModel();
  for (int trial = 0; trial < 40; ++trial) {
    GeometryModel geometry(model);
    const Vector3 n = randomUnit(rng);
    const double offset = uniform(rng);
    const double r = 0.05 + 0.1 * (uniform(rng) + 1.0);
    const Vector3 local(0.1 * uniform(rng), 0.1 * uniform(rng), 0.1 * uniform(rng));
    geometry.addGeometry(Geometry::sphere("ball", kFreeB, translation(local.x(), local.y(), local.z()), r));
    geometry.addGeometry(Geometry::halfspace("slope", 3.0 * n, 3.0 * offset));  // unnormalised on purpose
    CollisionData collision(geometry);
    auto oMi = identityPlacements(model);
    const double gap = 0.004 * uniform(rng);  // inside the default 5 mm margin
    const Vector3 w(uniform(rng), uniform(rng), uniform(rng));
    const Vector3 tangential = w - n * n.dot(w);
    const Vector3 c_world = tangential + n * (offset + r + gap);
    const Matrix3 R = randomRotation(rng);
    oMi[kFreeB] = SE3(R, c_world - R * local);
    const auto& contacts = computeContacts(geometry, oMi, collision);
    ASSERT_EQ(contacts.size(), 1u) << trial;
    const ContactPoint& c = contacts[0];
    EXPECT_EQ(c.geometry_a, 0);  // the ball, added first: the normal points from it into the plane
    EXPECT_NEAR(c.distance, gap, 1e-9);
    EXPECT_LT((c.normal + n).norm(), 1e-12);
    EXPECT_LT((c.position - (c_world - n * (r + 0.5 * gap))).norm(), 1e-9);
    expectFrame(c);
    oMi[kFreeB].t += n * 0.01;  // now at least 6 mm away: beyond the margin
    EXPECT_EQ(computeContacts(geometry, oMi, collision).size(), 0u);
  }
}

TEST(CollisionDetection, BoxOnPlaneGivesItsSupportingCorners) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const Model model = testModel();
  const Vector3 size(0.2, 0.3, 0.1);
  for (int trial = 0; trial < 20; ++trial) {
    GeometryModel geometry(model);
    // A tilted plane through a random point; the box's local z along its normal.
    const Vector3 n = trial == 0 ? Vector3::UnitZ() : randomUnit(rng);
    const double offset = 0.2 * uniform(rng);
    geometry.addGeometry(Geometry::halfspace("ground", n, offset));
    geometry.addGeometry(Geometry::box("box", kFreeA, SE3::Identity(), size));
    CollisionData collision(geometry);
    auto oMi = identityPlacements(model);
    // A frame with z = n and a random yaw about it.
    const Matrix3 align = rotationBetween(Vector3::UnitZ(), n);
    const Matrix3 yaw = Eigen::AngleAxisd(std::numbers::pi * uniform(rng), Vector3::UnitZ()).toRotationMatrix();
    const Vector3 along(uniform(rng), uniform(rng), 0.0);
    auto place = [&](const Matrix3& tilt, double height) {
      const Matrix3 R = align * yaw * tilt;
      oMi[kFreeA] = SE3(R, align * along + n * (offset + height));
      return computeContacts(geometry, oMi, collision);
    };

    // Face down, 0.1 mm into the plane: the four bottom corners.
    const auto& face = place(Matrix3::Identity(), 0.5 * size.z() - 1e-4);
    ASSERT_EQ(face.size(), 4u) << trial;
    std::set<std::pair<int, int>> corners;
    for (const ContactPoint& c : face) {
      EXPECT_NEAR(c.distance, -1e-4, 1e-12);
      EXPECT_LT((c.normal - n).norm(), 1e-12);
      // Each at a distinct bottom corner of the box, in the box frame.
      const Vector3 in_box = c.position_in_b + Vector3(0, 0, 0.5 * c.distance);
      EXPECT_NEAR(std::abs(in_box.x()), 0.5 * size.x(), 1e-12);
      EXPECT_NEAR(std::abs(in_box.y()), 0.5 * size.y(), 1e-12);
      EXPECT_NEAR(in_box.z(), -0.5 * size.z(), 1e-12);
      corners.insert({in_box.x() > 0 ? 1 : -1, in_box.y() > 0 ? 1 : -1});
      expectFrame(c);
    }
    EXPECT_EQ(corners.size(), 4u);

    // On an edge: rolled 30° about its x axis, the lowest edge touching.
    const Matrix3 roll = Eigen::AngleAxisd(std::numbers::pi / 6, Vector3::UnitX()).toRotationMatrix();
    const Vector3 lowest_corner(0.0, -0.5 * size.y(), -0.5 * size.z());
    const double edge_height = -(roll * lowest_corner).z();
    const auto& edge = place(roll, edge_height);
    ASSERT_EQ(edge.size(), 2u) << trial;
    for (const ContactPoint& c : edge) {
      EXPECT_NEAR(c.distance, 0.0, 1e-12);
      EXPECT_NEAR(std::abs(c.position_in_b.x()), 0.5 * size.x(), 1e-12);
    }
    // On a corner: the body diagonal (−,−,−) pointing straight down.
    const Vector3 diagonal = Vector3(-0.5 * size.x(), -0.5 * size.y(), -0.5 * size.z());
    const Matrix3 stand = rotationBetween(diagonal, -Vector3::UnitZ());
    const auto& corner = place(stand, diagonal.norm() - 2e-3);
    ASSERT_EQ(corner.size(), 1u) << trial;
    EXPECT_NEAR(corner[0].distance, -2e-3, 1e-12);
    // Midway between the corner and the plane, 1 mm above the corner along n.
    EXPECT_LT((corner[0].position_in_b - (diagonal + stand.transpose() * Vector3(0, 0, 1e-3))).norm(), 1e-12);
  }
}

TEST(CollisionDetection, SphereSphereAtRandomPoses) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const Model model = testModel();
  GeometryModel geometry(model);
  const double ra = 0.1, rb = 0.15;
  geometry.addGeometry(Geometry::sphere("a", kFreeA, translation(0.02, 0.0, -0.01), ra));
  geometry.addGeometry(Geometry::sphere("b", kFreeB, translation(0.0, 0.03, 0.0), rb));
  CollisionData collision(geometry);
  auto oMi = identityPlacements(model);
  for (int trial = 0; trial < 100; ++trial) {
    oMi[kFreeA] = SE3(randomRotation(rng), Vector3(uniform(rng), uniform(rng), uniform(rng)));
    const Vector3 ca = oMi[kFreeA].actPoint(Vector3(0.02, 0.0, -0.01));
    const Vector3 u = randomUnit(rng);
    const double gap = trial % 2 == 0 ? -0.05 * (uniform(rng) + 1.0) : 0.0049 * (uniform(rng) + 1.0) / 2.0;
    const Vector3 cb = ca + u * (ra + rb + gap);
    const Matrix3 Rb = randomRotation(rng);
    oMi[kFreeB] = SE3(Rb, cb - Rb * Vector3(0.0, 0.03, 0.0));
    const auto& contacts = computeContacts(geometry, oMi, collision);
    ASSERT_EQ(contacts.size(), 1u) << trial;
    const ContactPoint& c = contacts[0];
    EXPECT_NEAR(c.distance, gap, 1e-8) << trial;
    EXPECT_LT((c.normal - u).norm(), 1e-6) << trial;
    if (gap > 0.0) {
      // In the margin band: midway between the surface points ca + ra u and cb - rb u.
      EXPECT_LT((c.position - 0.5 * (ca + ra * u + cb - rb * u)).norm(), 1e-6) << trial;
    } else {
      // Overlapping: FCL's point, on the centre line between the two surface points.
      const double along = (c.position - ca).dot(u);
      EXPECT_LT((c.position - ca - along * u).norm(), 1e-9) << trial;
      EXPECT_GE(along, ra + gap - 1e-9) << trial;
      EXPECT_LE(along, ra + 1e-9) << trial;
    }
    expectFrame(c);
  }
  // Apart by more than the margin, including pairs whose boxes are within it.
  oMi[kFreeA] = translation(0.0, 0.0, 0.0);
  oMi[kFreeB] = SE3(Matrix3::Identity(), Vector3(0.02 + ra + rb + 0.006, -0.03, -0.01));
  EXPECT_TRUE(computeContacts(geometry, oMi, collision).empty());
}

TEST(CollisionDetection, TheBroadphaseFindsPairsInsideTheMarginBand) {
  // Two spheres 3 mm apart along x: their tight boxes do not overlap, so the pair
  // exists only because each box is grown by half the (5 mm) margin.
  const Model model = testModel();
  GeometryModel geometry(model);
  geometry.addGeometry(Geometry::sphere("a", kFreeA, SE3::Identity(), 0.1));
  geometry.addGeometry(Geometry::sphere("b", kFreeB, SE3::Identity(), 0.1));
  CollisionData collision(geometry);
  auto oMi = identityPlacements(model);
  oMi[kFreeB] = translation(0.203, 0.0, 0.0);
  const auto& contacts = computeContacts(geometry, oMi, collision);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].distance, 0.003, 1e-9);
  EXPECT_LT((contacts[0].position - Vector3(0.1015, 0.0, 0.0)).norm(), 1e-9);
}

TEST(CollisionDetection, SphereBoxAgainstTheClosedForm) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const Model model = testModel();
  GeometryModel geometry(model);
  const Vector3 size(0.4, 0.2, 0.3);
  const double r = 0.08;
  geometry.addGeometry(Geometry::box("box", kFreeA, SE3(randomRotation(rng), Vector3(0.1, 0.0, 0.0)), size));
  geometry.addGeometry(Geometry::sphere("ball", kFreeB, SE3::Identity(), r));
  CollisionData collision(geometry);
  auto oMi = identityPlacements(model);
  int in_contact = 0;
  for (int trial = 0; trial < 200; ++trial) {
    oMi[kFreeA] = SE3(randomRotation(rng), Vector3(uniform(rng), uniform(rng), uniform(rng)));
    const SE3 oMbox = oMi[kFreeA] * geometry.geometry(0).placement;
    // A sphere centre outside the box, near its surface: a point on the surface plus
    // an outward offset.
    const Vector3 half = 0.5 * size;
    Vector3 q(half.x() * uniform(rng), half.y() * uniform(rng), half.z() * uniform(rng));
    const int face = trial % 3;
    q[face] = (uniform(rng) > 0 ? 1 : -1) * half[face];
    q += 0.1 * Vector3(uniform(rng), uniform(rng), uniform(rng)).cwiseAbs().cwiseProduct(q.cwiseSign());
    const Vector3 closest = q.cwiseMax(-half).cwiseMin(half);
    const double d = (q - closest).norm() - r;
    oMi[kFreeB] = SE3(randomRotation(rng), oMbox.actPoint(q));
    const auto& contacts = computeContacts(geometry, oMi, collision);
    if (d >= 0.005 + 1e-7) {
      EXPECT_TRUE(contacts.empty()) << trial << " d " << d;
      continue;
    }
    if (d > 0.005 - 1e-7) continue;  // at the margin's edge
    ASSERT_EQ(contacts.size(), 1u) << trial << " d " << d;
    ++in_contact;
    const ContactPoint& c = contacts[0];
    const Vector3 u = oMbox.R * (q - closest).normalized();  // from the box (a) to the ball (b)
    EXPECT_NEAR(c.distance, d, 1e-7) << trial;
    EXPECT_LT((c.normal - u).norm(), 1e-5) << trial;
    EXPECT_LT((c.position - (oMbox.actPoint(closest) + 0.5 * d * u)).norm(), 1e-5) << trial;
    expectFrame(c);
  }
  EXPECT_GT(in_contact, 30);
}

TEST(CollisionDetection, CapsuleAndCylinderOnPlane) {
  const Model model = testModel();
  GeometryModel geometry(model);
  const double r = 0.05, length = 0.4;
  geometry.addGeometry(Geometry::halfspace("ground", Vector3::UnitZ(), 0.0));
  geometry.addGeometry(Geometry::capsule("capsule", kFreeA, SE3::Identity(), r, length));
  geometry.addGeometry(Geometry::cylinder("cylinder", kFreeB, SE3::Identity(), r, length));
  CollisionData collision(geometry);
  auto oMi = identityPlacements(model);
  oMi[kFreeB] = translation(5.0, 0.0, 5.0);  // away
  // Lying along y, tilted by a small angle so the two ends sit at different heights.
  for (const double tilt : {0.0, 0.005, 0.05}) {
    const Matrix3 R = Eigen::AngleAxisd(std::numbers::pi / 2 + tilt, Vector3::UnitX()).toRotationMatrix();
    oMi[kFreeA] = SE3(R, Vector3(0.1, 0.2, r - 0.001));
    const auto& contacts = computeContacts(geometry, oMi, collision);
    std::vector<double> expected;
    for (const double end : {-0.5, 0.5}) {
      const double d = (oMi[kFreeA].actPoint(Vector3(0, 0, end * length))).z() - r;
      if (d < 0.005) expected.push_back(d);
    }
    ASSERT_EQ(contacts.size(), expected.size()) << tilt;
    ASSERT_EQ(contacts.size(), tilt < 0.01 ? 2u : 1u);
    for (std::size_t k = 0; k < contacts.size(); ++k) EXPECT_NEAR(contacts[k].distance, expected[k], 1e-12);
  }
  // The cylinder standing on its cap: four rim points at distance -1 mm; lying: two.
  oMi[kFreeA] = translation(5.0, 0.0, 5.0);
  oMi[kFreeB] = SE3(Eigen::AngleAxisd(0.7, Vector3::UnitZ()).toRotationMatrix(), Vector3(0.0, 0.0, 0.5 * length - 0.001));
  const auto& standing = computeContacts(geometry, oMi, collision);
  ASSERT_EQ(standing.size(), 4u);
  for (const ContactPoint& c : standing) {
    EXPECT_NEAR(c.distance, -0.001, 1e-12);
    EXPECT_NEAR(std::hypot(c.position.x(), c.position.y()), r, 1e-12);
  }
  oMi[kFreeB] = SE3(Eigen::AngleAxisd(std::numbers::pi / 2, Vector3::UnitY()).toRotationMatrix(), Vector3(0.0, 0.0, r));
  const auto& lying = computeContacts(geometry, oMi, collision);
  ASSERT_EQ(lying.size(), 2u);
  EXPECT_NEAR(std::abs(lying[0].position.x() - lying[1].position.x()), length, 1e-12);
}

TEST(CollisionDetection, ConvexMeshOnPlaneAndBoxOnBox) {
  const Model model = testModel();
  GeometryModel geometry(model);
  geometry.addGeometry(Geometry::halfspace("ground", Vector3::UnitZ(), 0.0));
  // A tetrahedron standing on one vertex, with a face on top.
  const std::vector<Vector3> tetra = {Vector3(0, 0, -0.1), Vector3(0.1, 0, 0.05), Vector3(-0.05, 0.08, 0.05),
                                      Vector3(-0.05, -0.08, 0.05)};
  geometry.addGeometry(Geometry::convex("tetra", kFreeA, SE3::Identity(), tetra));
  geometry.addGeometry(Geometry::box("lower", kBase, SE3::Identity(), Vector3(0.4, 0.4, 0.2)));
  geometry.addGeometry(Geometry::box("upper", kFreeB, SE3::Identity(), Vector3(0.2, 0.2, 0.2)));
  CollisionData collision(geometry);
  auto oMi = identityPlacements(model);
  oMi[kFreeA] = translation(1.0, 0.0, 0.1 - 0.002);  // vertex 2 mm into the ground
  oMi[kBase] = translation(-1.0, 0.0, 0.1);           // resting on the ground
  oMi[kFreeB] = translation(-0.95, 0.03, 0.3 - 0.001);  // 1 mm into the lower box
  const auto& contacts = computeContacts(geometry, oMi, collision);
  int tetra_points = 0, lower_ground = 0, box_box = 0;
  for (const ContactPoint& c : contacts) {
    expectFrame(c);
    if (c.geometry_b == 1) {
      ++tetra_points;
      EXPECT_NEAR(c.distance, -0.002, 1e-12);
    } else if (c.geometry_a == 0 && c.geometry_b == 2) {
      ++lower_ground;
      EXPECT_NEAR(c.distance, 0.0, 1e-12);
    } else if (c.geometry_a == 2 && c.geometry_b == 3) {
      ++box_box;
      EXPECT_NEAR(c.distance, -0.001, 1e-9);
      EXPECT_LT((c.normal - Vector3::UnitZ()).norm(), 1e-9);
    }
  }
  EXPECT_EQ(tetra_points, 1);
  EXPECT_EQ(lower_ground, 4);
  EXPECT_EQ(box_box, 4);  // FCL's box-box manifold
  EXPECT_EQ(contacts.size(), 9u);
  // Face down, the tetrahedron's three top vertices touch (turned upside down).
  oMi[kFreeA] = SE3(Eigen::AngleAxisd(std::numbers::pi, Vector3::UnitX()).toRotationMatrix(), Vector3(1.0, 0.0, 0.05));
  int face_points = 0;
  for (const ContactPoint& c : computeContacts(geometry, oMi, collision)) face_points += c.geometry_b == 1 ? 1 : 0;
  EXPECT_EQ(face_points, 3);
}

TEST(CollisionDetection, BoxesTouchingExactlyGiveOneContactAtZeroDistance) {
  // FCL's collision query finds them apart, GJK finds them touching: the pair is
  // reported once, at distance 0 (to GJK's precision). libccd's witness points
  // coincide there, so the normal is the line between the centres: it points from
  // the lower box to the upper one, not exactly along z.
  const Model model = testModel();
  GeometryModel geometry(model);
  geometry.addGeometry(Geometry::box("lower", kFreeA, SE3::Identity(), Vector3(0.2, 0.2, 0.2)));
  geometry.addGeometry(Geometry::box("upper", kFreeB, SE3::Identity(), Vector3(0.1, 0.1, 0.1)));
  CollisionData collision(geometry);
  auto oMi = identityPlacements(model);
  for (const double dx : {0.0, 0.02, -0.031}) {
    oMi[kFreeA] = translation(0.0, 0.0, 0.0999);
    oMi[kFreeB] = translation(dx, 0.01, 0.2499);
    const auto& contacts = computeContacts(geometry, oMi, collision);
    ASSERT_FALSE(contacts.empty()) << dx;
    ASSERT_EQ(contacts.size(), 1u) << dx;
    const ContactPoint& c = contacts[0];
    EXPECT_NEAR(c.distance, 0.0, 1e-9) << dx;
    EXPECT_GT(c.normal.z(), 0.9) << dx;
    EXPECT_NEAR(c.position.z(), 0.1999, 1e-9) << dx;
    expectFrame(c);
  }
}

TEST(CollisionDetection, FilteringByCountingContacts) {
  // Every geometry overlaps every other; the rules decide which pairs report.
  const Model model = testModel();
  auto count = [&](const std::function<void(GeometryModel&)>& configure) {
    GeometryModel geometry(model);
    geometry.addGeometry(Geometry::halfspace("ground", Vector3::UnitZ(), 0.0));
    for (const int body : {kFreeA, kFreeB, kBase, kLink1, kLink2}) {
      // Appended, not "s" + to_string(): GCC 12 reports a false -Wrestrict in that operator+ at -O2.
      std::string name = "s";
      name += std::to_string(body);
      geometry.addGeometry(Geometry::sphere(name, body, SE3::Identity(), 0.1));
    }
    geometry.addGeometry(Geometry::sphere("s1_second", kFreeA, translation(0.01, 0, 0), 0.1));  // same body as s1
    configure(geometry);
    CollisionData collision(geometry);
    auto oMi = identityPlacements(model);
    for (int body = 1; body < model.nbodies(); ++body) oMi[static_cast<std::size_t>(body)] = translation(0.01 * body, 0, 0.05);
    return computeContacts(geometry, oMi, collision).size();
  };
  // 7 geometries: ground with the 6 spheres (6 pairs); spheres among themselves:
  // C(6,2) = 15, minus the same-body pair (1) and the parent-child pairs
  // base-link1, link1-link2 (2 pairs): 12. Total 18.
  EXPECT_EQ(count([](GeometryModel&) {}), 18u);
  EXPECT_EQ(count([](GeometryModel& g) { g.setParentChildFilter(false); }), 20u);
  // Excluding free_a - free_b removes s1-s2 and s1_second-s2.
  EXPECT_EQ(count([](GeometryModel& g) { g.excludeBodies("free_a", "free_b"); }), 16u);
  // Excluding the world and base removes ground-s3.
  EXPECT_EQ(count([](GeometryModel& g) { g.excludeBodies("world", "base"); }), 17u);
}

TEST(CollisionDetection, BitmasksByCountingContacts) {
  const Model model = testModel();
  GeometryModel geometry(model);
  geometry.addGeometry(Geometry::halfspace("ground", Vector3::UnitZ(), 0.0));  // contype 1, conaffinity 1
  Geometry ghost = Geometry::sphere("ghost", kFreeA, SE3::Identity(), 0.1);
  ghost.contype = 0;
  ghost.conaffinity = 0;
  geometry.addGeometry(ghost);
  Geometry passive = Geometry::sphere("passive", kFreeB, SE3::Identity(), 0.1);  // only hit by others
  passive.contype = 0;
  passive.conaffinity = 1;
  geometry.addGeometry(passive);
  Geometry other_group = Geometry::sphere("other_group", kBase, SE3::Identity(), 0.1);
  other_group.contype = 2;
  other_group.conaffinity = 2;
  geometry.addGeometry(other_group);
  CollisionData collision(geometry);
  auto oMi = identityPlacements(model);
  for (int body = 1; body < model.nbodies(); ++body) oMi[static_cast<std::size_t>(body)] = translation(0.0, 0.0, 0.05);
  const auto& contacts = computeContacts(geometry, oMi, collision);
  // Only ground-passive: ghost collides with nothing, other_group (2/2) with nothing
  // here, passive (0/1) with the ground (1/1) through ground.contype & passive.conaffinity.
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].geometry_a, 0);
  EXPECT_EQ(contacts[0].geometry_b, 2);
}

TEST(CollisionDetection, IdsAndTangentsPersistThroughSmallMotions) {
  const Model model = testModel();
  GeometryModel geometry(model);
  geometry.addGeometry(Geometry::halfspace("ground", Vector3::UnitZ(), 0.0));
  geometry.addGeometry(Geometry::box("box", kFreeA, SE3::Identity(), Vector3(0.2, 0.2, 0.2)));
  geometry.addGeometry(Geometry::sphere("ball", kFreeB, SE3::Identity(), 0.1));
  CollisionData collision(geometry);
  auto oMi = identityPlacements(model);
  oMi[kFreeA] = translation(0.0, 0.0, 0.0999);
  oMi[kFreeB] = translation(1.0, 0.0, 0.0999);
  const std::vector<ContactPoint> first = computeContacts(geometry, oMi, collision);
  ASSERT_EQ(first.size(), 5u);
  std::set<std::uint64_t> ids;
  for (const ContactPoint& c : first) ids.insert(c.id);
  EXPECT_EQ(ids.size(), 5u);

  // A small slide and yaw: same contacts, same ids, same frames.
  oMi[kFreeA] = SE3(Eigen::AngleAxisd(0.01, Vector3::UnitZ()).toRotationMatrix(), Vector3(0.001, -0.0005, 0.0998));
  oMi[kFreeB] = translation(1.002, 0.001, 0.0997);
  const std::vector<ContactPoint> second = computeContacts(geometry, oMi, collision);
  ASSERT_EQ(second.size(), 5u);
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(second[k].id, first[k].id) << k;
    EXPECT_LT((second[k].frame - first[k].frame).norm(), 1e-12) << k;
    EXPECT_LT((second[k].position_in_b - first[k].position_in_b).norm(), 1e-3) << k;
  }

  // Tilt the box onto an edge: two corners lift off beyond the margin. The two
  // that stay keep their ids; the ball leaves and comes back with a new id.
  const Matrix3 tilt = Eigen::AngleAxisd(0.2, Vector3::UnitY()).toRotationMatrix();
  const double edge_height = -(tilt * Vector3(0.1, 0.0, -0.1)).z();
  oMi[kFreeA] = SE3(tilt, Vector3(0.0, 0.0, edge_height - 1e-4));
  oMi[kFreeB] = translation(1.0, 0.0, 0.5);
  const std::vector<ContactPoint> third = computeContacts(geometry, oMi, collision);
  ASSERT_EQ(third.size(), 2u);
  for (const ContactPoint& c : third) {
    EXPECT_GT(c.position_in_b.x(), 0.0);  // the +x edge
    bool kept = false;
    for (const ContactPoint& p : second) kept = kept || (p.id == c.id && (p.position_in_b - c.position_in_b).norm() < 1e-3);
    EXPECT_TRUE(kept);
  }
  oMi[kFreeB] = translation(1.0, 0.0, 0.0999);
  const std::vector<ContactPoint> fourth = computeContacts(geometry, oMi, collision);
  ASSERT_EQ(fourth.size(), 3u);
  const ContactPoint& ball = fourth.back();
  EXPECT_EQ(ball.geometry_b, 2);
  for (const ContactPoint& p : first) EXPECT_NE(ball.id, p.id);
  EXPECT_GT(ball.id, *ids.rbegin());

  // A jump larger than the tolerance on both bodies (moved 2 cm and turned a quarter
  // turn) gives a new id.
  oMi[kFreeB] = SE3(Eigen::AngleAxisd(std::numbers::pi / 2, Vector3::UnitX()).toRotationMatrix(),
                    Vector3(1.02, 0.0, 0.0999));
  const std::vector<ContactPoint> fifth = computeContacts(geometry, oMi, collision);
  ASSERT_EQ(fifth.size(), 3u);
  EXPECT_NE(fifth.back().id, ball.id);
  EXPECT_EQ(fifth[0].id, fourth[0].id);
  collision.resetPersistence();
  EXPECT_NE(computeContacts(geometry, oMi, collision)[0].id, fifth[0].id);
}

TEST(CollisionDetection, TangentFollowsTheNormalWhenItTurns) {
  // Two balls, one sliding over the other: the normal turns and the tangent is the
  // previous one re-projected on the new normal.
  const Model model = testModel();
  GeometryModel geometry(model);
  geometry.addGeometry(Geometry::sphere("ball", kFreeA, SE3::Identity(), 0.1));
  geometry.addGeometry(Geometry::sphere("other", kFreeB, SE3::Identity(), 0.1));
  CollisionData collision(geometry);
  auto oMi = identityPlacements(model);
  oMi[kFreeB] = translation(0.0, 0.0, 0.199);
  const ContactPoint before = computeContacts(geometry, oMi, collision).at(0);
  oMi[kFreeB] = translation(0.002, 0.0, 0.199);  // the normal turns by ~0.01 rad about y
  const ContactPoint after = computeContacts(geometry, oMi, collision).at(0);
  EXPECT_EQ(after.id, before.id);
  expectFrame(after);
  const Vector3 reprojected = (before.frame.col(0) - after.normal * after.normal.dot(before.frame.col(0))).normalized();
  EXPECT_LT((after.frame.col(0) - reprojected).norm(), 1e-12);
  EXPECT_GT(after.frame.col(0).dot(before.frame.col(0)), 0.99);
}

TEST(CollisionDetection, DataOverloadAndMismatchedWorkspace) {
  const Model model = testModel();
  GeometryModel geometry(model);
  geometry.addGeometry(Geometry::halfspace("ground", Vector3::UnitZ(), 0.0));
  geometry.addGeometry(Geometry::sphere("ball", kFreeA, SE3::Identity(), 0.1));
  CollisionData collision(geometry);
  Data data(model);
  for (SE3& M : data.oMi) M = SE3::Identity();
  data.oMi[kFreeA] = translation(0.0, 0.0, 0.099);
  ASSERT_EQ(computeContacts(geometry, data, collision).size(), 1u);
  EXPECT_NEAR(collision.contacts()[0].distance, -0.001, 1e-12);

  geometry.addGeometry(Geometry::sphere("late", kFreeB, SE3::Identity(), 0.1));
  EXPECT_THROW(computeContacts(geometry, data, collision), std::invalid_argument);
  CollisionData rebuilt(geometry);
  std::vector<SE3> too_few(2);
  EXPECT_THROW(computeContacts(geometry, too_few, rebuilt), std::invalid_argument);
}

TEST(CollisionDetection, ModelsWithoutBoundedGeometriesGiveNoContacts) {
  // No geometry at all, and half-spaces only (the broadphase tree stays empty).
  const Model model = testModel();
  auto oMi = identityPlacements(model);
  GeometryModel empty(model);
  CollisionData empty_data(empty);
  EXPECT_TRUE(computeContacts(empty, oMi, empty_data).empty());
  GeometryModel planes(model);
  planes.addGeometry(Geometry::halfspace("ground", Vector3::UnitZ(), 0.0));
  planes.addGeometry(Geometry::halfspace("wall", -Vector3::UnitX(), -1.0));  // the solid x >= 1
  CollisionData planes_data(planes);
  EXPECT_TRUE(computeContacts(planes, oMi, planes_data).empty());
  // A sphere added later, in a new workspace, touches both.
  planes.addGeometry(Geometry::sphere("ball", kFreeA, SE3::Identity(), 0.1));
  CollisionData ball_data(planes);
  oMi[kFreeA] = translation(0.95, 0.0, 0.05);
  const auto& contacts = computeContacts(planes, oMi, ball_data);
  ASSERT_EQ(contacts.size(), 2u);
  EXPECT_NEAR(contacts[0].distance, -0.05, 1e-12);  // ground
  EXPECT_NEAR(contacts[1].distance, -0.05, 1e-12);  // wall at x = 1
  EXPECT_LT((contacts[1].normal + Vector3::UnitX()).norm(), 1e-12);  // from the wall (a) to the ball (b)
}
