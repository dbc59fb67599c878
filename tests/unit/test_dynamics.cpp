// Cross-checks of RNEA, CRBA, ABA and passive forces against each other and
// against the frame Jacobians, on the three test models of tests/support.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <limits>
#include <random>
#include <vector>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/energy.hpp>
#include <loopsim/algorithms/jacobians.hpp>
#include <loopsim/model/model_builder.hpp>
#include "test_models.hpp"

using namespace loopsim;

namespace {

struct NamedModel {
  const char* name;
  Model model;
};

std::vector<NamedModel> allModels(test::Passive passive = test::Passive::On) {
  std::vector<NamedModel> out;
  out.push_back({"chain7", test::fixedChain7(passive)});
  out.push_back({"branching_tree", test::branchingTree(passive)});
  out.push_back({"humanoid", test::floatingHumanoid(passive)});
  return out;
}

VectorX randomVector(std::mt19937& rng, int n, double scale = 1.0) {
  std::normal_distribution<double> g(0.0, scale);
  return VectorX::NullaryExpr(n, [&](Eigen::Index) { return g(rng); });
}

std::vector<Force> randomForces(std::mt19937& rng, const Model& model) {
  std::vector<Force> fext(model.nbodies());
  for (int i = 1; i < model.nbodies(); ++i) fext[i] = Force(Vector6(randomVector(rng, 6, 5.0)));
  return fext;
}

double relativeError(const VectorX& x, const VectorX& ref) { return (x - ref).norm() / std::max(1.0, ref.norm()); }

constexpr int kSamples = 10;

}  // namespace

TEST(Dynamics, AbaEqualsCrbaCholeskySolve) {
  std::mt19937 rng(101);
  for (auto& [name, model] : allModels()) {
    Data data(model);
    double worst = 0.0;
    for (int s = 0; s < kSamples; ++s) {
      const VectorX q = randomConfiguration(model, rng);
      const VectorX v = randomVector(rng, model.nv, 2.0);
      const VectorX tau = randomVector(rng, model.nv, 10.0);
      const std::vector<Force> fext = randomForces(rng, model);
      for (const bool with_fext : {false, true}) {
        const std::span<const Force> f = with_fext ? std::span<const Force>(fext) : std::span<const Force>();
        // rnea(q, v, 0, fext) = h - Σ Jᵀ fext.
        const VectorX bias = rnea(model, data, q, v, VectorX::Zero(model.nv), f);
        const MatrixX M = crba(model, data, q);
        const VectorX expected = M.llt().solve(tau - bias);
        const VectorX ddq = aba(model, data, q, v, tau, f);
        worst = std::max(worst, relativeError(ddq, expected));
      }
    }
    EXPECT_LT(worst, 1e-10) << name;
  }
}

TEST(Dynamics, RneaInvertsAba) {
  std::mt19937 rng(102);
  for (auto& [name, model] : allModels()) {
    Data data(model);
    for (int s = 0; s < kSamples; ++s) {
      const VectorX q = randomConfiguration(model, rng);
      const VectorX v = randomVector(rng, model.nv, 2.0);
      const VectorX tau = randomVector(rng, model.nv, 10.0);
      const std::vector<Force> fext = randomForces(rng, model);
      const VectorX ddq = aba(model, data, q, v, tau, fext);
      const VectorX tau_back = rnea(model, data, q, v, ddq, fext);
      EXPECT_LT(relativeError(tau_back, tau), 1e-10) << name << " sample " << s;
    }
  }
}

TEST(Dynamics, CrbaIsSymmetricPositiveDefiniteAndMatchesRnea) {
  std::mt19937 rng(103);
  for (auto& [name, model] : allModels()) {
    Data data(model);
    for (int s = 0; s < kSamples; ++s) {
      const VectorX q = randomConfiguration(model, rng);
      const VectorX v = randomVector(rng, model.nv);
      const VectorX a = randomVector(rng, model.nv);
      const MatrixX M = crba(model, data, q);
      EXPECT_EQ(M, M.transpose()) << name;
      EXPECT_EQ(M.llt().info(), Eigen::Success) << name;
      EXPECT_GT(Eigen::SelfAdjointEigenSolver<MatrixX>(M).eigenvalues().minCoeff(), 0.0) << name;
      // RNEA is affine in a with slope M.
      const VectorX with_a = rnea(model, data, q, v, a);
      const VectorX without_a = rnea(model, data, q, v, VectorX::Zero(model.nv));
      EXPECT_LT(relativeError(with_a - without_a, M * a), 1e-11) << name;
    }
  }
}

TEST(Dynamics, CrbaOnUnitAxisJointsMatchesRnea) {
  // The URDF's common joint, axis ±e_k at an unrotated origin, takes CRBA's
  // own path (JointPlacementBasis::unit_axis / unrotated: no dense products
  // for oMi and the world subspace); the test models above tilt every axis
  // and rotate every origin, so they never reach it. Here a floating base
  // carries all three axes with both signs, a scaled axis, a rotated origin
  // and a tilted axis; M must equal RNEA's columns (body frames, dense path).
  ModelBuilder builder("unit_axes", "unit_axes.test");
  JointSpec floating;
  floating.type = JointType::Floating;
  const Matrix3 inertia = Vector3(0.02, 0.03, 0.04).asDiagonal();
  int parent = builder.addBody(0, "root", floating, SE3::Identity(), Inertia(4.0, Vector3(0.01, -0.02, 0.03), inertia),
                               "base");
  struct Link {
    Vector3 axis;
    Matrix3 rotation;
    int unit_axis;
    double sign;
  };
  const Matrix3 I3 = Matrix3::Identity();
  const std::vector<Link> links = {{Vector3::UnitX(), I3, 0, 1.0},
                                   {-Vector3::UnitY(), I3, 1, -1.0},
                                   {Vector3(0.0, 0.0, 2.5), I3, 2, 1.0},  // normalised by the builder
                                   {-Vector3::UnitX(), I3, 0, -1.0},
                                   {Vector3::UnitY(), exp3(Vector3(0.3, -0.2, 0.5)), 1, 1.0},  // rotated origin
                                   {Vector3(1.0, 1.0, 0.0), I3, -1, 0.0},                      // tilted axis
                                   {-Vector3::UnitZ(), I3, 2, -1.0}};
  for (std::size_t k = 0; k < links.size(); ++k) {
    JointSpec joint;
    joint.type = JointType::Revolute;
    joint.axis = links[k].axis;
    const SE3 placement(links[k].rotation, Vector3(0.02 * static_cast<double>(k), 0.05, 0.2));
    // Names appended, not `"j" + std::to_string(k)`: GCC 12 warns (-Wrestrict) on that inlined concatenation.
    std::string joint_name = "j", body_name = "link";
    joint_name += std::to_string(k);
    body_name += std::to_string(k);
    parent = builder.addBody(parent, joint_name, joint, placement,
                             Inertia(1.0 - 0.1 * static_cast<double>(k), Vector3(0.03, 0.01, 0.1), 0.5 * inertia),
                             body_name);
  }
  const Model model = std::move(builder).build();
  for (std::size_t k = 0; k < links.size(); ++k) {
    const JointPlacementBasis& b = model.joint_bases[k + 2];
    EXPECT_EQ(b.unit_axis, links[k].unit_axis) << k;
    EXPECT_EQ(b.unit_axis_sign, links[k].sign) << k;
    EXPECT_EQ(b.unrotated, links[k].rotation == I3) << k;
  }
  std::mt19937 rng(211);
  Data data(model);
  for (int s = 0; s < kSamples; ++s) {
    const VectorX q = randomConfiguration(model, rng);
    const VectorX zero = VectorX::Zero(model.nv);
    const VectorX bias = rnea(model, data, q, zero, zero);
    MatrixX expected(model.nv, model.nv);
    for (int k = 0; k < model.nv; ++k) expected.col(k) = rnea(model, data, q, zero, VectorX::Unit(model.nv, k)) - bias;
    const MatrixX M = crba(model, data, q);
    EXPECT_LT((M - expected).cwiseAbs().maxCoeff(), 1e-13 * M.cwiseAbs().maxCoeff()) << s;
    crba(model, data, q, MassMatrixFill::LowerTriangle);
    const MatrixX lower = data.M.triangularView<Eigen::Lower>();
    EXPECT_LT((lower - MatrixX(expected.triangularView<Eigen::Lower>())).cwiseAbs().maxCoeff(),
              1e-13 * M.cwiseAbs().maxCoeff())
        << s;
  }
}

TEST(Dynamics, CrbaOverwritesEveryEntryItOwnsWhateverMHeld) {
  // crba() clears only the entries off the tree's ancestor pattern (not all of
  // M); whatever a caller left in M must not survive in the part it fills.
  std::mt19937 rng(105);
  for (auto& [name, model] : allModels()) {
    Data clean(model), dirty(model);
    for (int s = 0; s < 3; ++s) {
      const VectorX q = randomConfiguration(model, rng);
      const MatrixX M = crba(model, clean, q);
      dirty.M.setConstant(std::numeric_limits<double>::quiet_NaN());
      EXPECT_EQ(crba(model, dirty, q), M) << name;
      dirty.M.setConstant(std::numeric_limits<double>::quiet_NaN());
      crba(model, dirty, q, MassMatrixFill::LowerTriangle);
      const MatrixX lower = dirty.M.triangularView<Eigen::Lower>();
      EXPECT_EQ(lower, MatrixX(M.triangularView<Eigen::Lower>())) << name;
      EXPECT_TRUE(dirty.M.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().hasNaN()) << name << ": upper left as it was";
    }
  }
}

TEST(Dynamics, NonLinearEffectsEqualRneaAtZeroAcceleration) {
  std::mt19937 rng(104);
  for (auto& [name, model] : allModels()) {
    Data data(model);
    const VectorX q = randomConfiguration(model, rng);
    const VectorX v = randomVector(rng, model.nv, 2.0);
    const VectorX h = nonLinearEffects(model, data, q, v);
    const VectorX expected = rnea(model, data, q, v, VectorX::Zero(model.nv));
    EXPECT_LT(relativeError(h, expected), 1e-14) << name;
    // Gravity alone: at v = 0, h = generalized gravity, which is -∂V/∂q
    // (checked in test_conservation through energy); here it must be nonzero.
    EXPECT_GT(nonLinearEffects(model, data, q, VectorX::Zero(model.nv)).norm(), 1.0) << name;
  }
}

TEST(Dynamics, ExternalForcesMapThroughLocalBodyJacobians) {
  // rnea(fext) - rnea(0) = -Σ J_iᵀ f_i with J_i the Local Jacobian of body i.
  std::mt19937 rng(105);
  for (auto& [name, model] : allModels()) {
    Data data(model);
    const VectorX q = randomConfiguration(model, rng);
    const VectorX v = randomVector(rng, model.nv);
    const VectorX a = randomVector(rng, model.nv);
    const std::vector<Force> fext = randomForces(rng, model);
    const VectorX with_fext = rnea(model, data, q, v, a, fext);  // copies: rnea returns data.tau
    const VectorX delta = with_fext - rnea(model, data, q, v, a);
    VectorX expected = VectorX::Zero(model.nv);
    Matrix6X J(6, model.nv);
    forwardKinematics(model, data, q);  // RNEA works in body frames: it leaves data.oMi alone
    for (int i = 1; i < model.nbodies(); ++i) {
      bodyPointJacobian(model, data, i, SE3::Identity(), ReferenceFrame::Local, J);
      expected -= J.transpose() * fext[i].toVector();
    }
    EXPECT_LT(relativeError(delta, expected), 1e-12) << name;
  }
}

TEST(Dynamics, WorldFrameBiasForcesAndCrbaEqualTheBodyFrameOnes) {
  // The joint-space solvers' shared pass: world inertias and subspaces once,
  // RNEA at zero acceleration in the world frame, CRBA's sweep on the same
  // inertias, against body-frame RNEA and the full CRBA, with external forces
  // (given in body frames), at a base far from the origin and near it.
  std::mt19937 rng(108);
  for (auto& [name, model] : allModels()) {
    for (int sample = 0; sample < kSamples; ++sample) {
      Data data(model), reference(model);
      VectorX q = randomConfiguration(model, rng);
      if (model.joint_types[1] == JointType::Floating) q.head<3>() += randomVector(rng, 3, sample < 5 ? 0.1 : 20.0);
      const VectorX v = randomVector(rng, model.nv, 2.0);
      const std::vector<Force> fext = randomForces(rng, model);
      forwardKinematics(model, data, q);
      worldInertiasAndSubspaces(model, data);
      const VectorX h = biasForcesInWorldFrame(model, data, v, fext);
      const VectorX expected = rnea(model, reference, q, v, VectorX::Zero(model.nv), fext);
      EXPECT_LT(relativeError(h, expected), 1e-12) << name << " sample " << sample;
      const MatrixX M = crbaAtWorldInertias(model, data);
      const MatrixX M_expected = crba(model, reference, q);
      EXPECT_LT((M - M_expected).norm() / M_expected.norm(), 1e-13) << name << " sample " << sample;
      // The inertias kept for RNEA are the bodies' own, not the composites the
      // sweep summed: a second RNEA at another v after the sweep still agrees.
      const VectorX v2 = randomVector(rng, model.nv, 2.0);
      const VectorX h2 = biasForcesInWorldFrame(model, data, v2);
      EXPECT_LT(relativeError(h2, nonLinearEffects(model, reference, q, v2)), 1e-12) << name << " sample " << sample;
    }
  }
}

TEST(Dynamics, KineticEnergyIsHalfVMV) {
  std::mt19937 rng(106);
  for (auto& [name, model] : allModels()) {
    Data data(model);
    const VectorX q = randomConfiguration(model, rng);
    const VectorX v = randomVector(rng, model.nv, 2.0);
    const double expected = 0.5 * v.dot(crba(model, data, q) * v);
    EXPECT_NEAR(kineticEnergy(model, data, q, v), expected, 1e-12 * expected) << name;
  }
}

TEST(PassiveForces, DampingAndSpringValues) {
  const Model model = test::fixedChain7();
  Data data(model);
  std::mt19937 rng(107);
  const VectorX q = randomConfiguration(model, rng);
  const VectorX v = randomVector(rng, model.nv);
  const VectorX passive = passiveForces(model, data, q, v);
  ASSERT_GT(model.damping.minCoeff(), 0.0);
  ASSERT_GT(model.stiffness.maxCoeff(), 0.0);
  for (int k = 0; k < model.nv; ++k) {
    const double expected = -model.damping[k] * v[k] - model.stiffness[k] * (q[k] - model.spring_reference[k]);
    EXPECT_DOUBLE_EQ(passive[k], expected) << "dof " << k;
  }
  // Multi-dof joints: damping per dof, no spring.
  const Model tree = test::branchingTree();
  Data tree_data(tree);
  const VectorX qt = randomConfiguration(tree, rng);
  const VectorX vt = randomVector(rng, tree.nv);
  passiveForces(tree, tree_data, qt, vt);
  const int ball = tree.jointId("ball_a");
  for (int k = tree.idx_v[ball]; k < tree.idx_v[ball] + 3; ++k) {
    EXPECT_DOUBLE_EQ(tree_data.passive[k], -tree.damping[k] * vt[k]);
  }
}

TEST(PassiveForces, ForwardDynamicsAddsPassiveForces) {
  std::mt19937 rng(108);
  for (auto& [name, model] : allModels()) {
    Data data(model);
    const VectorX q = randomConfiguration(model, rng);
    const VectorX v = randomVector(rng, model.nv);
    const VectorX tau = randomVector(rng, model.nv);
    const std::vector<Force> fext = randomForces(rng, model);
    const VectorX passive = passiveForces(model, data, q, v);
    ASSERT_GT(passive.norm(), 0.0);
    const VectorX expected = aba(model, data, q, v, tau + passive, fext);
    const VectorX ddq = forwardDynamics(model, data, q, v, tau, fext);
    EXPECT_LT(relativeError(ddq, expected), 1e-14) << name;
  }
}

TEST(PassiveForces, ArmatureAddsToMassMatrixDiagonalAndAba) {
  std::mt19937 rng(109);
  for (auto& [name, model] : allModels()) {
    Model bare = model;
    bare.armature.setZero();
    Data data(model), bare_data(bare);
    ASSERT_GT(model.armature.maxCoeff(), 0.0);
    const VectorX q = randomConfiguration(model, rng);
    const VectorX v = randomVector(rng, model.nv);
    const VectorX tau = randomVector(rng, model.nv);
    const MatrixX M = crba(model, data, q);
    const MatrixX M_bare = crba(bare, bare_data, q);
    const MatrixX expected_diff = MatrixX(model.armature.asDiagonal());
    EXPECT_LT((M - M_bare - expected_diff).norm(), 1e-13 * M.norm()) << name;
    // ABA with armature solves (M_bare + diag(armature)) ddq = tau - h, and differs from ABA without it.
    const VectorX h = nonLinearEffects(bare, bare_data, q, v);
    const VectorX expected = (M_bare + expected_diff).llt().solve(tau - h);
    const VectorX ddq = aba(model, data, q, v, tau);
    EXPECT_LT(relativeError(ddq, expected), 1e-10) << name;
    EXPECT_GT(relativeError(aba(bare, bare_data, q, v, tau), expected), 1e-4) << name;
  }
}
