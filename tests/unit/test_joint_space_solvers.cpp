// The joint-space solvers ltl, prox-ltl and soft-ltl against the dense `kkt`
// reference, and the sparse LTDL factorisation they share.
//   - LTDL: Lᵀ D L = M, no fill-in outside the branch-induced pattern (a dense
//     factorisation in the same order has zeros there), solves match Cholesky.
//   - ltl and prox-ltl agree with kkt on v̇ and λ on random consistent states of
//     trees with world constraints, mechanisms with internal loops and couplings;
//     samples whose Delassus condition estimate exceeds 1e10 are skipped and counted.
//   - Redundant sets: prox-ltl converges to kkt's v̇ (and Jᵀλ) on an independent
//     subset; ltl and kkt refuse them naming the dependent rows.
//   - soft-ltl tends to kkt as the weights grow, and solves its stated system.
//   - No allocation inside solve().
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <utility>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include "allocation_counter.hpp"
#include <loopsim/sim/projection.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/generators.hpp>
#include <loopsim/solvers/joint_space/kkt_solver.hpp>
#include <loopsim/solvers/joint_space/ltl_factorization.hpp>
#include <loopsim/solvers/joint_space/ltl_solver.hpp>
#include <loopsim/solvers/joint_space/prox_ltl_solver.hpp>
#include <loopsim/solvers/registry.hpp>
#include <loopsim/solvers/joint_space/soft_ltl_solver.hpp>
#include "test_models.hpp"

using namespace loopsim;

namespace {

VectorX randomVector(std::mt19937& rng, int n, double scale) {
  std::normal_distribution<double> g(0.0, scale);
  return VectorX::NullaryExpr(n, [&](Eigen::Index) { return g(rng); });
}

double relativeError(const VectorX& value, const VectorX& reference) {
  return (value - reference).lpNorm<Eigen::Infinity>() / std::max(1.0, reference.lpNorm<Eigen::Infinity>());
}

// ---------------------------------------------------------------- mechanisms

Constraint coupling(const Model& model, const std::string& name, const std::string& joint_a,
                    const std::string& joint_b, double ratio, const VectorX& q) {
  Constraint c;
  c.name = name;
  c.kind = ConstraintKind::Coupling;
  c.coupling_joints = {model.jointId(joint_a), model.jointId(joint_b)};
  c.coupling_coefficients = {1.0, -ratio};
  c.coupling_offset = q[model.idx_q[c.coupling_joints[0]]] - ratio * q[model.idx_q[c.coupling_joints[1]]];
  return c;
}

// A frame-to-frame connect closed at q: point A on frame_a's body, the same
// world point fixed on frame_b's body.
Constraint connectFrames(const Model& model, const std::string& name, const std::string& frame_a,
                         const std::string& frame_b, const VectorX& q) {
  Data data(model);
  forwardKinematics(model, data, q);
  const Frame& fa = model.frames[model.existingFrame(frame_a)];
  const Frame& fb = model.frames[model.existingFrame(frame_b)];
  Constraint c;
  c.name = name;
  c.kind = ConstraintKind::Connect;
  c.body1 = fa.body;
  c.placement1 = fa.placement;
  c.body2 = fb.body;
  c.placement2 = data.oMi[fb.body].inverse() * (data.oMi[fa.body] * fa.placement);
  return c;
}

/// Humanoid standing on welded feet, hands holding each other (an internal
/// loop through the torso), elbows geared 1 : 0.5 and neck coupled to the torso pitch.
GeneratedMechanism humanoidWithLoopAndCouplings() {
  GeneratedMechanism mech = humanoidTree();
  const Model& model = mech.model;
  mech.constraints.push_back(connectFrames(model, "hands", "left_hand", "right_hand", mech.q0));
  mech.constraints.push_back(coupling(model, "elbow_gear", "left_elbow", "right_elbow", 0.5, mech.q0));
  mech.constraints.push_back(coupling(model, "neck_belt", "neck_pitch", "torso_pitch", -1.0, mech.q0));
  return mech;
}

/// The 8-link spatial chain closed by a revolute joint, with a coupling.
GeneratedMechanism coupledSpatialChain() {
  SpatialChainParams params;
  params.links = 8;
  params.revolute_closure = true;
  GeneratedMechanism mech = spatialChain(params);
  mech.constraints.push_back(coupling(mech.model, "gear", "link_2_joint", "link_3_joint", 2.0, mech.q0));
  return mech;
}

// Re-targets every world constraint at the current pose of its first frame.
std::vector<Constraint> retargetWorldConstraints(const Model& model, std::vector<Constraint> constraints,
                                                 const VectorX& q) {
  Data data(model);
  forwardKinematics(model, data, q);
  for (Constraint& c : constraints) {
    if (c.kind != ConstraintKind::Coupling && c.body2 == 0) c.placement2 = data.oMi[c.body1] * c.placement1;
  }
  return constraints;
}

struct Case {
  std::string name;
  GeneratedMechanism mech;
  double q_noise = 0.1;
  std::vector<int> held;  // joints sampled, not projected (keeps loops on their branch)
};

std::vector<Case> agreementCases() {
  std::vector<Case> cases;
  cases.push_back({"humanoid, feet welded", humanoidTree(), 0.3, {}});
  cases.push_back({"humanoid, feet welded, hands joined, couplings", humanoidWithLoopAndCouplings(), 0.15, {}});
  cases.push_back({"fixed-base chain, tip welded", pendulumChain(), 0.8, {}});
  cases.push_back({"spatial closed chain (connect)", spatialChain({}), 0.05, {}});
  cases.push_back({"spatial closed chain (revolute) + coupling", coupledSpatialChain(), 0.05, {}});
  cases.push_back({"planar four-bar (in-plane revolute rows)", fourBar(), 0.4, {1}});
  return cases;
}

// A constraint-consistent state of `set`'s mechanism near q0 (world targets
// moved to the sampled pose, loops projected), with random τ and f_ext.
struct State {
  VectorX q, v, tau;
  std::vector<Force> fext;
};

State sampleState(const Model& model, const std::vector<Constraint>& base_constraints, const VectorX& q0,
                  double q_noise, const std::vector<int>& held, std::mt19937& rng,
                  std::vector<Constraint>& constraints_out) {
  State s;
  s.q.resize(model.nq);
  integrate(model, q0, randomVector(rng, model.nv, q_noise), 1.0, s.q);
  constraints_out = retargetWorldConstraints(model, base_constraints, s.q);
  s.v = randomVector(rng, model.nv, 1.0);
  const ConstraintSet set(model, constraints_out);
  makeConsistent(set, s.q, s.v, held);
  s.tau = randomVector(rng, model.nv, 5.0);
  s.fext.resize(model.nbodies());
  for (Force& f : s.fext) f = Force(randomVector(rng, 6, 2.0));
  return s;
}

// Round-off bound of evaluating J v̇ - k in floating point: below it the
// residual is noise, and a tolerance there cannot be certified.
double residualFloor(const ConstraintData& cdata, const VectorX& vdot) {
  const VectorX magnitude = cdata.J.cwiseAbs() * vdot.cwiseAbs() + cdata.k.cwiseAbs();
  return static_cast<double>(vdot.size()) * std::numeric_limits<double>::epsilon() *
         magnitude.lpNorm<Eigen::Infinity>();
}

// Round-off bound of the Delassus solve Λ λ = b that every exact and proximal
// solver goes through: a backward-stable solve leaves a residual of order
// m ε (|Λ| |λ| + |b|). Scaled by the problem, so that it holds on every CPU
// (AVX2, AVX-512 and SSE2 builds round differently).
double delassusFloor(const MatrixX& delassus, const VectorX& lambda, const ConstraintData& cdata,
                     const VectorX& vdot) {
  const VectorX magnitude = delassus.cwiseAbs() * lambda.cwiseAbs() + cdata.k.cwiseAbs() +
                            cdata.J.cwiseAbs() * vdot.cwiseAbs();
  return static_cast<double>(delassus.rows()) * std::numeric_limits<double>::epsilon() *
         magnitude.lpNorm<Eigen::Infinity>();
}

double delassusCondition(const MatrixX& delassus) {
  const Eigen::SelfAdjointEigenSolver<MatrixX> eig(delassus, Eigen::EigenvaluesOnly);
  const double lo = eig.eigenvalues().minCoeff(), hi = eig.eigenvalues().maxCoeff();
  return lo > 0.0 ? hi / lo : std::numeric_limits<double>::infinity();
}

// --------------------------------------------------------------- LTDL of M

// Dense reference: the same reverse-order LTDL over all j < i (no pattern).
void denseReverseLtdl(MatrixX H, MatrixX& L, VectorX& D) {
  const int n = static_cast<int>(H.rows());
  for (int k = n - 1; k >= 0; --k) {
    for (int i = k - 1; i >= 0; --i) {
      const double a = H(k, i) / H(k, k);
      for (int j = i; j >= 0; --j) H(i, j) -= a * H(k, j);
      H(k, i) = a;
    }
  }
  D = H.diagonal();
  L = H.triangularView<Eigen::StrictlyLower>();
  L.diagonal().setOnes();
}

MatrixX inertiaAt(const Model& model, unsigned seed) {
  std::mt19937 rng(seed);
  Data data(model);
  const VectorX q = randomConfiguration(model, rng);
  return crba(model, data, q);
}

std::vector<Model> factorisationModels() {
  std::vector<Model> models;
  models.push_back(humanoidTree().model);
  models.push_back(test::branchingTree());
  models.push_back(test::floatingHumanoid());
  models.push_back(spatialChain({}).model);
  return models;
}

}  // namespace

TEST(LtlFactorization, ExpandedParentArrayFollowsJointsAndTree) {
  const Model model = test::branchingTree();  // revolute, prismatic and spherical joints
  const LtlFactorization ltl(model);
  const auto& lambda = ltl.expandedParents();
  ASSERT_EQ(static_cast<int>(lambda.size()), model.nv);
  for (int j = 1; j < model.nbodies(); ++j) {
    const int first = model.idx_v[j], p = model.parent[j];
    EXPECT_EQ(lambda[first], p > 0 ? model.idx_v[p] + model.joint_nv[p] - 1 : -1) << model.joint_names[j];
    for (int k = 1; k < model.joint_nv[j]; ++k) EXPECT_EQ(lambda[first + k], first + k - 1);
  }
}

TEST(LtlFactorization, ReproducesMWithoutFillInAndSolvesLikeCholesky) {
  unsigned seed = 100;
  for (const Model& model : factorisationModels()) {
    const MatrixX M = inertiaAt(model, seed++);
    LtlFactorization ltl(model);
    ltl.factorize(M);
    const MatrixX L = ltl.denseL();
    const MatrixX reconstructed = L.transpose() * ltl.D().asDiagonal() * L;
    const double scale = M.lpNorm<Eigen::Infinity>();
    EXPECT_LE((reconstructed - M).lpNorm<Eigen::Infinity>(), 1e-13 * scale) << model.name;

    // The dense factorisation in the same (tip-to-root) order is unique: it
    // must equal ours and vanish off the branch-induced pattern.
    MatrixX L_dense;
    VectorX D_dense;
    denseReverseLtdl(M, L_dense, D_dense);
    EXPECT_LE((L_dense - L).lpNorm<Eigen::Infinity>(), 1e-10) << model.name;
    EXPECT_LE((D_dense - ltl.D()).lpNorm<Eigen::Infinity>(), 1e-12 * scale) << model.name;
    int pattern_entries = 0;
    double off_pattern = 0.0;
    for (int i = 0; i < model.nv; ++i) {
      for (int j = 0; j < i; ++j) {
        if (ltl.inPattern(i, j)) {
          ++pattern_entries;
        } else {
          off_pattern = std::max(off_pattern, std::abs(L_dense(i, j)));
          EXPECT_EQ(L(i, j), 0.0);
        }
      }
    }
    EXPECT_LE(off_pattern, 1e-12) << model.name;
    bool serial = true;
    for (int i = 0; i < model.nv; ++i) serial = serial && ltl.expandedParents()[i] == i - 1;
    if (serial) {
      EXPECT_EQ(pattern_entries, model.nv * (model.nv - 1) / 2) << model.name << ": a chain's pattern is full";
    } else {
      EXPECT_LT(pattern_entries, model.nv * (model.nv - 1) / 2) << model.name << ": a tree's pattern is sparse";
    }

    std::mt19937 rng(seed++);
    const Eigen::LLT<MatrixX> llt(M);
    const VectorX b = randomVector(rng, model.nv, 1.0);
    VectorX x = b;
    ltl.solve(x);
    const VectorX x_ref = llt.solve(b);
    EXPECT_LE(relativeError(x, x_ref), 1e-12) << model.name;
    // The two triangular solves against dense triangular solves.
    VectorX y = b;
    ltl.solveLt(y);
    const VectorX y_ref = L.transpose().triangularView<Eigen::UnitUpper>().solve(b);
    EXPECT_LE(relativeError(y, y_ref), 1e-12) << model.name;
    VectorX z = b;
    ltl.solveL(z);
    const VectorX z_ref = L.triangularView<Eigen::UnitLower>().solve(b);
    EXPECT_LE(relativeError(z, z_ref), 1e-12) << model.name;
  }
}

TEST(LtlFactorization, SupportRestrictedSolveEqualsFullSolve) {
  const Model model = humanoidTree().model;
  LtlFactorization ltl(model);
  ltl.factorize(inertiaAt(model, 7));
  // The dofs from the left hand up to the root: ancestor-closed.
  std::vector<int> dofs;
  for (int j = model.frames[model.existingFrame("left_hand")].body; j > 0; j = model.parent[j]) {
    for (int k = 0; k < model.joint_nv[j]; ++k) dofs.push_back(model.idx_v[j] + k);
  }
  std::sort(dofs.begin(), dofs.end());
  std::mt19937 rng(8);
  VectorX x = VectorX::Zero(model.nv);
  for (int i : dofs) x[i] = randomVector(rng, 1, 1.0)[0];
  VectorX full = x;
  ltl.solveLt(full);
  ltl.solveLt(x, dofs);
  EXPECT_LE((x - full).lpNorm<Eigen::Infinity>(), 1e-15 * std::max(1.0, full.lpNorm<Eigen::Infinity>()));
  EXPECT_LT(static_cast<int>(dofs.size()), model.nv);
}

TEST(LtlFactorization, IndefiniteMatrixIsAClearError) {
  // A chain's dof (short sums) and the humanoid's root dof (its 30-odd
  // descendants' sums take the lane path on AVX-512 builds).
  const std::pair<Model, int> cases[] = {{pendulumChain().model, 2}, {humanoidTree().model, 0}};
  for (const auto& [model, dof] : cases) {
    LtlFactorization ltl(model);
    MatrixX M = inertiaAt(model, 9);
    M(dof, dof) = -1.0;
    try {
      ltl.factorize(M);
      FAIL() << model.name << ": expected a ModelError";
    } catch (const ModelError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("not positive definite"), std::string::npos) << message;
      EXPECT_NE(message.find("at dof " + std::to_string(dof) + " of joint '" +
                             model.joint_names[model.dof_joint[dof]] + "'"),
                std::string::npos)
          << message;
    }
  }
}

// ------------------------------------------------------- agreement with kkt

TEST(JointSpaceSolvers, LtlAndProxLtlAgreeWithKktOnRandomConsistentStates) {
  SolverSettings tight;
  tight.tolerance = 1e-12;
  tight.warm_start = false;
  double max_vdot_ltl = 0.0, max_vdot_prox = 0.0, max_lambda_ltl = 0.0, max_lambda_prox = 0.0;
  double max_delassus = 0.0, max_condition = 0.0, max_floor = 0.0;
  int skipped = 0, compared = 0, max_iterations = 0, total_iterations = 0, at_round_off = 0;
  unsigned seed = 2024;
  for (Case& c : agreementCases()) {
    const Model& model = c.mech.model;
    std::mt19937 rng(seed++);
    for (int sample = 0; sample < 10; ++sample) {
      std::vector<Constraint> constraints;
      const State s = sampleState(model, c.mech.constraints, c.mech.q0, c.q_noise, c.held, rng, constraints);
      const ConstraintSet set(model, constraints);
      KktSolver kkt(set, {});
      LtlSolver ltl(set, {});
      ProxLtlSolver prox(set, tight);
      const int m = set.dimension();
      VectorX vdot_kkt(model.nv), lambda_kkt(m), vdot_ltl(model.nv), lambda_ltl(m), vdot_prox(model.nv),
          lambda_prox(m);
      const SolveStats kkt_stats = kkt.solve(s.q, s.v, s.tau, s.fext, vdot_kkt, lambda_kkt);
      const double condition = delassusCondition(kkt.delassus());
      if (condition > 1e10) {
        ++skipped;
        continue;
      }
      ++compared;
      max_condition = std::max(max_condition, condition);
      const SolveStats ltl_stats = ltl.solve(s.q, s.v, s.tau, s.fext, vdot_ltl, lambda_ltl);
      const SolveStats stats = prox.solve(s.q, s.v, s.tau, s.fext, vdot_prox, lambda_prox);
      const std::string where = c.name + " sample " + std::to_string(sample);

      const double delassus_error = (ltl.terms().delassus() - kkt.delassus()).lpNorm<Eigen::Infinity>() /
                                    kkt.delassus().lpNorm<Eigen::Infinity>();
      EXPECT_LE(delassus_error, 1e-12) << where;
      const double e_vdot_ltl = relativeError(vdot_ltl, vdot_kkt);
      const double e_vdot_prox = relativeError(vdot_prox, vdot_kkt);
      const double e_lambda_ltl = relativeError(lambda_ltl, lambda_kkt);
      const double e_lambda_prox = relativeError(lambda_prox, lambda_kkt);
      EXPECT_LE(e_vdot_ltl, 1e-9) << where;
      EXPECT_LE(e_vdot_prox, 1e-7) << where;
      EXPECT_LE(e_lambda_ltl, 1e-12 * condition) << where << ", condition " << condition;
      EXPECT_LE(e_lambda_prox, 1e-12 * condition) << where << ", condition " << condition;
      // 1e-12 is below the round-off floor of ‖J v̇ - k‖ for some states (kkt
      // and ltl themselves stop at 1e-12 to 4e-12 there): prox-ltl must reach
      // the tolerance or that floor (evaluation bound, Delassus-solve bound,
      // or what the direct solvers reach), and detect the stall instead of
      // running on. No absolute floor: round-off differs between CPUs.
      const double floor =
          std::max({tight.tolerance, residualFloor(kkt.constraintData(), vdot_kkt),
                    delassusFloor(kkt.delassus(), lambda_kkt, kkt.constraintData(), vdot_kkt),
                    2.0 * kkt_stats.residual, 2.0 * ltl_stats.residual});
      EXPECT_LE(stats.residual, floor) << where << ", kkt " << kkt_stats.residual << ", ltl " << ltl_stats.residual;
      max_floor = std::max(max_floor, floor);
      EXPECT_LT(stats.iterations, 10) << where;
      if (!stats.converged) ++at_round_off;
      max_delassus = std::max(max_delassus, delassus_error);
      max_vdot_ltl = std::max(max_vdot_ltl, e_vdot_ltl);
      max_vdot_prox = std::max(max_vdot_prox, e_vdot_prox);
      max_lambda_ltl = std::max(max_lambda_ltl, e_lambda_ltl / condition);
      max_lambda_prox = std::max(max_lambda_prox, e_lambda_prox / condition);
      max_iterations = std::max(max_iterations, stats.iterations);
      total_iterations += stats.iterations;
    }
  }
  std::printf(
      "[ltl/prox-ltl vs kkt] %d samples compared, %d skipped (Delassus condition > 1e10), max condition %.3g\n"
      "  max rel. error v̇: ltl %.3g, prox-ltl %.3g; max rel. error λ / condition: ltl %.3g, prox-ltl %.3g\n"
      "  max rel. error Λ (ltl vs kkt) %.3g; prox-ltl iterations at tolerance 1e-12 (cold): max %d, mean %.2f;\n"
      "  %d samples stopped at the round-off floor above 1e-12 (reported not converged; largest floor %.3g)\n",
      compared, skipped, max_condition, max_vdot_ltl, max_vdot_prox, max_lambda_ltl, max_lambda_prox, max_delassus,
      max_iterations, compared > 0 ? static_cast<double>(total_iterations) / compared : 0.0, at_round_off,
      max_floor);
  EXPECT_GT(compared, 50);
}

TEST(JointSpaceSolvers, ProxLtlIterationCountsAndWarmStart) {
  GeneratedMechanism mech = humanoidWithLoopAndCouplings();
  const Model& model = mech.model;
  std::mt19937 rng(77);
  std::vector<Constraint> constraints;
  const State s = sampleState(model, mech.constraints, mech.q0, 0.15, {}, rng, constraints);
  const ConstraintSet set(model, constraints);
  VectorX vdot(model.nv), lambda(set.dimension());
  for (double tolerance : {1e-10, 1e-12}) {
    SolverSettings settings;
    settings.tolerance = tolerance;
    ProxLtlSolver prox(set, settings);
    const SolveStats cold = prox.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
    const double floor = residualFloor(prox.terms().constraintData(), vdot);
    const SolveStats warm = prox.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
    std::printf("[prox-ltl, humanoid loop, mu 1e8] tolerance %.0e: cold %d iterations (residual %.2e%s), warm %d "
                "(%.2e); round-off floor of the residual %.2e\n",
                tolerance, cold.iterations, cold.residual, cold.converged ? "" : ", stalled", warm.iterations,
                warm.residual, floor);
    EXPECT_LE(cold.residual, std::max(tolerance, floor));
    EXPECT_LE(warm.residual, std::max(tolerance, floor));
    EXPECT_EQ(cold.converged, cold.residual <= tolerance);
    EXPECT_LE(warm.iterations, cold.iterations);
    if (tolerance >= floor) {
      EXPECT_TRUE(cold.converged);
      EXPECT_TRUE(warm.converged);
      EXPECT_EQ(warm.iterations, 1);  // started at the solution
    }
  }
  // A small μ converges slowly: max_iterations stops it and it says so.
  SolverSettings slow;
  slow.mu = 10.0;
  slow.max_iterations = 3;
  slow.warm_start = false;
  ProxLtlSolver prox(set, slow);
  const SolveStats stats = prox.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
  EXPECT_FALSE(stats.converged);
  EXPECT_EQ(stats.iterations, 3);
  EXPECT_GT(stats.residual, slow.tolerance);
  // More iterations at the same μ reduce the residual (linear convergence).
  slow.max_iterations = 30;
  ProxLtlSolver longer(set, slow);
  const SolveStats more = longer.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
  EXPECT_LT(more.residual, stats.residual);
}

TEST(JointSpaceSolvers, ProxLtlRejectsBadSettings) {
  GeneratedMechanism mech = fourBar();
  const ConstraintSet set(mech.model, mech.constraints);
  SolverSettings bad;
  bad.mu = 0.0;
  EXPECT_THROW(ProxLtlSolver(set, bad), ModelError);
  bad = {};
  bad.max_iterations = 0;
  EXPECT_THROW(ProxLtlSolver(set, bad), ModelError);
}

// ----------------------------------------------------------- redundant sets

namespace {

struct RedundantCase {
  std::string name;
  GeneratedMechanism redundant;            // rank-deficient constraint set
  std::vector<Constraint> independent;     // an independent subset giving the same motion
  double q_noise;
  std::vector<int> held;
};

std::vector<RedundantCase> redundantCases() {
  std::vector<RedundantCase> cases;
  {  // the same weld twice
    GeneratedMechanism mech = pendulumChain();
    const std::vector<Constraint> independent = mech.constraints;
    Constraint copy = mech.constraints[0];
    copy.name += "_copy";
    mech.constraints.push_back(copy);
    cases.push_back({"tip welded twice", mech, independent, 0.8, {}});
  }
  {  // a weld and a connect at another point of the same tip
    GeneratedMechanism mech = pendulumChain();
    const std::vector<Constraint> independent = mech.constraints;
    Constraint point = mech.constraints[0];
    point.name = "tip_point";
    point.kind = ConstraintKind::Connect;
    point.placement1 = point.placement1 * SE3(Matrix3::Identity(), Vector3(0.1, -0.05, 0.2));
    mech.constraints.push_back(point);
    cases.push_back({"tip welded and connected", mech, independent, 0.8, {}});
  }
  {  // duplicate connects on the spatial chain (generator)
    GeneratedMechanism mech = redundantMechanism({RedundantMechanismParams::Variant::DuplicateConnect});
    std::vector<Constraint> independent;
    for (const Constraint& c : mech.constraints) {
      if (c.name != "loop_copy") independent.push_back(c);
    }
    cases.push_back({"spatial chain connected twice", mech, independent, 0.05, {}});
  }
  {  // planar four-bar closed by a 3D connect: the z row vanishes (generator)
    GeneratedMechanism mech = redundantMechanism({RedundantMechanismParams::Variant::PlanarConnect});
    std::vector<Constraint> independent = mech.constraints;
    for (Constraint& c : independent) {
      if (c.name == "loop") c.row_mask = {0, 1};
    }
    cases.push_back({"planar four-bar, 3D connect", mech, independent, 0.4, {1}});
  }
  {  // planar four-bar with all 5 revolute rows: z, rx, ry vanish
    GeneratedMechanism mech = fourBar();
    const std::vector<Constraint> independent = mech.constraints;
    for (Constraint& c : mech.constraints) c.row_mask.clear();
    cases.push_back({"planar four-bar, all 5 revolute rows", mech, independent, 0.4, {1}});
  }
  return cases;
}

}  // namespace

TEST(JointSpaceSolvers, ProxLtlSolvesRedundantSetsLikeKktOnAnIndependentSubset) {
  double max_vdot = 0.0, max_force = 0.0, max_residual = 0.0;
  int max_iterations = 0;
  unsigned seed = 300;
  for (RedundantCase& c : redundantCases()) {
    const Model& model = c.redundant.model;
    std::mt19937 rng(seed++);
    for (int sample = 0; sample < 6; ++sample) {
      // Consistent for the independent subset, hence for the whole set.
      std::vector<Constraint> independent;
      const State s = sampleState(model, c.independent, c.redundant.q0, c.q_noise, c.held, rng, independent);
      const std::vector<Constraint> all = retargetWorldConstraints(model, c.redundant.constraints, s.q);
      const ConstraintSet subset(model, independent);
      const ConstraintSet redundant(model, all);
      KktSolver kkt(subset, {});
      SolverSettings settings;
      settings.tolerance = 1e-10;
      ProxLtlSolver prox(redundant, settings);
      VectorX vdot_kkt(model.nv), lambda_kkt(subset.dimension()), vdot(model.nv), lambda(redundant.dimension());
      kkt.solve(s.q, s.v, s.tau, s.fext, vdot_kkt, lambda_kkt);
      const SolveStats stats = prox.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
      const std::string where = c.name + " sample " + std::to_string(sample);
      EXPECT_TRUE(stats.converged) << where << ", residual " << stats.residual;
      EXPECT_LE(stats.residual, 1e-10) << where;
      // Jᵀλ is the generalised constraint force, unique even when λ is not.
      const VectorX force_kkt = kkt.constraintData().J.transpose() * lambda_kkt;
      const VectorX force = prox.terms().constraintData().J.transpose() * lambda;
      const double e_vdot = relativeError(vdot, vdot_kkt), e_force = relativeError(force, force_kkt);
      EXPECT_LE(e_vdot, 1e-7) << where;
      EXPECT_LE(e_force, 1e-7) << where;
      max_vdot = std::max(max_vdot, e_vdot);
      max_force = std::max(max_force, e_force);
      max_residual = std::max(max_residual, stats.residual);
      max_iterations = std::max(max_iterations, stats.iterations);
    }
  }
  std::printf("[prox-ltl on redundant sets vs kkt on independent subsets] max rel. error v̇ %.3g, Jᵀλ %.3g, "
              "max residual %.3g, max iterations %d (tolerance 1e-10)\n",
              max_vdot, max_force, max_residual, max_iterations);
}

TEST(JointSpaceSolvers, LtlAndKktRefuseRedundantSetsNamingDependentRows) {
  for (RedundantCase& c : redundantCases()) {
    const Model& model = c.redundant.model;
    const ConstraintSet set(model, c.redundant.constraints);
    const VectorX v = VectorX::Zero(model.nv), tau = VectorX::Zero(model.nv);
    for (const char* name : {"ltl", "kkt"}) {
      auto solver = makeSolver(name, set);
      VectorX vdot(model.nv), lambda(set.dimension());
      try {
        solver->solve(c.redundant.q0, v, tau, {}, vdot, lambda);
        ADD_FAILURE() << name << " accepted the redundant set '" << c.name << "'";
      } catch (const ModelError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("solver '" + std::string(name) + "'"), std::string::npos) << what;
        EXPECT_NE(what.find("rank deficient"), std::string::npos) << what;
        EXPECT_NE(what.find("dependent rows: "), std::string::npos) << what;
      }
    }
  }
}

// ---------------------------------------------------------------- soft-ltl

TEST(JointSpaceSolvers, SoftLtlTendsToKktAsWeightsGrow) {
  for (Case& c : agreementCases()) {
    const Model& model = c.mech.model;
    std::mt19937 rng(500);
    std::vector<Constraint> constraints;
    const State s = sampleState(model, c.mech.constraints, c.mech.q0, c.q_noise, c.held, rng, constraints);
    const ConstraintSet set(model, constraints);
    KktSolver kkt(set, {});
    VectorX vdot_kkt(model.nv), lambda_kkt(set.dimension()), vdot(model.nv), lambda(set.dimension());
    kkt.solve(s.q, s.v, s.tau, s.fext, vdot_kkt, lambda_kkt);
    std::string errors;
    double previous = std::numeric_limits<double>::infinity();
    for (double weight = 1e2; weight <= 1e8 * 1.001; weight *= 10.0) {
      SolverSettings settings;
      settings.soft_weight = weight;
      SoftLtlSolver soft(set, settings);
      const SolveStats stats = soft.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
      const double error = relativeError(vdot, vdot_kkt);
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, " %.0e:%.2e", weight, error);
      errors += buffer;
      EXPECT_LT(error, previous) << c.name << " weight " << weight;
      // The softness: λ = W (k - J v̇), so ‖J v̇ - k‖ = ‖λ‖ / w.
      EXPECT_NEAR(stats.residual, lambda.lpNorm<Eigen::Infinity>() / weight,
                  1e-6 * lambda.lpNorm<Eigen::Infinity>() / weight + 1e-12);
      previous = error;
    }
    EXPECT_LE(previous, 1e-5) << c.name;
    std::printf("[soft-ltl vs kkt, rel. error v̇ by weight] %s:%s\n", c.name.c_str(), errors.c_str());
  }
}

TEST(JointSpaceSolvers, SoftLtlSolvesTheSoftGaussSystemWithPerConstraintWeights) {
  GeneratedMechanism mech = humanoidWithLoopAndCouplings();
  const Model& model = mech.model;
  std::mt19937 rng(600);
  std::vector<Constraint> constraints;
  const State s = sampleState(model, mech.constraints, mech.q0, 0.15, {}, rng, constraints);
  const ConstraintSet set(model, constraints);
  SolverSettings settings;
  settings.soft_weights = {1e2, 3e3, 1e4, 50.0, 7e2};
  ASSERT_EQ(static_cast<int>(settings.soft_weights.size()), set.size());
  SoftLtlSolver soft(set, settings);
  VectorX vdot(model.nv), lambda(set.dimension());
  soft.solve(s.q, s.v, s.tau, s.fext, vdot, lambda);

  // (M + Jᵀ W J) v̇ = M v̇_free + Jᵀ W k and λ = W (k - J v̇), densely.
  Data data(model);
  const MatrixX M = crba(model, data, s.q);
  const VectorX h_ext = rnea(model, data, s.q, s.v, VectorX::Zero(model.nv), s.fext);  // h - Σ Jᵀ f_ext
  ConstraintData cdata(set);
  computeConstraintTerms(set, data, s.q, s.v, cdata, kConstraintErrors | kConstraintJacobian);
  VectorX w(set.dimension());
  for (int c = 0; c < set.size(); ++c) w.segment(set.rowOffset(c), set[c].dimension()).setConstant(settings.soft_weights[c]);
  const MatrixX& J = cdata.J;
  const MatrixX lhs = M + J.transpose() * w.asDiagonal() * J;
  const VectorX rhs = (s.tau - h_ext) + J.transpose() * (w.asDiagonal() * cdata.k);
  const VectorX normal_residual = lhs * vdot - rhs;
  EXPECT_LE(normal_residual.norm(), 1e-9 * std::max(1.0, rhs.norm())) << normal_residual.transpose();
  const VectorX lambda_expected = w.asDiagonal() * (cdata.k - J * vdot);
  EXPECT_LE(relativeError(lambda, lambda_expected), 1e-8);
  // A stiffer weight on one constraint (the hands) makes it hold better.
  const auto hands_violation = [&](const VectorX& a) {
    return (J.middleRows(set.rowOffset(2), 3) * a - cdata.k.segment(set.rowOffset(2), 3)).norm();
  };
  SolverSettings stiffer = settings;
  stiffer.soft_weights[2] = 1e6;
  SoftLtlSolver stiff(set, stiffer);
  VectorX vdot_stiff(model.nv);
  stiff.solve(s.q, s.v, s.tau, s.fext, vdot_stiff, lambda);
  EXPECT_LT(hands_violation(vdot_stiff), 0.1 * hands_violation(vdot));
}

TEST(JointSpaceSolvers, SoftLtlRejectsBadWeights) {
  GeneratedMechanism mech = fourBar();
  const ConstraintSet set(mech.model, mech.constraints);
  SolverSettings bad;
  bad.soft_weights = {1.0, 2.0};
  EXPECT_THROW(SoftLtlSolver(set, bad), ModelError);
  bad.soft_weights = {-1.0};
  try {
    SoftLtlSolver solver(set, bad);
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("constraint 'loop'"), std::string::npos) << e.what();
  }
}

TEST(JointSpaceSolvers, SoftLtlHandlesRedundantSets) {
  GeneratedMechanism mech = redundantMechanism({RedundantMechanismParams::Variant::DuplicateConnect});
  const ConstraintSet set(mech.model, mech.constraints);
  SoftLtlSolver soft(set, {});
  VectorX vdot(mech.model.nv), lambda(set.dimension());
  const VectorX v = VectorX::Zero(mech.model.nv), tau = VectorX::Zero(mech.model.nv);
  soft.solve(mech.q0, v, tau, {}, vdot, lambda);
  EXPECT_TRUE(vdot.allFinite());
  EXPECT_TRUE(lambda.allFinite());
  // The two identical connects share the load equally (same rows, same weight).
  EXPECT_LE((lambda.head(3) - lambda.tail(3)).lpNorm<Eigen::Infinity>(), 1e-9 * lambda.lpNorm<Eigen::Infinity>());
}

// ------------------------------------------------------- registry, allocation

TEST(JointSpaceSolvers, RegisteredWithTheirCapabilities) {
  for (const char* name : {"ltl", "prox-ltl", "soft-ltl"}) ASSERT_NE(findSolver(name), nullptr) << name;
  EXPECT_FALSE(findSolver("ltl")->capabilities.redundant);
  EXPECT_TRUE(findSolver("prox-ltl")->capabilities.redundant);
  EXPECT_TRUE(findSolver("prox-ltl")->capabilities.iterative);
  EXPECT_TRUE(findSolver("soft-ltl")->capabilities.soft);
}

TEST(JointSpaceSolvers, SolveDoesNotAllocate) {
  for (GeneratedMechanism mech : {humanoidWithLoopAndCouplings(), fourBar(), coupledSpatialChain()}) {
    const Model& model = mech.model;
    const ConstraintSet set(model, mech.constraints);
    std::mt19937 rng(900);
    std::vector<Force> fext(model.nbodies(), Force(randomVector(rng, 6, 1.0)));
    VectorX q = mech.q0, v = randomVector(rng, model.nv, 0.1), tau = randomVector(rng, model.nv, 1.0);
    VectorX vdot(model.nv), lambda(set.dimension());
    VectorX q_moved(model.nq);  // a new q: the full pass (Y, Λ), not the same-q reuse
    integrate(model, q, v, 0.01, q_moved);
    for (const char* name : {"ltl", "prox-ltl", "soft-ltl"}) {
      auto solver = makeSolver(name, set);
      solver->solve(q, v, tau, fext, vdot, lambda);
      v *= 1.1;
      test::AllocationScope scope;
      solver->solve(q, v, tau, fext, vdot, lambda);
      solver->solve(q, v, tau, {}, vdot, lambda);
      solver->solve(q_moved, v, tau, {}, vdot, lambda);
      EXPECT_EQ(scope.count(), 0u) << name << " on " << model.name;
    }
  }
}
