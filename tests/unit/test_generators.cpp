// Mechanism generators: stated constraint dimension and rank (checked by an
// SVD of J at q0, independent of the loader's QR), loops closed at q0,
// non-parallel axes, parameter validation.
#include <gtest/gtest.h>

#include <Eigen/SVD>
#include <cmath>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/generators.hpp>

namespace loopsim {
namespace {

struct Evaluated {
  VectorX phi;
  MatrixX J;
};

Evaluated evaluate(const GeneratedMechanism& g) {
  const ConstraintSet set(g.model, g.constraints);
  Data data(g.model);
  ConstraintData cd(set);
  computeConstraintTerms(set, data, g.q0, VectorX::Zero(g.model.nv), cd, kConstraintErrors | kConstraintJacobian);
  return {cd.phi, cd.J};
}

int svdRank(const MatrixX& J) {
  if (J.rows() == 0) return 0;
  Eigen::JacobiSVD<MatrixX> svd(J);
  const auto s = svd.singularValues();
  int rank = 0;
  for (int k = 0; k < s.size(); ++k) rank += s[k] > 1e-9 * s[0] ? 1 : 0;
  return rank;
}

void expectStatedDimensionAndRank(const GeneratedMechanism& g, int dim, int rank) {
  SCOPED_TRACE(g.model.name + ": " + g.doc);
  EXPECT_EQ(g.constraint_dim, dim);
  EXPECT_EQ(g.constraint_rank, rank);
  const Evaluated e = evaluate(g);
  EXPECT_EQ(e.J.rows(), dim);
  EXPECT_EQ(svdRank(e.J), rank);
  EXPECT_NE(g.doc.find("dimension " + std::to_string(dim) + ", rank " + std::to_string(rank)), std::string::npos);
  if (dim > 0) {
    EXPECT_LT(e.phi.lpNorm<Eigen::Infinity>(), 1e-10);
  }
}

/// Smallest |sin| of the angle between two joint axes, in the world at q0.
double minAxisSine(const GeneratedMechanism& g) {
  Data data(g.model);
  forwardKinematics(g.model, data, g.q0);
  double smallest = 1.0;
  for (int i = 1; i < g.model.nbodies(); ++i) {
    for (int j = i + 1; j < g.model.nbodies(); ++j) {
      const Vector3 a = data.oMi[i].R * g.model.joint_axes[i];
      const Vector3 b = data.oMi[j].R * g.model.joint_axes[j];
      smallest = std::min(smallest, a.cross(b).norm());
    }
  }
  return smallest;
}

TEST(Generators, FourBarClosesExactlyWithInPlaneRows) {
  for (double angle : {-2.5, -1.0, 0.0, 0.7, 1.0, 2.0, 3.0}) {
    FourBarParams p;
    p.crank_angle = angle;
    const GeneratedMechanism g = fourBar(p);
    EXPECT_EQ(g.model.nq, 3);
    EXPECT_DOUBLE_EQ(g.q0[0], angle);
    expectStatedDimensionAndRank(g, 2, 2);
    ASSERT_EQ(g.constraints.size(), 1u);
    EXPECT_EQ(g.constraints[0].kind, ConstraintKind::RevoluteLoop);
    EXPECT_EQ(g.constraints[0].row_mask, (std::vector<int>{0, 1}));
  }
  // Different lengths: still closed.
  const GeneratedMechanism other = fourBar({1.2, 0.4, 1.1, 0.9, 0.3, 0.05, 3.0});
  EXPECT_LT(evaluate(other).phi.lpNorm<Eigen::Infinity>(), 1e-10);
}

TEST(Generators, FourBarRefusesAnUnassemblableAngle) {
  FourBarParams p;
  p.crank = 2.0;  // crank tip out of reach of coupler + rocker at angle π
  p.crank_angle = 3.14;
  try {
    fourBar(p);
    FAIL() << "expected ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot assemble at crank_angle"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("four_bar"), std::string::npos) << e.what();
  }
}

TEST(Generators, SpatialChainConnectAndRevoluteAreFullRank) {
  for (int links : {6, 7, 10}) {
    SpatialChainParams p;
    p.links = links;
    const GeneratedMechanism connect = spatialChain(p);
    EXPECT_EQ(connect.model.nv, links);
    expectStatedDimensionAndRank(connect, 3, 3);
    EXPECT_GT(minAxisSine(connect), 0.05);
    p.revolute_closure = true;
    const GeneratedMechanism revolute = spatialChain(p);
    expectStatedDimensionAndRank(revolute, 5, 5);
  }
  EXPECT_THROW(spatialChain({5, 0.3, 0.6, false, 0.03, 2.0}), ModelError);
}

TEST(Generators, PendulumChainWeldIsFullRank) {
  for (int links : {7, 9, 12}) {
    PendulumChainParams p;
    p.links = links;
    const GeneratedMechanism g = pendulumChain(p);
    EXPECT_EQ(g.model.nv, links);
    expectStatedDimensionAndRank(g, 6, 6);
    EXPECT_GT(minAxisSine(g), 0.05);
  }
  PendulumChainParams free_tip;
  free_tip.weld_tip = false;
  free_tip.links = 3;
  EXPECT_TRUE(pendulumChain(free_tip).constraints.empty());
  PendulumChainParams too_short;
  too_short.links = 6;
  EXPECT_THROW(pendulumChain(too_short), ModelError);
}

TEST(Generators, HumanoidTreeStandsOnTwoFullRankWelds) {
  const GeneratedMechanism g = humanoidTree();
  const Model& m = g.model;
  EXPECT_EQ(m.njoints(), 31);  // floating root + 30 revolute
  EXPECT_EQ(m.nq, 37);
  EXPECT_EQ(m.nv, 36);
  EXPECT_TRUE(m.isFloatingBase());
  EXPECT_NEAR(m.totalMass(), 82.8, 1e-9);
  // No artificial rotor armature: implicit damping keeps the light wrists stable.
  EXPECT_EQ(m.armature.lpNorm<Eigen::Infinity>(), 0.0);
  for (const char* name : {"left_knee", "right_ankle_roll", "torso_yaw", "neck_pitch", "left_wrist_roll"}) {
    EXPECT_GE(m.jointId(name), 1) << name;
  }
  expectStatedDimensionAndRank(g, 12, 12);
  // The soles stand on z = 0, flat.
  Data data(m);
  forwardKinematics(m, data, g.q0);
  for (const char* foot : {"left_foot", "right_foot"}) {
    const Frame& f = m.frames[m.existingFrame(foot)];
    const SE3 sole = data.oMi[f.body] * f.placement;
    EXPECT_NEAR(sole.t.z(), 0.0, 1e-12) << foot;
    EXPECT_TRUE(sole.R.isApprox(Matrix3::Identity(), 1e-12)) << foot;
  }
  // Stretched legs make the welds singular: refused.
  EXPECT_THROW(humanoidTree({0.0, true}), ModelError);
  EXPECT_TRUE(humanoidTree({0.0, false}).constraints.empty());
}

TEST(Generators, RedundantMechanismsHaveTheirStatedRank) {
  expectStatedDimensionAndRank(redundantMechanism({RedundantMechanismParams::Variant::PlanarConnect}), 3, 2);
  expectStatedDimensionAndRank(redundantMechanism({RedundantMechanismParams::Variant::DuplicateConnect}), 6, 3);
}

TEST(Generators, RegistryBuildsEveryGeneratorWithDefaultsAndStatedRank) {
  ASSERT_GE(generatorRegistry().size(), 5u);
  for (const GeneratorInfo& info : generatorRegistry()) {
    const GeneratedMechanism g = info.make({});
    SCOPED_TRACE(info.name);
    expectStatedDimensionAndRank(g, g.constraint_dim, g.constraint_rank);
  }
  EXPECT_EQ(findGenerator("nope"), nullptr);
}

TEST(Generators, RegistryChecksParameterKinds) {
  const GeneratorInfo* chain = findGenerator("spatial_chain");
  ASSERT_NE(chain, nullptr);
  EXPECT_EQ(chain->make({{"links", "8"}, {"closure", "revolute"}}).model.nv, 8);
  auto message = [&](const GeneratorArguments& args) {
    try {
      chain->make(args);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"links", "6.5"}}).find("parameter 'links': expected an integer, got '6.5'"), std::string::npos);
  EXPECT_NE(message({{"closure", "weld"}}).find("expected one of connect, revolute, got 'weld'"), std::string::npos);
  EXPECT_NE(message({{"length", "long"}}).find("expected a finite number, got 'long'"), std::string::npos);
  EXPECT_NE(message({{"lenght", "1"}}).find("unknown parameter"), std::string::npos);
  const GeneratorInfo* pendulum = findGenerator("pendulum_chain");
  ASSERT_NE(pendulum, nullptr);
  EXPECT_TRUE(pendulum->make({{"weld_tip", "false"}}).constraints.empty());
}

}  // namespace
}  // namespace loopsim
