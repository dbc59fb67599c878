// Constraint rows, velocity-product bias and position errors against finite
// differences of the constraint kinematics, for every kind (masks included).
#include <gtest/gtest.h>

#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/model/model_builder.hpp>

using namespace loopsim;

namespace {

Inertia someInertia(double m, const Vector3& c) { return {m, c, Vector3(0.02, 0.03, 0.025).asDiagonal() * m}; }

// Floating base with a revolute/spherical/prismatic chain and a second
// revolute branch: exercises every joint type and a loop across branches.
Model makeTree() {
  ModelBuilder b("constraint_tree");
  auto revolute = [](const Vector3& axis) {
    JointSpec s;
    s.type = JointType::Revolute;
    s.axis = axis;
    return s;
  };
  JointSpec floating;
  floating.type = JointType::Floating;
  JointSpec spherical;
  spherical.type = JointType::Spherical;
  JointSpec prismatic;
  prismatic.type = JointType::Prismatic;
  prismatic.axis = Vector3(0.2, 1.0, -0.3);
  const int base = b.addBody(0, "root", floating, SE3::Identity(), someInertia(3.0, Vector3(0.0, 0.0, 0.05)), "base");
  int l1 = b.addBody(base, "a1", revolute(Vector3(1, 0.3, 0.1)), SE3(exp3(Vector3(0.1, 0.2, 0.0)), Vector3(0.1, 0.2, 0.0)),
                     someInertia(1.0, Vector3(0.2, 0, 0)), "a1_link");
  int l2 = b.addBody(l1, "a2", spherical, SE3(Matrix3::Identity(), Vector3(0.4, 0.0, 0.0)),
                     someInertia(0.8, Vector3(0.15, 0.02, 0)), "a2_link");
  b.addBody(l2, "a3", prismatic, SE3(exp3(Vector3(0.0, 0.3, 0.1)), Vector3(0.3, 0.0, 0.1)),
            someInertia(0.5, Vector3(0.1, 0, 0.02)), "a3_link");
  int r1 = b.addBody(base, "b1", revolute(Vector3(0, 1, 0.2)), SE3(Matrix3::Identity(), Vector3(-0.1, -0.2, 0.0)),
                     someInertia(1.0, Vector3(0.2, 0, 0)), "b1_link");
  b.addBody(r1, "b2", revolute(Vector3(0.3, 0, 1)), SE3(Matrix3::Identity(), Vector3(0.4, 0.0, 0.0)),
            someInertia(0.7, Vector3(0.2, 0, 0)), "b2_link");
  return std::move(b).build();
}

VectorX randomVelocity(int n, std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  return VectorX::NullaryExpr(n, [&](Eigen::Index) { return g(rng); });
}

// Constraints of every kind, with the second end placed so that φ(q) = 0.
std::vector<Constraint> consistentConstraints(const Model& model, const VectorX& q) {
  Data data(model);
  forwardKinematics(model, data, q);
  auto attach = [&](Constraint c) {
    const SE3 oMa = data.oMi[c.body1] * c.placement1;
    c.placement2 = data.oMi[c.body2].inverse() * oMa;
    return c;
  };
  const int a3 = model.bodyId("a3_link"), b2 = model.bodyId("b2_link"), a2 = model.bodyId("a2_link");
  std::vector<Constraint> out;
  Constraint weld_world;
  weld_world.name = "weld_world";
  weld_world.kind = ConstraintKind::Weld;
  weld_world.body1 = a3;
  weld_world.placement1 = SE3(exp3(Vector3(0.3, -0.2, 0.5)), Vector3(0.05, 0.1, -0.02));
  weld_world.body2 = 0;
  out.push_back(attach(weld_world));
  Constraint weld_loop = weld_world;
  weld_loop.name = "weld_loop";
  weld_loop.body2 = b2;
  out.push_back(attach(weld_loop));
  Constraint connect = weld_world;
  connect.name = "connect_loop";
  connect.kind = ConstraintKind::Connect;
  connect.body1 = b2;
  connect.body2 = a2;
  out.push_back(attach(connect));
  Constraint revolute = connect;
  revolute.name = "revolute_loop";
  revolute.kind = ConstraintKind::RevoluteLoop;
  revolute.placement1 = SE3(exp3(Vector3(-0.4, 0.1, 0.2)), Vector3(0.1, 0.0, 0.03));
  out.push_back(attach(revolute));
  Constraint masked = revolute;
  masked.name = "revolute_masked";
  masked.row_mask = {0, 2, 4};
  out.push_back(attach(masked));
  Constraint masked_weld = weld_loop;
  masked_weld.name = "weld_masked";
  masked_weld.row_mask = {1, 3, 5};
  out.push_back(attach(masked_weld));
  // A point contact: connect to the world (the rows' own path for world ends).
  Constraint connect_world = out[2];
  connect_world.name = "connect_world";
  connect_world.body2 = 0;
  out.push_back(attach(connect_world));
  Constraint coupling;
  coupling.name = "gear";
  coupling.kind = ConstraintKind::Coupling;
  coupling.coupling_joints = {model.jointId("b1"), model.jointId("b2")};
  coupling.coupling_coefficients = {2.0, -0.5};
  coupling.coupling_offset = 2.0 * q[model.idx_q[model.jointId("b1")]] - 0.5 * q[model.idx_q[model.jointId("b2")]];
  out.push_back(coupling);
  return out;
}

struct Evaluated {
  VectorX phi, phidot, bias;
  MatrixX J;
};

Evaluated evaluate(const ConstraintSet& set, const VectorX& q, const VectorX& v) {
  Data data(set.model());
  ConstraintData cd(set);
  computeConstraintTerms(set, data, q, v, cd, kConstraintErrors | kConstraintJacobian);
  return {cd.phi, cd.phidot, cd.bias, cd.J};
}

class ConstraintKinematics : public ::testing::TestWithParam<int> {};

}  // namespace

TEST_P(ConstraintKinematics, RowsBiasAndErrorsMatchFiniteDifferences) {
  const Model model = makeTree();
  std::mt19937 rng(100 + GetParam());
  const VectorX q = randomConfiguration(model, rng);
  const VectorX v = randomVelocity(model.nv, rng);
  const ConstraintSet set(model, consistentConstraints(model, q));
  const Evaluated at = evaluate(set, q, v);

  // Consistent by construction.
  EXPECT_LT(at.phi.lpNorm<Eigen::Infinity>(), 1e-12);
  // φ̇ from the link rows equals the dense J v.
  EXPECT_LT((at.phidot - at.J * v).lpNorm<Eigen::Infinity>(), 1e-12);

  const double eps = 1e-6;
  VectorX q_plus(model.nq), q_minus(model.nq);
  integrate(model, q, v, eps, q_plus);
  integrate(model, q, v, -eps, q_minus);
  const Evaluated plus = evaluate(set, q_plus, v);
  const Evaluated minus = evaluate(set, q_minus, v);
  // dφ/dt = J v at φ = 0.
  const VectorX dphi = (plus.phi - minus.phi) / (2 * eps);
  EXPECT_LT((dphi - at.J * v).lpNorm<Eigen::Infinity>(), 1e-7) << "dphi " << dphi.transpose() << "\nJv " << (at.J * v).transpose();
  // J̇ v = d/dt (φ̇) along the motion with v̇ = 0.
  const VectorX dphidot = (plus.phidot - minus.phidot) / (2 * eps);
  EXPECT_LT((dphidot - at.bias).lpNorm<Eigen::Infinity>(), 1e-6) << "fd " << dphidot.transpose() << "\nbias " << at.bias.transpose();
  // Each row against its column-wise finite difference: J e_k.
  for (int k = 0; k < model.nv; ++k) {
    VectorX ek = VectorX::Zero(model.nv);
    ek[k] = 1.0;
    integrate(model, q, ek, eps, q_plus);
    integrate(model, q, ek, -eps, q_minus);
    const VectorX col = (evaluate(set, q_plus, v).phi - evaluate(set, q_minus, v).phi) / (2 * eps);
    EXPECT_LT((col - at.J.col(k)).lpNorm<Eigen::Infinity>(), 1e-7) << "column " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(RandomStates, ConstraintKinematics, ::testing::Range(0, 5));

TEST(Constraints, MaskedRowsAreRowsOfTheFullConstraint) {
  const Model model = makeTree();
  std::mt19937 rng(7);
  const VectorX q = randomConfiguration(model, rng);
  const VectorX v = randomVelocity(model.nv, rng);
  const ConstraintSet set(model, consistentConstraints(model, q));
  const Evaluated e = evaluate(set, q, v);
  // revolute_loop (5 rows) at offset of constraint 3, revolute_masked {0,2,4} at constraint 4.
  const int full = set.rowOffset(3), masked = set.rowOffset(4);
  const int picks[] = {0, 2, 4};
  for (int r = 0; r < 3; ++r) {
    EXPECT_TRUE(e.J.row(masked + r).isApprox(e.J.row(full + picks[r]), 1e-12));
    EXPECT_NEAR(e.bias[masked + r], e.bias[full + picks[r]], 1e-12);
  }
  EXPECT_EQ(set.rowDescription(masked + 1), "revolute 'revolute_masked' row z");
}

TEST(Constraints, PositionErrorsMeasureKnownDisplacements) {
  const Model model = makeTree();
  std::mt19937 rng(9);
  const VectorX q = randomConfiguration(model, rng);
  auto constraints = consistentConstraints(model, q);
  const Vector3 theta(0.01, -0.02, 0.015);
  const Vector3 delta(0.003, -0.001, 0.002);
  constraints[0].placement2 = constraints[0].placement2 * SE3(exp3(theta), Vector3::Zero());  // weld_world: B rotated
  constraints[2].placement2 = constraints[2].placement2 * SE3(Matrix3::Identity(), delta);    // connect: B moved
  const ConstraintSet set(model, constraints);
  const Evaluated e = evaluate(set, q, VectorX::Zero(model.nv));
  // R_Bᵀ R_A = exp(-θ) when B is rotated by θ from A.
  EXPECT_TRUE(e.phi.head<3>().isApprox(-theta, 1e-12));
  EXPECT_LT(e.phi.segment<3>(3).norm(), 1e-12);
  // Point B moved by δ in B axes (= A axes at a consistent pose): φ = -δ.
  const int c = set.rowOffset(2);
  EXPECT_TRUE(e.phi.segment<3>(c).isApprox(-delta, 1e-10)) << e.phi.segment<3>(c).transpose();
}

TEST(Constraints, BaumgarteTargetIsCriticallyDamped) {
  const Model model = makeTree();
  std::mt19937 rng(11);
  const VectorX q = randomConfiguration(model, rng);
  const VectorX v = randomVelocity(model.nv, rng);
  auto constraints = consistentConstraints(model, q);
  constraints[2].placement2.t += Vector3(0.01, 0.0, 0.0);
  constraints[5].kp = 3.0;
  constraints[5].kd = 4.0;
  const double T = 0.05;
  const ConstraintSet set(model, constraints, T);
  Data data(model);
  ConstraintData cd(set);
  computeConstraintTerms(set, data, q, v, cd);
  for (int row = 0; row < set.dimension(); ++row) {
    const int c = set.constraintOfRow(row);
    const double kp = c == 5 ? 3.0 : 1.0 / (T * T);
    const double kd = c == 5 ? 4.0 : 2.0 / T;
    EXPECT_NEAR(cd.k[row], -cd.bias[row] - kd * cd.phidot[row] - kp * cd.phi[row], 1e-9) << set.rowDescription(row);
  }
}

TEST(Constraints, InvalidConstraintsNameTheConstraint) {
  const Model model = makeTree();
  Constraint c;
  c.name = "bad_weld";
  c.kind = ConstraintKind::Weld;
  c.body1 = 99;
  try {
    ConstraintSet set(model, {c});
    FAIL() << "expected an error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("weld 'bad_weld'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("body index 99"), std::string::npos) << e.what();
  }
  Constraint gear;
  gear.name = "gear";
  gear.kind = ConstraintKind::Coupling;
  gear.coupling_joints = {model.jointId("a2")};
  gear.coupling_coefficients = {1.0};
  EXPECT_THROW(
      {
        try {
          ConstraintSet set(model, {gear});
        } catch (const ModelError& e) {
          EXPECT_NE(std::string(e.what()).find("not a one-dof joint"), std::string::npos) << e.what();
          throw;
        }
      },
      ModelError);
}
