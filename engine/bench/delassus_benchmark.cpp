#include <loopsim/bench/delassus_benchmark.hpp>

#include <loopsim/bench/case_grid.hpp>
#include <loopsim/bench/percentile.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <tuple>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/delassus/damped_delassus.hpp>
#include <loopsim/delassus/delassus.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

// One timed column: what it evaluates at q and its mean µs per q, per round.
struct Column {
  std::function<void(const VectorX&)> evaluate;
  std::vector<double> per_round_us;
};

// Every column once per round, the order rotated between rounds (as the
// solver table), so that each round's ratio to ABA compares like with like
// on a machine whose speed drifts.
void timeInterleaved(const std::vector<VectorX>& qs, const BenchOptions& options, std::vector<Column>& columns) {
  using Clock = std::chrono::steady_clock;
  for (int r = 0; r < options.warmup_rounds; ++r) {
    for (Column& c : columns) {
      for (const auto& q : qs) c.evaluate(q);
    }
  }
  const std::size_t n = columns.size();
  for (int r = 0; r < options.rounds; ++r) {
    for (std::size_t k = 0; k < n; ++k) {
      Column& c = columns[(k + static_cast<std::size_t>(r)) % n];
      const auto start = Clock::now();
      for (const auto& q : qs) c.evaluate(q);
      c.per_round_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                               static_cast<double>(qs.size()));
    }
  }
}

// Configurations near the scene's start (the Delassus matrix depends on q
// only: no projection needed; the constraints' targets do not enter).
std::vector<VectorX> delassusConfigurations(const Scene& scene, const BenchOptions& options) {
  if (options.samples < 1 || options.rounds < 1) {
    throw ModelError("", "BenchOptions", "samples (" + std::to_string(options.samples) + ") and rounds (" +
                                             std::to_string(options.rounds) + ") must be >= 1");
  }
  const Model& model = *scene.model;
  std::mt19937 rng(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  const VectorX q0 = scene.q0.size() == model.nq ? scene.q0 : neutral(model);
  std::vector<VectorX> qs;
  VectorX dq(model.nv);
  for (int s = 0; s < options.samples; ++s) {
    for (int k = 0; k < model.nv; ++k) dq[k] = 0.1 * normal(rng);
    VectorX q(model.nq);
    integrate(model, q0, dq, 1.0, q);
    qs.push_back(q);
  }
  return qs;
}

// Medians, spreads and ratios to the first column (ABA) of timed columns.
void summarise(const std::vector<Column>& columns, const std::vector<std::size_t>& result_of_column,
               std::vector<BenchResult>& results) {
  const std::vector<double>& floor = columns[0].per_round_us;
  for (std::size_t k = 0; k < columns.size(); ++k) {
    BenchResult& r = results[result_of_column[k]];
    const std::vector<double>& t = columns[k].per_round_us;
    r.median_us = percentile(t, 0.5);
    r.spread_us = percentile(t, 0.75) - percentile(t, 0.25);
    std::tie(r.ratio_to_aba, r.ratio_to_aba_spread) = medianRatio(t, floor);
  }
}

}  // namespace

std::vector<BenchResult> benchmarkDampedDelassus(const Scene& scene, const BenchOptions& options, double damping,
                                                 const std::vector<std::string>& algorithms) {
  const Model& model = *scene.model;
  const ConstraintSet set(model, scene.constraints, scene.time_constant);
  const int m = set.dimension();
  const std::vector<VectorX> qs = delassusConfigurations(scene, options);
  std::vector<std::string> names = algorithms;
  if (names.empty()) {
    for (const DelassusAlgorithmInfo& info : delassusAlgorithms()) {
      if (!info.loops_closed) names.push_back(info.name);  // the loops-closed ones invert the world rows only
    }
    names.push_back("pv-osim-fast");
  }
  std::vector<BenchResult> results;
  std::vector<Column> columns;
  Data data(model);
  const VectorX zero = VectorX::Zero(model.nv);
  results.push_back({scene.name, "aba", "unconstrained", 0, 0, options.samples, 0.0, -1.0, ""});
  columns.push_back({[&](const VectorX& q) { aba(model, data, q, zero, zero); }, {}});
  MatrixX reference = MatrixX::Zero(m, m), out = MatrixX::Zero(m, m);
  DampedDelassusInverse dense(set, "dense", damping);
  std::vector<std::unique_ptr<DampedDelassusInverse>> timed;
  std::vector<std::size_t> result_of_column = {0};
  for (const std::string& name : names) {
    BenchResult result{scene.name, name, "damped", 0, 0, options.samples, 0, -1, ""};
    try {
      auto inverse = std::make_unique<DampedDelassusInverse>(set, name, damping);
      double deviation = 0.0;  // max relative deviation from the dense route over the samples
      for (const VectorX& q : qs) {
        dense.compute(q, reference);
        inverse->compute(q, out);
        deviation = std::max(deviation, (out - reference).lpNorm<Eigen::Infinity>() /
                                             std::max(1e-300, reference.lpNorm<Eigen::Infinity>()));
      }
      result.max_vdot_deviation = deviation;
      DampedDelassusInverse* raw = inverse.get();
      timed.push_back(std::move(inverse));
      columns.push_back({[raw, &out](const VectorX& q) { raw->compute(q, out); }, {}});
      result_of_column.push_back(results.size());
    } catch (const ModelError& e) {
      result.note = e.what();
    }
    results.push_back(result);
  }
  timeInterleaved(qs, options, columns);
  summarise(columns, result_of_column, results);
  return results;
}

std::vector<BenchResult> benchmarkDelassus(const Scene& scene, const BenchOptions& options,
                                           const std::vector<std::string>& algorithms) {
  const Model& model = *scene.model;
  const ConstraintSet set(model, scene.constraints, scene.time_constant);
  const int m = set.dimension();
  const std::vector<VectorX> qs = delassusConfigurations(scene, options);
  const VectorX zero = VectorX::Zero(model.nv);
  std::vector<BenchResult> results;
  std::vector<Column> columns;
  Data data(model);
  results.push_back({scene.name, "aba", "unconstrained", 0, 0, options.samples, 0.0, -1.0, ""});
  columns.push_back({[&](const VectorX& q) { aba(model, data, q, zero, zero); }, {}});
  MatrixX reference = MatrixX::Zero(m, m), out = MatrixX::Zero(m, m);
  auto dense = makeDelassusAlgorithm("dense", set);
  auto dense_closed = makeDelassusAlgorithm("dense-closed", set);  // the reference of the loops-closed ones
  std::vector<std::unique_ptr<DelassusAlgorithm>> timed;
  std::vector<std::size_t> result_of_column = {0};
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
      DelassusAlgorithm* raw = algorithm.get();
      timed.push_back(std::move(algorithm));
      columns.push_back({[raw, &out](const VectorX& q) { raw->compute(q, out); }, {}});
      result_of_column.push_back(results.size());
    } catch (const ModelError& e) {
      result.note = e.what();
    }
    results.push_back(result);
  }
  timeInterleaved(qs, options, columns);
  summarise(columns, result_of_column, results);
  return results;
}

std::string formatDelassusTable(const std::vector<BenchResult>& results) {
  CaseGrid grid;
  for (const auto& r : results) {
    char cell[64];
    if (!r.note.empty()) {
      std::snprintf(cell, sizeof cell, "n/a");
    } else {
      std::snprintf(cell, sizeof cell, "%.2f x%.2f+-%.2f", r.median_us, r.ratio_to_aba, r.ratio_to_aba_spread);
    }
    grid.set(r.case_name, r.solver, cell);
  }
  std::string out = grid.format();
  const bool damped = std::any_of(results.begin(), results.end(), [](const BenchResult& r) { return r.mode == "damped"; });
  if (damped) {
    out += "Damped Delassus inverse (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹ at q: median µs per evaluation incl. kinematics; xR+-S =\n"
           "median and IQR of the per-round ratio to ABA (v = 0, τ = 0; columns interleaved in every round);\n"
           "the matrix algorithms form J M⁻¹ Jᵀ, then a Cholesky and the inverse; pv-osim-fast solves by\n"
           "paper 000 eq. 55 on L_b^A + μ⁻¹I without forming it\n";
    return out;
  }
  out += "Delassus J M⁻¹ Jᵀ at q: median µs per evaluation incl. kinematics; xR+-S = median and IQR of the\n"
         "per-round ratio to ABA (v = 0, τ = 0; columns interleaved in every round);\n"
         "dense-closed, cluster-efpa: with the internal loops closed (the world rows' Delassus)\n";
  return out;
}

}  // namespace loopsim
