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

// The timed columns of one scene: ABA first (the floor), then each algorithm
// checked against a reference on every configuration before it is timed.
class DelassusTable {
 public:
  DelassusTable(const Scene& scene, const BenchOptions& options)
      : scene_(scene),
        options_(options),
        qs_(delassusConfigurations(scene, options)),
        data_(*scene.model),
        zero_(VectorX::Zero(scene.model->nv)),
        m_(ConstraintSet(*scene.model, scene.constraints).dimension()) {
    results_.push_back({scene.name, "aba", "unconstrained", 0, 0, options.samples, 0.0, -1.0, ""});
    columns_.push_back({[this](const VectorX& q) { aba(*scene_.model, data_, q, zero_, zero_); }, {}});
    result_of_column_.push_back(0);
  }

  /// A column named `name` in `mode`: make() builds the algorithm (a
  /// ModelError becomes the column's note), reference(q, out) the matrix it
  /// must equal; its deviation is the largest relative one over the configurations.
  template <class Make, class Reference>
  void add(const std::string& name, const std::string& mode, Make make, Reference reference) {
    BenchResult result{scene_.name, name, mode, 0, 0, options_.samples, 0, -1, ""};
    try {
      auto algorithm = make();
      MatrixX expected = MatrixX::Zero(m_, m_), out = MatrixX::Zero(m_, m_);
      double deviation = 0.0;
      for (const VectorX& q : qs_) {
        reference(q, expected);
        algorithm->compute(q, out);
        deviation = std::max(deviation, (out - expected).template lpNorm<Eigen::Infinity>() /
                                             std::max(1e-300, expected.template lpNorm<Eigen::Infinity>()));
      }
      result.max_vdot_deviation = deviation;
      auto* raw = algorithm.get();
      auto buffer = std::make_shared<MatrixX>(MatrixX::Zero(m_, m_));
      keep_.push_back(std::shared_ptr<void>(std::move(algorithm)));
      columns_.push_back({[raw, buffer](const VectorX& q) { raw->compute(q, *buffer); }, {}});
      result_of_column_.push_back(results_.size());
    } catch (const ModelError& e) {
      result.note = e.what();
    }
    results_.push_back(std::move(result));
  }

  /// Times every column (interleaved) and returns the rows with their medians and ratios.
  std::vector<BenchResult> run() && {
    timeInterleaved(qs_, options_, columns_);
    const std::vector<double>& floor = columns_[0].per_round_us;
    for (std::size_t k = 0; k < columns_.size(); ++k) {
      BenchResult& r = results_[result_of_column_[k]];
      const std::vector<double>& t = columns_[k].per_round_us;
      r.median_us = percentile(t, 0.5);
      r.spread_us = percentile(t, 0.75) - percentile(t, 0.25);
      std::tie(r.ratio_to_aba, r.ratio_to_aba_spread) = medianRatio(t, floor);
    }
    return std::move(results_);
  }

 private:
  const Scene& scene_;
  const BenchOptions& options_;
  std::vector<VectorX> qs_;
  Data data_;
  VectorX zero_;
  int m_;  // constraint rows
  std::vector<BenchResult> results_;
  std::vector<Column> columns_;
  std::vector<std::size_t> result_of_column_;
  std::vector<std::shared_ptr<void>> keep_;  // the timed algorithms
};

}  // namespace

std::vector<BenchResult> benchmarkDampedDelassus(const Scene& scene, const BenchOptions& options, double damping,
                                                 const std::vector<std::string>& algorithms) {
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  std::vector<std::string> names = algorithms;
  if (names.empty()) {
    for (const DelassusAlgorithmInfo& info : delassusAlgorithms()) {
      if (!info.loops_closed) names.push_back(info.name);  // the loops-closed ones invert the world rows only
    }
    names.push_back("pv-osim-fast");
  }
  DelassusTable table(scene, options);
  DampedDelassusInverse dense(set, "dense", damping);
  for (const std::string& name : names) {
    table.add(
        name, "damped", [&] { return std::make_unique<DampedDelassusInverse>(set, name, damping); },
        [&](const VectorX& q, MatrixX& out) { dense.compute(q, out); });
  }
  return std::move(table).run();
}

std::vector<BenchResult> benchmarkDelassus(const Scene& scene, const BenchOptions& options,
                                           const std::vector<std::string>& algorithms) {
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  DelassusTable table(scene, options);
  auto dense = makeDelassusAlgorithm("dense", set);
  auto dense_closed = makeDelassusAlgorithm("dense-closed", set);  // the reference of the loops-closed ones
  for (const DelassusAlgorithmInfo& info : delassusAlgorithms()) {
    if (!algorithms.empty() && std::find(algorithms.begin(), algorithms.end(), info.name) == algorithms.end()) continue;
    DelassusAlgorithm* reference = info.loops_closed ? dense_closed.get() : dense.get();
    table.add(
        info.name, "delassus",
        [&] { return makeDelassusAlgorithm(info.name, set, scene.solver_settings.independent_dofs_internal_loops); },
        [reference](const VectorX& q, MatrixX& out) { reference->compute(q, out); });
  }
  return std::move(table).run();
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
         "per-round ratio to ABA (v = 0, τ = 0; columns interleaved in every round)\n";
  // The loops-closed columns present, named in the footnote.
  std::string loops_closed;
  for (const DelassusAlgorithmInfo& info : delassusAlgorithms()) {
    if (!info.loops_closed) continue;
    const bool present = std::any_of(results.begin(), results.end(),
                                     [&](const BenchResult& r) { return r.solver == info.name; });
    if (present) loops_closed += (loops_closed.empty() ? "" : ", ") + info.name;
  }
  if (!loops_closed.empty()) out += loops_closed + ": with the internal loops closed (the world rows' Delassus)\n";
  return out;
}

}  // namespace loopsim
