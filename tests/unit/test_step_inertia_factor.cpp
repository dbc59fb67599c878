// The contact step's factor of M̃ = M + dt·D (step_inertia_factor.hpp): the
// choice by the tree, both factorisations against a dense LLT on random poses
// and random rows (the whitened Delassus matrix and the velocity change), and
// whole contact and limit runs that do not depend on which factor they used.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/contact/step_inertia_factor.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/generators.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>

#include "quiet_log.hpp"
#include "test_models.hpp"

namespace loopsim {
namespace {

std::filesystem::path scenesDir() { return std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes"; }

TEST(StepInertiaFactor, ChoosesLtlOnLargeBranchedTreesAndDenseOtherwise) {
  const test::QuietLog quiet;
  EXPECT_EQ(chooseFactorization(test::fixedChain7()), StepFactorization::dense);
  const Model chain = spatialChain({.links = 40}).model;  // large, but a chain: L is full
  ASSERT_GE(chain.nv, kLtlFromDofs);
  EXPECT_EQ(chooseFactorization(chain), StepFactorization::dense);
  const Scene box = loadScene(scenesDir() / "box_drop.yaml");  // one free body: LTDL has the dense pattern
  EXPECT_EQ(chooseFactorization(*box.model), StepFactorization::dense);
  const Scene go1 = loadScene(scenesDir() / "go1_ground.yaml");  // branched, but small
  EXPECT_EQ(chooseFactorization(*go1.model), StepFactorization::dense);
  const Scene atlas = loadScene(scenesDir() / "atlas_ground.yaml");
  EXPECT_EQ(chooseFactorization(*atlas.model), StepFactorization::ltl);
}

// X = J F⁻ᵀ gives X Xᵀ = J M̃⁻¹ Jᵀ and F⁻ᵀ Xᵀ λ = M̃⁻¹ Jᵀ λ, for both factors, on
// random poses of branched and serial models with a random added diagonal.
TEST(StepInertiaFactor, BothFactorsGiveTheDelassusMatrixAndTheVelocityChange) {
  std::vector<Model> models{test::floatingHumanoid(), humanoidTree().model, test::branchingTree(),
                            test::fixedChain7()};
  std::mt19937 rng(31);
  for (const Model& model : models) {
    Data data(model);
    for (const StepFactorization kind : {StepFactorization::dense, StepFactorization::ltl}) {
      SCOPED_TRACE(model.name + " " + std::string(stepFactorizationName(kind)));
      StepInertiaFactor factor(model, kind);
      for (int trial = 0; trial < 5; ++trial) {
        const VectorX q = randomConfiguration(model, rng);
        MatrixX M = crba(model, data, q);
        std::uniform_real_distribution<double> damping(0.0, 0.5);
        for (int i = 0; i < model.nv; ++i) M(i, i) += damping(rng);
        const int m = 1 + trial * 3;
        std::srand(static_cast<unsigned>(100 + trial));
        const MatrixX J = MatrixX::Random(m, model.nv);
        const VectorX lambda = VectorX::Random(m);

        factor.factorize(M);
        MatrixX X = J;
        factor.whitenRows(X);
        VectorX dv = X.transpose() * lambda;
        factor.unwhiten(dv);

        const Eigen::LLT<MatrixX> llt(M);
        const MatrixX G_ref = J * llt.solve(J.transpose());
        const VectorX dv_ref = llt.solve(J.transpose() * lambda);
        EXPECT_LE((X * X.transpose() - G_ref).norm(), 1e-10 * G_ref.norm());
        EXPECT_LE((dv - dv_ref).norm(), 1e-10 * dv_ref.norm());
      }
    }
  }
}

TEST(StepInertiaFactor, RefusesAnInertiaThatIsNotPositiveDefinite) {
  const Model model = test::floatingHumanoid();
  for (const StepFactorization kind : {StepFactorization::dense, StepFactorization::ltl}) {
    StepInertiaFactor factor(model, kind);
    EXPECT_THROW(factor.factorize(-MatrixX::Identity(model.nv, model.nv)), ModelError)
        << stepFactorizationName(kind);
  }
}

// A run of contacts (Go1 landing on its feet, the dropped cube) and of a joint
// limit: the same motion whichever factor the step used (the problems are the
// same; only rounding differs, and the solvers stop at 1e-10).
TEST(StepInertiaFactor, ContactAndLimitRunsDoNotDependOnTheFactor) {
  test::QuietLog quiet;
  for (const char* file : {"go1_ground.yaml", "atlas_ground.yaml", "box_drop.yaml", "pendulum_limit.yaml"}) {
    SCOPED_TRACE(file);
    Scene dense_scene = loadScene(scenesDir() / file);
    Scene ltl_scene = loadScene(scenesDir() / file);
    dense_scene.contact_factorization = StepFactorization::dense;
    ltl_scene.contact_factorization = StepFactorization::ltl;
    Simulation dense(std::move(dense_scene)), ltl(std::move(ltl_scene));
    for (int k = 0; k < 1000; ++k) {
      ASSERT_TRUE(dense.step());
      ASSERT_TRUE(ltl.step());
    }
    EXPECT_GT(dense.contactTotals().steps_in_contact + dense.jointLimitTotals().steps_at_bound, 100);
    EXPECT_LE((dense.q() - ltl.q()).lpNorm<Eigen::Infinity>(), 1e-7);
    EXPECT_LE((dense.v() - ltl.v()).lpNorm<Eigen::Infinity>(), 1e-6);
  }
}

TEST(StepInertiaFactor, SceneKeyNamesTheFactorisation) {
  test::QuietLog quiet;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "loopsim_step_factor";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& value) {
    const std::filesystem::path file = dir / ("scene_" + value + ".yaml");
    std::ofstream(file) << "bodies:\n  - {name: cube, shape: box, size: [0.2, 0.2, 0.2], mass: 1, "
                           "pose: {position: [0, 0, 0.2]}}\nground: {height: 0}\ncontact: {factorization: "
                        << value << "}\n";
    return file;
  };
  EXPECT_EQ(loadScene(write("ltl")).contact_factorization, StepFactorization::ltl);
  EXPECT_EQ(loadScene(write("dense")).contact_factorization, StepFactorization::dense);
  EXPECT_FALSE(loadScene(write("auto")).contact_factorization.has_value());
  try {
    loadScene(write("sparse"));
    FAIL() << "an unknown factorisation was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown factorization 'sparse'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("scene_sparse.yaml"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace loopsim
