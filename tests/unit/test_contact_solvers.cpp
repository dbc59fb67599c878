// The contact problem (engine/contact): the Coulomb cone's projections
// against their defining properties, and the ADMM and PGS solvers against
// closed forms (a point mass on a plane: separation, sticking, sliding), a
// brute-force solve by enumeration of modes (one contact, one unilateral row,
// one bilateral block), each other on random well-posed problems, and a box
// on four corner contacts (a singular Delassus matrix) against the balance of
// momentum. Residuals below 1e-8, agreement to 1e-6; warm starts save
// iterations; no allocation in a solve; bad input is refused naming the value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "allocation_counter.hpp"
#include <loopsim/contact/admm_contact_solver.hpp>
#include <loopsim/contact/contact_problem.hpp>
#include <loopsim/contact/contact_residuals.hpp>
#include <loopsim/contact/coulomb_cone.hpp>
#include <loopsim/contact/pgs_contact_solver.hpp>
#include <loopsim/model/errors.hpp>

using namespace loopsim;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Membership, written independently of the projections.
bool inCone(double mu, const Vector3& x, double tol) {
  const double t = std::hypot(x[0], x[1]);
  if (std::isinf(mu)) return x[2] >= -tol;
  return x[2] >= -tol && t <= mu * x[2] + tol;
}
bool inDualCone(double mu, const Vector3& x, double tol) {
  const double t = std::hypot(x[0], x[1]);
  if (std::isinf(mu)) return x[2] >= -tol && t <= tol;
  return mu * t <= x[2] + tol;
}

Vector3 randomVector(std::mt19937& rng, double scale = 1.0) {
  std::normal_distribution<double> normal(0.0, scale);
  return Vector3(normal(rng), normal(rng), normal(rng));
}

ContactSolverSettings tightSettings(int max_iterations) {
  ContactSolverSettings s;
  s.tolerance = 1e-10;
  s.max_iterations = max_iterations;
  return s;
}

// G = J M⁻¹ Jᵀ with J (m x n) random, full row rank, and M = A Aᵀ + n I.
MatrixX randomDelassus(std::mt19937& rng, int m, int n) {
  std::normal_distribution<double> normal(0.0, 1.0);
  MatrixX J(m, n), A(n, n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) J(i, j) = normal(rng);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) A(i, j) = normal(rng);
  const MatrixX M = A * A.transpose() + n * MatrixX::Identity(n, n);
  const MatrixX MinvJt = M.llt().solve(J.transpose());
  MatrixX G = J * MinvJt;
  return 0.5 * (G + G.transpose());
}

void fillRandom(std::mt19937& rng, ContactProblem& problem, int dofs) {
  problem.G() = randomDelassus(rng, problem.size(), dofs);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int i = 0; i < problem.size(); ++i) problem.g()[i] = uniform(rng);
}

struct Solved {
  VectorX lambda, v;
  ContactSolverResult result;
};

Solved solveAdmm(const ContactProblem& problem, const ContactSolverSettings& settings, const VectorX& start) {
  AdmmContactSolver solver(settings);
  solver.resize(problem.size());
  Solved out{start, VectorX(), {}};
  out.result = solver.solve(problem, out.lambda);
  out.v = solver.velocity();
  return out;
}

Solved solvePgs(const ContactProblem& problem, const ContactSolverSettings& settings, const VectorX& start) {
  PgsContactSolver solver(settings);
  solver.resize(problem);
  Solved out{start, VectorX(), {}};
  out.result = solver.solve(problem, out.lambda);
  out.v = solver.velocity();
  return out;
}

// The velocity a solver reports is G λ + g of the λ it returns, and its residuals are that pair's.
void expectConsistent(const ContactProblem& problem, const Solved& s, const char* solver) {
  SCOPED_TRACE(solver);
  VectorX v(problem.size());
  problem.velocity(s.lambda, v);
  EXPECT_LT((v - s.v).lpNorm<Eigen::Infinity>(), 1e-12);
  const ContactResiduals r = contactResiduals(problem, s.lambda, v);
  EXPECT_EQ(r.primal, s.result.residuals.primal);
  EXPECT_EQ(r.dual, s.result.residuals.dual);
  EXPECT_EQ(r.complementarity, s.result.residuals.complementarity);
}

void expectSolved(const Solved& s, const char* solver) {
  SCOPED_TRACE(solver);
  EXPECT_TRUE(s.result.converged) << "after " << s.result.iterations << " iterations";
  EXPECT_LE(s.result.residuals.primal, 1e-8);
  EXPECT_LE(s.result.residuals.dual, 1e-8);
  EXPECT_LE(s.result.residuals.complementarity, 1e-8);
}

}  // namespace

// ---------------------------------------------------------------------------
// The cone

TEST(ContactCone, ProjectionsLieInTheirConesAndAreIdempotent) {
  std::mt19937 rng(55);
  for (double mu : {0.0, 0.2, 1.0, 2.5, kInf}) {
    for (int sample = 0; sample < 2000; ++sample) {
      Vector3 x = randomVector(rng, 2.0);
      if (sample % 10 == 0) x.head<2>().setZero();  // on the normal axis
      if (sample % 10 == 1) x[2] = 0.0;             // in the tangent plane
      const Vector3 p = projectOntoCoulombCone(mu, x);
      const Vector3 d = projectOntoDualCoulombCone(mu, x);
      ASSERT_TRUE(inCone(mu, p, 1e-12)) << "mu " << mu << " x " << x.transpose() << " p " << p.transpose();
      ASSERT_TRUE(inDualCone(mu, d, 1e-12)) << "mu " << mu << " x " << x.transpose() << " d " << d.transpose();
      ASSERT_LT((projectOntoCoulombCone(mu, p) - p).norm(), 1e-14 * (1.0 + x.norm()));
      ASSERT_LT((projectOntoDualCoulombCone(mu, d) - d).norm(), 1e-14 * (1.0 + x.norm()));
      if (inCone(mu, x, 0.0)) {
        ASSERT_EQ(p, x);
      }
    }
  }
}

TEST(ContactCone, MoreauDecompositionIntoConeAndPolarParts) {
  // x = P_K(x) + P_K°(x) with P_K°(x) = −P_K*(−x), the two parts orthogonal,
  // one in K and one in K° = −K*: by Moreau's theorem this characterises both
  // projections (the membership checks above are independent of them).
  std::mt19937 rng(56);
  for (double mu : {0.0, 0.3, 1.0, 4.0, kInf}) {
    for (int sample = 0; sample < 2000; ++sample) {
      const Vector3 x = randomVector(rng, 3.0);
      const Vector3 p = projectOntoCoulombCone(mu, x);
      const Vector3 q = -projectOntoDualCoulombCone(mu, -x);
      ASSERT_LT((p + q - x).norm(), 1e-13 * (1.0 + x.norm())) << "mu " << mu << " x " << x.transpose();
      ASSERT_LT(std::abs(p.dot(q)), 1e-13 * (1.0 + x.squaredNorm())) << "mu " << mu << " x " << x.transpose();
      ASSERT_TRUE(inCone(mu, p, 1e-12));
      ASSERT_TRUE(inDualCone(mu, -q, 1e-12));
    }
  }
}

TEST(ContactCone, ProjectionIsTheClosestPointOfTheCone) {
  std::mt19937 rng(57);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (double mu : {0.0, 0.5, 3.0}) {
    for (int sample = 0; sample < 200; ++sample) {
      const Vector3 x = randomVector(rng, 2.0);
      const double distance = (x - projectOntoCoulombCone(mu, x)).norm();
      for (int other = 0; other < 50; ++other) {
        // A random point of K_μ: normal n ≥ 0, tangent of length ≤ μ n.
        const double n = 3.0 * uniform(rng);
        const double angle = 2.0 * std::numbers::pi * uniform(rng);
        const double radius = mu * n * uniform(rng);
        const Vector3 y(radius * std::cos(angle), radius * std::sin(angle), n);
        ASSERT_LE(distance, (x - y).norm() + 1e-12);
      }
    }
  }
}

TEST(ContactCone, DeSaxceCorrectionAddsMuTimesTheSlipToTheNormal) {
  EXPECT_EQ(deSaxceCorrected(0.5, Vector3(3.0, 4.0, 1.0)), Vector3(3.0, 4.0, 3.5));
  EXPECT_EQ(deSaxceCorrected(0.0, Vector3(3.0, 4.0, 1.0)), Vector3(3.0, 4.0, 1.0));
  EXPECT_EQ(deSaxceCorrected(kInf, Vector3(3.0, 4.0, 1.0)), Vector3(3.0, 4.0, 1.0));
}

// ---------------------------------------------------------------------------
// The solvers

TEST(ContactSolvers, PointMassOnAPlaneMatchesTheClosedForms) {
  // G = I / m on the rows [t1, t2, n]; g the velocity without contact.
  //   g_n ≥ 0                  separation: λ = 0, v = g
  //   g_n < 0, ‖g_t‖ ≤ μ|g_n|  sticking:   λ = −m g, v = 0
  //   g_n < 0, ‖g_t‖ > μ|g_n|  sliding:    λ_n = −m g_n, λ_t = −μ λ_n g_t/‖g_t‖,
  //                                         v_t = g_t (1 − μ|g_n|/‖g_t‖), v_n = 0
  const double mass = 2.0;
  const double mu = 0.5;
  ContactProblem problem(3, {frictionalBlock(0, mu)});
  problem.G() = Matrix3::Identity() / mass;
  struct Case {
    const char* name;
    Vector3 g, lambda, v;
  };
  const Vector3 slide_g(0.3, -0.4, -0.2);  // ‖g_t‖ = 0.5 > μ|g_n| = 0.1
  const double slide_normal = mass * 0.2;
  const Vector3 slide_lambda(-mu * slide_normal * 0.6, mu * slide_normal * 0.8, slide_normal);
  const Vector3 slide_v = Vector3(0.3, -0.4, 0.0) * (1.0 - 0.1 / 0.5);
  const std::vector<Case> cases = {
      {"separation", Vector3(0.7, -0.2, 0.3), Vector3::Zero(), Vector3(0.7, -0.2, 0.3)},
      {"sticking", Vector3(0.03, -0.04, -0.2), Vector3(-0.06, 0.08, 0.4), Vector3::Zero()},
      {"sliding", slide_g, slide_lambda, slide_v},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    problem.g().head<3>() = c.g;  // fixed size: GCC 12 flags the dynamic copy under AVX-512 (-Warray-bounds)
    for (int which = 0; which < 2; ++which) {
      const Solved s = which == 0 ? solveAdmm(problem, tightSettings(2000), VectorX::Zero(3))
                                  : solvePgs(problem, tightSettings(2000), VectorX::Zero(3));
      const char* name = which == 0 ? "admm" : "pgs";
      expectSolved(s, name);
      expectConsistent(problem, s, name);
      EXPECT_LT((s.lambda - c.lambda).norm(), 1e-9) << name << ": " << s.lambda.transpose();
      EXPECT_LT((s.v - c.v).norm(), 1e-9) << name << ": " << s.v.transpose();
    }
  }
  // The limits of the friction coefficient on the sliding case: μ = 0 lets it
  // slide freely (λ_t = 0, v_t = g_t), μ = ∞ makes it stick (λ = −m g, v = 0).
  problem.g().head<3>() = slide_g;
  for (double limit : {0.0, kInf}) {
    SCOPED_TRACE("mu " + std::to_string(limit));
    problem.setFriction(0, limit);
    const Vector3 lambda = limit == 0.0 ? Vector3(0.0, 0.0, slide_normal) : Vector3(-mass * slide_g);
    const Vector3 v = limit == 0.0 ? Vector3(slide_g[0], slide_g[1], 0.0) : Vector3::Zero();
    for (int which = 0; which < 2; ++which) {
      const Solved s = which == 0 ? solveAdmm(problem, tightSettings(2000), VectorX::Zero(3))
                                  : solvePgs(problem, tightSettings(2000), VectorX::Zero(3));
      const char* name = which == 0 ? "admm" : "pgs";
      expectSolved(s, name);
      EXPECT_LT((s.lambda - lambda).norm(), 1e-9) << name << ": " << s.lambda.transpose();
      EXPECT_LT((s.v - v).norm(), 1e-9) << name << ": " << s.v.transpose();
    }
  }
}

namespace {

// The brute-force reference on one contact (rows 0-2, friction mu), one
// unilateral row (3) and one bilateral block (4-5): every combination of the
// contact's mode (separated, sticking, sliding) and the unilateral row's
// (inactive, active) is solved as equations and kept when it satisfies its
// inequalities. The sliding direction θ is found by bisection on a fine scan.
std::vector<VectorX> solutionsByEnumeration(const ContactProblem& problem, double mu) {
  const MatrixX& G = problem.G();
  const VectorX& g = problem.g();
  std::vector<VectorX> found;
  for (int unilateral_active = 0; unilateral_active < 2; ++unilateral_active) {
    // The rows held at v = 0 besides the contact: the bilateral block and maybe the unilateral row.
    std::vector<int> held = {4, 5};
    if (unilateral_active) held.push_back(3);
    const int h = static_cast<int>(held.size());
    MatrixX Ghh(h, h), Ghc(h, 3);
    VectorX gh(h);
    for (int i = 0; i < h; ++i) {
      gh[i] = g[held[i]];
      for (int j = 0; j < h; ++j) Ghh(i, j) = G(held[i], held[j]);
      for (int j = 0; j < 3; ++j) Ghc(i, j) = G(held[i], j);
    }
    // λ_h = −Ghh⁻¹ (Ghc λ_c + gh); the contact sees the Schur complement.
    const Eigen::LLT<MatrixX> llt(Ghh);
    const MatrixX A = llt.solve(Ghc);
    const VectorX a = llt.solve(gh);
    const Matrix3 S = G.topLeftCorner<3, 3>() - Ghc.transpose() * A;
    const Vector3 s = g.head<3>() - Ghc.transpose() * a;

    std::vector<Vector3> contact;
    if (s[2] >= 0.0) contact.push_back(Vector3::Zero());  // separated: ṽ = s ∈ K* iff s_n ≥ 0
    const Vector3 stick = -S.ldlt().solve(s);
    if (stick[2] > 0.0 && std::hypot(stick[0], stick[1]) < mu * stick[2]) contact.push_back(stick);
    // Sliding along d(θ): λ = λ_n (μ d, 1), v_n = 0 gives λ_n, and v_t = −β d (β > 0).
    auto slide = [&](double theta, Vector3& lambda) {
      const Vector3 direction(mu * std::cos(theta), mu * std::sin(theta), 1.0);
      const double normal = -s[2] / S.row(2).dot(direction);
      lambda = normal * direction;
      const Vector3 v = S * lambda + s;
      return std::pair<double, double>(normal, v[0] * std::sin(theta) - v[1] * std::cos(theta));
    };
    const int scan = 7200;
    for (int k = 0; k < scan; ++k) {
      double lo = 2.0 * std::numbers::pi * k / scan, hi = 2.0 * std::numbers::pi * (k + 1) / scan;
      Vector3 lambda;
      double f_lo = slide(lo, lambda).second;
      const double f_hi = slide(hi, lambda).second;
      if ((f_lo > 0.0) == (f_hi > 0.0)) continue;
      for (int it = 0; it < 200 && hi - lo > 1e-15; ++it) {
        const double mid = 0.5 * (lo + hi);
        const double f_mid = slide(mid, lambda).second;
        if ((f_mid > 0.0) == (f_lo > 0.0)) {
          lo = mid;
          f_lo = f_mid;
        } else {
          hi = mid;
        }
      }
      const double normal = slide(0.5 * (lo + hi), lambda).first;
      const Vector3 v = S * lambda + s;
      if (normal > 0.0 && v.head<2>().dot(lambda.head<2>()) < 0.0) contact.push_back(lambda);
    }
    for (const Vector3& lc : contact) {
      VectorX lambda = VectorX::Zero(6);
      lambda.head<3>() = lc;
      const VectorX lh = -(A * lc + a);
      for (int i = 0; i < h; ++i) lambda[held[i]] = lh[i];
      VectorX v(6);
      problem.velocity(lambda, v);
      const bool unilateral_ok = unilateral_active ? lambda[3] >= 0.0 : v[3] >= 0.0;
      if (unilateral_ok) found.push_back(lambda);
    }
  }
  return found;
}

}  // namespace

TEST(ContactSolvers, MatchABruteForceSolveByEnumerationOfModes) {
  std::mt19937 rng(58);
  std::uniform_real_distribution<double> friction(0.1, 0.6);
  int separated = 0, sticking = 0, sliding = 0, unilateral_active = 0;
  for (int sample = 0; sample < 30; ++sample) {
    SCOPED_TRACE("sample " + std::to_string(sample));
    const double mu = friction(rng);
    ContactProblem problem(6, {frictionalBlock(0, mu), unilateralBlock(3), bilateralBlock(4, 2)});
    fillRandom(rng, problem, 9);
    if (sample % 2 == 1) {  // small tangential and bilateral free velocities: more sticking
      problem.g().head<2>() *= 0.1;
      problem.g().tail<2>() *= 0.1;
    }
    const std::vector<VectorX> reference = solutionsByEnumeration(problem, mu);
    ASSERT_EQ(reference.size(), 1u) << "a well-posed problem has exactly one mode that fits";
    const VectorX& expected = reference.front();
    const Solved admm = solveAdmm(problem, tightSettings(5000), VectorX::Zero(6));
    const Solved pgs = solvePgs(problem, tightSettings(100000), VectorX::Zero(6));
    expectSolved(admm, "admm");
    expectSolved(pgs, "pgs");
    EXPECT_LT((admm.lambda - expected).lpNorm<Eigen::Infinity>(), 1e-7) << admm.lambda.transpose();
    EXPECT_LT((pgs.lambda - expected).lpNorm<Eigen::Infinity>(), 1e-7) << pgs.lambda.transpose();
    const Vector3 lc = expected.head<3>();
    if (lc.isZero()) ++separated;
    else if (std::hypot(lc[0], lc[1]) < mu * lc[2] * (1.0 - 1e-9)) ++sticking;
    else ++sliding;
    if (expected[3] > 0.0) ++unilateral_active;
  }
  std::printf("enumeration: %d separated, %d sticking, %d sliding; unilateral row active in %d of 30\n", separated,
              sticking, sliding, unilateral_active);
  // Every mode was met, so the comparison covered each branch.
  EXPECT_GT(separated, 0);
  EXPECT_GT(sticking, 0);
  EXPECT_GT(sliding, 0);
  EXPECT_GT(unilateral_active, 0);
  EXPECT_LT(unilateral_active, 30);
}

TEST(ContactSolvers, AdmmAndPgsAgreeOnRandomProblems) {
  // Contacts, unilateral rows and bilateral blocks interleaved, one contact
  // without friction; G = J M⁻¹ Jᵀ positive definite (J full row rank).
  std::mt19937 rng(59);
  std::uniform_real_distribution<double> friction(0.1, 0.8);
  double worst_residual = 0.0, worst_lambda = 0.0, worst_velocity = 0.0;
  long admm_iterations = 0, pgs_iterations = 0;
  int admm_most = 0, pgs_most = 0;
  const int samples = 20;
  for (int sample = 0; sample < samples; ++sample) {
    SCOPED_TRACE("sample " + std::to_string(sample));
    const std::vector<ContactBlock> blocks = {frictionalBlock(0, friction(rng)), unilateralBlock(3),
                                              bilateralBlock(4, 2),              frictionalBlock(6, friction(rng)),
                                              unilateralBlock(9),                frictionalBlock(10, 0.0),
                                              bilateralBlock(13, 1),             frictionalBlock(14, friction(rng))};
    ContactProblem problem(17, blocks);
    fillRandom(rng, problem, 30);
    const Solved admm = solveAdmm(problem, tightSettings(5000), VectorX::Zero(17));
    const Solved pgs = solvePgs(problem, tightSettings(100000), VectorX::Zero(17));
    expectSolved(admm, "admm");
    expectSolved(pgs, "pgs");
    expectConsistent(problem, admm, "admm");
    expectConsistent(problem, pgs, "pgs");
    const double dl = (admm.lambda - pgs.lambda).lpNorm<Eigen::Infinity>();
    const double dv = (admm.v - pgs.v).lpNorm<Eigen::Infinity>();
    EXPECT_LT(dl, 1e-6);
    EXPECT_LT(dv, 1e-6);
    worst_residual = std::max({worst_residual, admm.result.residuals.worst(), pgs.result.residuals.worst()});
    worst_lambda = std::max(worst_lambda, dl);
    worst_velocity = std::max(worst_velocity, dv);
    admm_iterations += admm.result.iterations;
    pgs_iterations += pgs.result.iterations;
    admm_most = std::max(admm_most, admm.result.iterations);
    pgs_most = std::max(pgs_most, pgs.result.iterations);
  }
  std::printf("random (m 17, 30 dofs, %d problems): worst residual %.2e, |dlambda| %.2e, |dv| %.2e; "
              "iterations admm mean %.1f max %d, pgs mean %.1f max %d\n",
              samples, worst_residual, worst_lambda, worst_velocity, double(admm_iterations) / samples, admm_most,
              double(pgs_iterations) / samples, pgs_most);
}

TEST(ContactSolvers, BoxOnFourCornersSingularDelassus) {
  // A 1 kg cube (edge 0.2 m) resting on four corner contacts: 12 rows on 6
  // dofs, so G is singular and λ not unique, but the box's velocity is. With
  // gravity over dt and a push v_x: sticking stops it (v⁺ = 0, Σλ_n = m g dt);
  // sliding (v_x > μ g dt) leaves v⁺_x = v_x − μ g dt.
  const double mass = 1.0, half = 0.1, dt = 0.01, gravity = 9.81, mu = 0.5;
  const double inertia = mass * (2.0 * half) * (2.0 * half) / 6.0;
  Eigen::Matrix<double, 12, 6> J = Eigen::Matrix<double, 12, 6>::Zero();  // generalized v = [linear; angular] at the centre
  std::vector<ContactBlock> blocks;
  int row = 0;
  for (double x : {-half, half}) {
    for (double y : {-half, half}) {
      const Vector3 r(x, y, -half);
      for (int axis = 0; axis < 3; ++axis) {
        const Vector3 d = Vector3::Unit(axis);  // [t1, t2, n] = [x, y, z]
        J.block<1, 3>(row + axis, 0) = d.transpose();
        J.block<1, 3>(row + axis, 3) = r.cross(d).transpose();
      }
      blocks.push_back(frictionalBlock(row, mu));
      row += 3;
    }
  }
  Eigen::Matrix<double, 6, 1> Minv;
  Minv << 1.0 / mass, 1.0 / mass, 1.0 / mass, 1.0 / inertia, 1.0 / inertia, 1.0 / inertia;
  ContactProblem problem(12, blocks);
  problem.G() = J * Minv.asDiagonal() * J.transpose();
  for (double push : {0.02, 0.5}) {
    SCOPED_TRACE("push " + std::to_string(push));
    Eigen::Matrix<double, 6, 1> v_free = Eigen::Matrix<double, 6, 1>::Zero();
    v_free[0] = push;
    v_free[2] = -gravity * dt;
    problem.g() = J * v_free;
    const double sliding_speed = std::max(push - mu * gravity * dt, 0.0);
    for (int which = 0; which < 2; ++which) {
      const char* name = which == 0 ? "admm" : "pgs";
      const Solved s = which == 0 ? solveAdmm(problem, tightSettings(5000), VectorX::Zero(12))
                                  : solvePgs(problem, tightSettings(100000), VectorX::Zero(12));
      expectSolved(s, name);
      const Eigen::Matrix<double, 6, 1> v_next = v_free + Minv.asDiagonal() * (J.transpose() * s.lambda);
      Eigen::Matrix<double, 6, 1> expected = Eigen::Matrix<double, 6, 1>::Zero();
      expected[0] = sliding_speed;
      EXPECT_LT((v_next - expected).lpNorm<Eigen::Infinity>(), 1e-7) << name << ": " << v_next.transpose();
      double normal = 0.0;
      for (const ContactBlock& b : blocks) normal += s.lambda[b.first + 2];
      EXPECT_NEAR(normal, mass * gravity * dt, 1e-8) << name;
      std::printf("box on four corners, push %.2f: %s %d iterations, worst residual %.2e\n", push, name,
                  s.result.iterations, s.result.residuals.worst());
    }
  }
}

TEST(ContactSolvers, WarmStartSavesIterations) {
  // Two consecutive problems differing a little (as two time steps do): the
  // second solved cold and warm-started from the first's λ.
  std::mt19937 rng(60);
  long cold_admm = 0, warm_admm = 0, cold_pgs = 0, warm_pgs = 0;
  for (int sample = 0; sample < 10; ++sample) {
    SCOPED_TRACE("sample " + std::to_string(sample));
    ContactProblem problem(
        13, {frictionalBlock(0, 0.4), unilateralBlock(3), frictionalBlock(4, 0.7), bilateralBlock(7, 3),
             frictionalBlock(10, 0.3)});
    fillRandom(rng, problem, 20);
    const Solved first_admm = solveAdmm(problem, tightSettings(5000), VectorX::Zero(13));
    const Solved first_pgs = solvePgs(problem, tightSettings(100000), VectorX::Zero(13));
    std::normal_distribution<double> perturbation(0.0, 1e-3);
    for (int i = 0; i < 13; ++i) problem.g()[i] += perturbation(rng);
    const Solved cold = solveAdmm(problem, tightSettings(5000), VectorX::Zero(13));
    const Solved warm = solveAdmm(problem, tightSettings(5000), first_admm.lambda);
    const Solved cold_p = solvePgs(problem, tightSettings(100000), VectorX::Zero(13));
    const Solved warm_p = solvePgs(problem, tightSettings(100000), first_pgs.lambda);
    for (const Solved* s : {&cold, &warm, &cold_p, &warm_p}) expectSolved(*s, "second problem");
    EXPECT_LT((warm.lambda - cold.lambda).lpNorm<Eigen::Infinity>(), 1e-6);
    cold_admm += cold.result.iterations;
    warm_admm += warm.result.iterations;
    cold_pgs += cold_p.result.iterations;
    warm_pgs += warm_p.result.iterations;
  }
  std::printf("warm start (10 problems): admm %ld -> %ld iterations, pgs %ld -> %ld\n", cold_admm, warm_admm, cold_pgs,
              warm_pgs);
  EXPECT_LT(warm_admm, cold_admm);
  EXPECT_LT(warm_pgs, cold_pgs);
  // A warm start that already solves the problem costs no iteration.
  ContactProblem problem(3, {frictionalBlock(0, 0.5)});
  problem.G() = Matrix3::Identity();
  problem.g().head<3>() = Vector3(0.01, 0.0, -1.0);
  const Solved solved = solveAdmm(problem, tightSettings(100), VectorX::Zero(3));
  EXPECT_GT(solved.result.iterations, 0);
  EXPECT_EQ(solveAdmm(problem, tightSettings(100), solved.lambda).result.iterations, 0);
  EXPECT_EQ(solvePgs(problem, tightSettings(100), solved.lambda).result.iterations, 0);
}

TEST(ContactSolvers, SolveDoesNotAllocate) {
  std::mt19937 rng(61);
  ContactProblem problem(
      14, {frictionalBlock(0, 0.5), unilateralBlock(3), bilateralBlock(4, 6), frictionalBlock(10, 0.2),
           unilateralBlock(13)});
  fillRandom(rng, problem, 24);
  // Blocked Cholesky from DenseCholesky::kBlockedFrom rows on: one large problem too.
  std::vector<ContactBlock> large_blocks = {bilateralBlock(0, 3)};
  for (int row = 3; row < 66; row += 3) large_blocks.push_back(frictionalBlock(row, 0.6));
  ContactProblem large(66, large_blocks);
  fillRandom(rng, large, 90);
  for (ContactProblem* p : {&problem, &large}) {
    const int m = p->size();
    AdmmContactSolver admm(tightSettings(50));
    PgsContactSolver pgs(tightSettings(50));
    admm.resize(m);
    pgs.resize(*p);
    VectorX lambda_admm = VectorX::Zero(m), lambda_pgs = VectorX::Zero(m);
    ContactSolverResult admm_result, pgs_result;
    EXPECT_EQ(test::countHeapAllocations([&] { admm_result = admm.solve(*p, lambda_admm); }), 0) << "m " << m;
    EXPECT_EQ(test::countHeapAllocations([&] { pgs_result = pgs.solve(*p, lambda_pgs); }), 0) << "m " << m;
    EXPECT_GT(admm_result.iterations, 1);  // the iterations ran (and the penalty was updated on the way)
    EXPECT_GT(pgs_result.iterations, 1);
    // Changing a friction coefficient keeps the structure: no resize needed.
    EXPECT_EQ(test::countHeapAllocations([&] { p->setFriction(m == 14 ? 3 : 1, 0.3); }), 0);
  }
}

TEST(ContactSolvers, BadInputIsRefusedNamingTheValue) {
  auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const ModelError& e) {
      return e.what();
    }
    return "(no error)";
  };
  ContactProblem problem;
  EXPECT_NE(message([&] { problem.resize(3, {frictionalBlock(0, -0.5)}); }).find("mu must be >= 0, got -0.5"),
            std::string::npos);
  EXPECT_NE(message([&] { problem.resize(3, {frictionalBlock(0, std::nan(""))}); }).find("got nan"),
            std::string::npos);
  EXPECT_NE(message([&] { problem.resize(4, {unilateralBlock(0), frictionalBlock(1, -2.0)}); })
                .find("block 1 (frictional, rows 1-3)"),
            std::string::npos);
  EXPECT_NO_THROW(problem.resize(3, {frictionalBlock(0, kInf)}));
  EXPECT_NE(message([&] { problem.setFriction(0, -1.0); }).find("got -1"), std::string::npos);
  EXPECT_EQ(problem.blocks()[0].mu, kInf);  // a refused change leaves the problem as it was
  EXPECT_NE(message([&] { problem.resize(4, {unilateralBlock(0), frictionalBlock(2, 0.1)}); })
                .find("starts at row 2, expected row 1"),
            std::string::npos);
  EXPECT_NE(message([&] { problem.resize(5, {frictionalBlock(0, 0.1)}); }).find("cover 3 rows, the problem has 5"),
            std::string::npos);
  EXPECT_NE(message([&] { problem.resize(2, {{ContactBlockKind::frictional, 0, 2, 0.1}}); })
                .find("has 2 rows, expected 3"),
            std::string::npos);

  auto settingsMessage = [&](auto change) {
    ContactSolverSettings s;
    change(s);
    return message([&] { AdmmContactSolver solver(s); });
  };
  EXPECT_NE(settingsMessage([](auto& s) { s.tolerance = 0.0; }).find("tolerance must be positive and finite, got 0"),
            std::string::npos);
  EXPECT_NE(settingsMessage([](auto& s) { s.tolerance = -1e-6; }).find("got -1e-06"), std::string::npos);
  EXPECT_NE(settingsMessage([](auto& s) { s.tolerance = std::nan(""); }).find("tolerance must be positive and finite, got nan"),
            std::string::npos);
  EXPECT_NE(settingsMessage([](auto& s) { s.max_iterations = 0; }).find("max_iterations must be >= 1, got 0"),
            std::string::npos);
  EXPECT_NE(settingsMessage([](auto& s) { s.proximal = 0.0; }).find("proximal must be positive"), std::string::npos);
  EXPECT_NE(settingsMessage([](auto& s) { s.over_relaxation = 2.0; }).find("over_relaxation must be in (0, 2), got 2"),
            std::string::npos);
  EXPECT_NE(message([] {
              ContactSolverSettings s;
              s.tolerance = -1.0;
              PgsContactSolver solver(s);
            }).find("contact solver 'pgs': tolerance"),
            std::string::npos);

  // A solver not sized for the problem refuses it instead of resizing inside the solve.
  ContactProblem three(3, {frictionalBlock(0, 0.5)});
  three.G() = Matrix3::Identity();
  VectorX lambda = VectorX::Zero(3);
  AdmmContactSolver admm;
  EXPECT_NE(message([&] { admm.solve(three, lambda); }).find("sized for 0 rows"), std::string::npos);
  PgsContactSolver pgs;
  pgs.resize(ContactProblem(3, {bilateralBlock(0, 3)}));
  EXPECT_NE(message([&] { pgs.solve(three, lambda); }).find("sized for other blocks"), std::string::npos);
}
