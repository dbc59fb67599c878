// Joint position limits as unilateral rows of the step (contact/unilateral_step.hpp):
// the pendulum of scenes/pendulum_limit.yaml stops at its bound and stays there;
// the corrected velocity equals the active-set reference (a dense KKT solve with
// the reached bounds as equalities, the mode found by enumeration) on loops and
// chains at random states; a step that reaches no bound is left bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <random>

#include <Eigen/SVD>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/contact/unilateral_step.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/sim/simulation.hpp>

#include "allocation_counter.hpp"

namespace loopsim {
namespace {

std::filesystem::path scenesDir() { return std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes"; }

struct PendulumRun {
  double min_q = 1e9, final_q = 0.0, final_v = 0.0;
  double worst_energy_rise_after_contact = 0.0;
  long steps_at_bound = 0;
};

PendulumRun runPendulum(bool limits) {
  Scene scene = loadScene(scenesDir() / "pendulum_limit.yaml");
  scene.joint_limits.enabled = limits;
  Simulation sim(scene);
  PendulumRun run;
  bool touched = false;
  double energy = sim.energy().total();
  while (sim.time() < 2.0 - 1e-9) {
    EXPECT_TRUE(sim.step());
    run.min_q = std::min(run.min_q, sim.q()[0]);
    if (sim.lastUnilateralStep().active_rows > 0) {
      touched = true;
      ++run.steps_at_bound;
    }
    const double e = sim.energy().total();
    if (touched) run.worst_energy_rise_after_contact = std::max(run.worst_energy_rise_after_contact, e - energy);
    energy = e;
  }
  run.final_q = sim.q()[0];
  run.final_v = sim.v()[0];
  return run;
}

// Released at 1.5 rad, the rod swings onto its lower bound 0.5 rad and stays there:
// never past the bound by more than the slop, at rest at the end, and no energy
// gained once it has hit (the impact is inelastic, restitution 0).
TEST(JointLimits, PendulumStopsAtItsBoundAndStaysThere) {
  const PendulumRun run = runPendulum(true);
  const double lower = 0.5, slop = 1e-3;
  EXPECT_GE(run.min_q, lower - slop);
  EXPECT_GE(run.min_q, lower - 1e-12) << "the bound is never crossed (β = d / dt closes the gap exactly)";
  EXPECT_LT(run.min_q, lower + 1e-9) << "the rod reached the bound";
  EXPECT_NEAR(run.final_q, lower, 1e-9);
  EXPECT_LT(std::abs(run.final_v), 1e-9);
  EXPECT_GT(run.steps_at_bound, 1000) << "pressed against the bound from the impact on";
  EXPECT_LT(run.worst_energy_rise_after_contact, 1e-9);
}

// The same pendulum with the limits off swings through the bound: the test above can fail.
TEST(JointLimits, WithTheLimitsOffThePendulumSwingsThrough) {
  const PendulumRun run = runPendulum(false);
  EXPECT_LT(run.min_q, 0.0);
  EXPECT_EQ(run.steps_at_bound, 0);
}

// v⁺ of the velocity-level problem on the equality rows (bilateral) and a set of limit rows
// held as equalities (the candidate mode): [M̃ Jᵀ; J 0] [v⁺; -λ] = [M̃ v_eq; t].
struct Mode {
  VectorX v, lambda;
};
Mode solveMode(const MatrixX& Mt, const MatrixX& J, const VectorX& v_eq, const VectorX& target) {
  const int nv = static_cast<int>(Mt.rows()), m = static_cast<int>(J.rows());
  MatrixX K = MatrixX::Zero(nv + m, nv + m);
  K.topLeftCorner(nv, nv) = Mt;
  K.topRightCorner(nv, m) = J.transpose();
  K.bottomLeftCorner(m, nv) = J;
  VectorX rhs(nv + m);
  rhs << Mt * v_eq, target;
  const VectorX x = K.fullPivLu().solve(rhs);
  return {x.head(nv), -x.tail(m)};
}

// On loops and chains at random consistent states, with bounds put just ahead of
// chosen dofs moving into them, the step's v⁺ equals the active-set reference:
// among the modes (each subset of the reached bounds held as equalities) the one
// with λ ≥ 0 on its rows and s v⁺ + β ≥ 0 on the others. The equality rows keep
// J_eq v⁺ = J_eq v_eq.
TEST(JointLimits, StepEqualsTheActiveSetReferenceOnLoopsAndChains) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  int checked = 0, with_two_active = 0, with_one_released = 0;
  for (const char* file : {"four_bar.yaml", "pendulum_weld.yaml", "chain_of_loops.yaml", "digit_standing.yaml"}) {
    Scene scene = loadScene(scenesDir() / file);
    const Model& model = *scene.model;
    const int nv = model.nv;
    const double dt = 1e-3, T = 0.1;
    // The revolute dofs, of which two get bounds (one lower, one upper) at each state.
    std::vector<int> candidates;
    for (int j = 1; j < model.nbodies(); ++j) {
      if (model.joint_types[j] == JointType::Revolute) candidates.push_back(j);
    }
    ASSERT_GE(candidates.size(), 2u) << file;
    const ConstraintSet set(model, scene.constraints, T);
    const int m_eq = set.dimension();
    const int limits = nv - m_eq >= 2 ? 2 : 1;  // a 1-dof mechanism takes one bound
    for (int trial = 0; trial < 6; ++trial) {
      SCOPED_TRACE(std::string(file) + ", trial " + std::to_string(trial));
      VectorX q = scene.q0, v = VectorX::Zero(nv);
      // Random poses around the start, projected back onto the loops (a pose too far for
      // the projection to reach is drawn again, smaller).
      bool projected = false;
      for (double spread = 0.3; !projected && spread > 0.01; spread *= 0.5) {
        q = scene.q0;
        for (int j : candidates) q[model.idx_q[j]] += spread * unit(rng);
        try {
          makeConsistent(set, q, v);
          projected = true;
        } catch (const ModelError&) {
        }
      }
      ASSERT_TRUE(projected);
      // The bounded dofs must be free to move with the loops closed (rows of J_l on the
      // null space of J_eq well conditioned): a dof the loops lock cannot be held by a
      // bound independently, and its mode would not be unique.
      Data data(model);
      ConstraintData cdata(set);
      computeConstraintTerms(set, data, q, v, cdata, kConstraintErrors | kConstraintJacobian);
      MatrixX null_space = MatrixX::Identity(nv, nv);
      if (m_eq > 0) {
        Eigen::JacobiSVD<MatrixX> svd(cdata.J, Eigen::ComputeFullV);
        svd.setThreshold(1e-9);
        null_space = svd.matrixV().rightCols(nv - svd.rank());
      }
      std::vector<int> chosen;
      for (int draw = 0; draw < 50 && chosen.empty(); ++draw) {
        std::vector<int> pick = candidates;
        std::shuffle(pick.begin(), pick.end(), rng);
        pick.resize(static_cast<std::size_t>(limits));
        MatrixX rows_on_null(limits, null_space.cols());
        for (int k = 0; k < limits; ++k) rows_on_null.row(k) = null_space.row(model.idx_v[pick[static_cast<std::size_t>(k)]]);
        if (Eigen::JacobiSVD<MatrixX>(rows_on_null).singularValues().minCoeff() > 0.1) chosen = pick;
      }
      ASSERT_FALSE(chosen.empty()) << "no free pair of dofs";
      std::vector<LimitedDof> dofs;
      VectorX v_eq(nv);
      for (int i = 0; i < nv; ++i) v_eq[i] = unit(rng);
      const double inf = std::numeric_limits<double>::infinity();
      for (std::size_t k = 0; k < chosen.size(); ++k) {
        const int j = chosen[k], iq = model.idx_q[j], iv = model.idx_v[j];
        const double gap = 1e-4 * (1.0 + unit(rng) * 0.5);
        // The first at its lower bound moving down, the second at its upper bound moving up.
        if (k == 0) {
          dofs.push_back({j, iq, iv, q[iq] - gap, inf});
          v_eq[iv] = -1.0 - std::abs(unit(rng));
        } else {
          dofs.push_back({j, iq, iv, -inf, q[iq] + gap});
          v_eq[iv] = 1.0 + std::abs(unit(rng));
        }
      }
      const VectorX added = VectorX::Constant(nv, 0.01);
      UnilateralStep step(set, dofs, JointLimitSettings{});
      VectorX v_next = v_eq, lambda_eq = VectorX::Zero(m_eq);
      const UnilateralStepResult result = step.apply(q, v, dt, added, T, {}, v_next, lambda_eq);
      ASSERT_GT(result.active_rows, 0);
      EXPECT_TRUE(result.solve.converged) << result.solve.residuals.worst();
      EXPECT_LE(result.solve.residuals.worst(), 1e-8);

      // The reference: M̃, J_eq, and each subset of the limit rows as equalities.
      MatrixX Mt = crba(model, data, q);
      Mt.diagonal() += added;
      int valid = 0;
      VectorX reference;
      for (unsigned subset = 1; subset < (1u << dofs.size()); ++subset) {
        std::vector<int> rows;
        for (std::size_t k = 0; k < dofs.size(); ++k) {
          if (subset & (1u << k)) rows.push_back(static_cast<int>(k));
        }
        MatrixX J = MatrixX::Zero(m_eq + static_cast<int>(rows.size()), nv);
        VectorX target(J.rows());
        if (m_eq > 0) {
          J.topRows(m_eq) = cdata.J;
          target.head(m_eq) = cdata.J * v_eq;
        }
        for (std::size_t r = 0; r < rows.size(); ++r) {
          const LimitedDof& d = dofs[static_cast<std::size_t>(rows[r])];
          const double side = rows[r] == 0 ? 1.0 : -1.0;
          const double distance = side > 0 ? q[d.iq] - d.lower : d.upper - q[d.iq];
          J(m_eq + static_cast<int>(r), d.iv) = side;
          target[m_eq + static_cast<int>(r)] = -limitRowBias(distance, dt, 1e-3, T);
        }
        if (Eigen::FullPivLU<MatrixX>(J).rank() < J.rows()) continue;  // a dependent mode: not generic
        const Mode mode = solveMode(Mt, J, v_eq, target);
        bool ok = true;
        for (std::size_t r = 0; r < rows.size(); ++r) ok = ok && mode.lambda[m_eq + static_cast<int>(r)] >= -1e-9;
        for (std::size_t k = 0; k < dofs.size(); ++k) {
          if (subset & (1u << k)) continue;
          const LimitedDof& d = dofs[k];
          const double side = k == 0 ? 1.0 : -1.0;
          const double distance = side > 0 ? q[d.iq] - d.lower : d.upper - q[d.iq];
          ok = ok && side * mode.v[d.iv] + limitRowBias(distance, dt, 1e-3, T) >= -1e-9;
        }
        if (ok) {
          ++valid;
          reference = mode.v;
          if (rows.size() == 2) ++with_two_active;
          if (rows.size() < dofs.size()) ++with_one_released;
        }
      }
      ASSERT_EQ(valid, 1) << "one mode satisfies the complementarity";
      const double scale = std::max(1.0, reference.lpNorm<Eigen::Infinity>());
      EXPECT_LT((v_next - reference).lpNorm<Eigen::Infinity>() / scale, 1e-7);
      if (m_eq > 0) {
        EXPECT_LT((cdata.J * (v_next - v_eq)).lpNorm<Eigen::Infinity>(), 1e-8);
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 24);
  EXPECT_GT(with_two_active, 0) << "some states hold both bounds";
  std::printf("[ joint limits ] %d states, %d with both bounds held, %d with a bound released\n", checked,
              with_two_active, with_one_released);
}

// A step that reaches no bound is the equality solver's: v_next and λ untouched, bit for bit.
TEST(JointLimits, AStepThatReachesNoBoundIsLeftAsItWas) {
  const Scene scene = loadScene(scenesDir() / "four_bar.yaml");
  const Model& model = *scene.model;
  const ConstraintSet set(model, scene.constraints, 0.1);
  const int j = 1, iq = model.idx_q[j], iv = model.idx_v[j];
  const std::vector<LimitedDof> dofs = {{j, iq, iv, scene.q0[iq] - 0.1, scene.q0[iq] + 0.1}};
  UnilateralStep step(set, dofs, JointLimitSettings{});
  VectorX v_next = VectorX::Constant(model.nv, 0.3), lambda = VectorX::Constant(set.dimension(), 2.0);
  const VectorX v_before = v_next, lambda_before = lambda;
  const UnilateralStepResult result =
      step.apply(scene.q0, VectorX::Zero(model.nv), 1e-3, VectorX::Zero(model.nv), 0.1, {}, v_next, lambda);
  EXPECT_EQ(result.active_rows, 0);
  EXPECT_TRUE((v_next.array() == v_before.array()).all());
  EXPECT_TRUE((lambda.array() == lambda_before.array()).all());
}

// Pressed against its bound, the pendulum's steps allocate nothing (the active set unchanged).
TEST(JointLimits, StepsAtABoundDoNotAllocate) {
  Scene scene = loadScene(scenesDir() / "pendulum_limit.yaml");
  Simulation sim(scene);
  while (sim.time() < 0.5) sim.step();
  ASSERT_GT(sim.lastUnilateralStep().active_rows, 0);
  EXPECT_EQ(test::countHeapAllocations([&] {
              for (int k = 0; k < 10; ++k) sim.step();
            }),
            0);
  EXPECT_GT(sim.lastUnilateralStep().active_rows, 0);
}

// On a loop (the four-bar's equality rows eliminated) a step at a bound
// allocates nothing once that many limits have been active.
TEST(JointLimits, StepsOnALoopAtABoundDoNotAllocate) {
  const Scene scene = loadScene(scenesDir() / "four_bar.yaml");
  const Model& model = *scene.model;
  const ConstraintSet set(model, scene.constraints, 0.1);
  const int j = 1, iq = model.idx_q[j], iv = model.idx_v[j];
  const std::vector<LimitedDof> dofs = {{j, iq, iv, scene.q0[iq] - 1e-4, scene.q0[iq] + 1.0}};
  UnilateralStep step(set, dofs, JointLimitSettings{});
  const VectorX v = VectorX::Zero(model.nv), added = VectorX::Constant(model.nv, 0.01);
  VectorX v_next(model.nv), lambda(set.dimension());
  auto apply = [&] {
    v_next.setConstant(-0.5);
    lambda.setZero();
    return step.apply(scene.q0, v, 1e-3, added, 0.1, {}, v_next, lambda);
  };
  ASSERT_EQ(apply().active_rows, 1);
  UnilateralStepResult again;
  EXPECT_EQ(test::countHeapAllocations([&] { again = apply(); }), 0);
  EXPECT_EQ(again.active_rows, 1);
  EXPECT_TRUE(again.solve.converged);
}

// A model whose bounds are crossed (lower > upper) is refused naming the joint and the values.
TEST(JointLimits, CrossedBoundsAreRefused) {
  Scene scene = loadScene(scenesDir() / "pendulum_limit.yaml");
  Model model = *scene.model;
  model.lower_position_limit[0] = 2.0;
  model.upper_position_limit[0] = 1.0;
  try {
    limitedDofs(model);
    FAIL() << "no error";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("hinge"), std::string::npos) << what;
    EXPECT_NE(what.find("lower 2"), std::string::npos) << what;
    EXPECT_NE(what.find("upper 1"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace loopsim
