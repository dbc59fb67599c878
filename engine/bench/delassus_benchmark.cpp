#include <loopsim/bench/delassus_benchmark.hpp>

#include <loopsim/bench/case_grid.hpp>
#include <loopsim/bench/percentile.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/delassus/delassus.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

template <class Evaluate>
std::pair<double, double> timeRounds(const std::vector<VectorX>& qs, const BenchOptions& options, Evaluate&& evaluate) {
  using Clock = std::chrono::steady_clock;
  for (int r = 0; r < options.warmup_rounds; ++r) {
    for (const auto& q : qs) evaluate(q);
  }
  std::vector<double> per_round;
  for (int r = 0; r < options.rounds; ++r) {
    const auto start = Clock::now();
    for (const auto& q : qs) evaluate(q);
    per_round.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                        static_cast<double>(qs.size()));
  }
  return {percentile(per_round, 0.5), percentile(per_round, 0.75) - percentile(per_round, 0.25)};
}

}  // namespace

std::vector<BenchResult> benchmarkDelassus(const Scene& scene, const BenchOptions& options,
                                           const std::vector<std::string>& algorithms) {
  if (options.samples < 1 || options.rounds < 1) throw ModelError("", "bench", "samples and rounds must be >= 1");
  const Model& model = *scene.model;
  const ConstraintSet set(model, scene.constraints, scene.time_constant);
  const int m = set.dimension();
  // The Delassus matrix depends on q only: configurations near the start
  // (no projection needed; the constraints' targets do not enter).
  std::mt19937 rng(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  const VectorX q0 = scene.q0.size() == model.nq ? scene.q0 : neutral(model);
  std::vector<VectorX> qs;
  VectorX dq(model.nv), zero = VectorX::Zero(model.nv);
  for (int s = 0; s < options.samples; ++s) {
    for (int k = 0; k < model.nv; ++k) dq[k] = 0.1 * normal(rng);
    VectorX q(model.nq);
    integrate(model, q0, dq, 1.0, q);
    qs.push_back(q);
  }
  std::vector<BenchResult> results;
  {
    Data data(model);
    const auto [median, spread] = timeRounds(qs, options, [&](const VectorX& q) { aba(model, data, q, zero, zero); });
    results.push_back({scene.name, "aba", "unconstrained", median, spread, options.samples, 0.0, -1.0, ""});
  }
  MatrixX reference = MatrixX::Zero(m, m), out = MatrixX::Zero(m, m);
  auto dense = makeDelassusAlgorithm("dense", set);
  auto dense_closed = makeDelassusAlgorithm("dense-closed", set);  // the reference of the loops-closed ones
  for (const DelassusAlgorithmInfo& info : delassusAlgorithms()) {
    if (!algorithms.empty() && std::find(algorithms.begin(), algorithms.end(), info.name) == algorithms.end()) continue;
    BenchResult result{scene.name, info.name, "delassus", 0, 0, options.samples, 0, -1, ""};
    try {
      auto algorithm = makeDelassusAlgorithm(info.name, set, scene.solver_settings.independent_dofs_internal_loops);
      double deviation = 0.0;  // max relative deviation from the reference over the samples
      for (const VectorX& q : qs) {
        (info.loops_closed ? dense_closed : dense)->compute(q, reference);
        algorithm->compute(q, out);
        deviation = std::max(deviation, (out - reference).lpNorm<Eigen::Infinity>() /
                                             std::max(1e-300, reference.lpNorm<Eigen::Infinity>()));
      }
      result.max_vdot_deviation = deviation;
      const auto [median, spread] = timeRounds(qs, options, [&](const VectorX& q) { algorithm->compute(q, out); });
      result.median_us = median;
      result.spread_us = spread;
    } catch (const ModelError& e) {
      result.note = e.what();
    }
    results.push_back(result);
  }
  return results;
}

std::string formatDelassusTable(const std::vector<BenchResult>& results) {
  CaseGrid grid;
  std::map<std::string, double> floor;
  for (const auto& r : results) {
    if (r.solver == "aba") floor[r.case_name] = r.median_us;
  }
  for (const auto& r : results) {
    char cell[64];
    if (!r.note.empty()) {
      std::snprintf(cell, sizeof cell, "n/a");
    } else if (auto it = floor.find(r.case_name); it != floor.end() && it->second > 0) {
      std::snprintf(cell, sizeof cell, "%.2f x%.2f", r.median_us, r.median_us / it->second);
    } else {
      std::snprintf(cell, sizeof cell, "%.2f", r.median_us);
    }
    grid.set(r.case_name, r.solver, cell);
  }
  std::string out = grid.format();
  out += "Delassus J M⁻¹ Jᵀ at q: median µs per evaluation incl. kinematics; xR = ratio to ABA (v = 0, τ = 0);\n"
         "dense-closed, cluster-efpa: with the internal loops closed (the world rows' Delassus)\n";
  return out;
}

}  // namespace loopsim
