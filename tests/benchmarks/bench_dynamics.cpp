// Core recursions on the floating humanoid-size test model (nv 37, 32 bodies).
#include <benchmark/benchmark.h>

#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/solvers/joint_space/ltl_factorization.hpp>
#include "test_models.hpp"

using namespace loopsim;

namespace {

struct Fixture {
  Model model = test::floatingHumanoid();
  Data data{model};
  VectorX q, v, tau;
  Fixture() {
    std::mt19937 rng(601);
    std::normal_distribution<double> g(0.0, 1.0);
    q = randomConfiguration(model, rng);
    v = VectorX::NullaryExpr(model.nv, [&](Eigen::Index) { return g(rng); });
    tau = VectorX::NullaryExpr(model.nv, [&](Eigen::Index) { return g(rng); });
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void BM_ForwardKinematics(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) {
    forwardKinematics(f.model, f.data, f.q, f.v);
    benchmark::DoNotOptimize(f.data.v.back());
  }
}

void BM_Rnea(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(rnea(f.model, f.data, f.q, f.v, f.tau).data());
}

void BM_Crba(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(crba(f.model, f.data, f.q).data());
}

// One triangle, as a peer's CRBA fills it (the other is then read through the symmetry).
void BM_CrbaLowerTriangle(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(crba(f.model, f.data, f.q, MassMatrixFill::LowerTriangle).data());
}

void BM_Aba(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(aba(f.model, f.data, f.q, f.v, f.tau).data());
}

// Featherstone's LTDL of the CRBA matrix (the ltl family's factorisation).
void BM_LtdlFactorize(benchmark::State& state) {
  Fixture& f = fixture();
  const MatrixX M = crba(f.model, f.data, f.q);
  LtlFactorization ltl(f.model);
  for (auto _ : state) {
    ltl.factorize(M);
    benchmark::DoNotOptimize(ltl.D().data());
  }
}

// x ← M⁻¹ x through the factors (two sweeps and D⁻¹).
void BM_LtdlSolve(benchmark::State& state) {
  Fixture& f = fixture();
  const MatrixX M = crba(f.model, f.data, f.q);
  LtlFactorization ltl(f.model);
  ltl.factorize(M);
  VectorX x = f.tau;
  for (auto _ : state) {
    ltl.solve(x);
    benchmark::DoNotOptimize(x.data());
  }
}

}  // namespace

BENCHMARK(BM_ForwardKinematics);
BENCHMARK(BM_Rnea);
BENCHMARK(BM_Crba);
BENCHMARK(BM_CrbaLowerTriangle);
BENCHMARK(BM_Aba);
BENCHMARK(BM_LtdlFactorize);
BENCHMARK(BM_LtdlSolve);
