#include "bench/solver_benchmark.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <spdlog/spdlog.h>

#include "algorithms/configuration.hpp"
#include "algorithms/dynamics.hpp"
#include "constraints/projection.hpp"
#include "model/errors.hpp"
#include "solvers/registry.hpp"

namespace loopsim {

namespace {

struct State {
  VectorX q, v, tau;
};

// Random states near the scene's start, projected onto the constraint
// manifold (positions by Gauss-Newton, velocities in the M-norm).
std::vector<State> sampleStates(const Scene& scene, const ConstraintSet& set, const BenchOptions& options) {
  const Model& model = *scene.model;
  std::mt19937 rng(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<State> states;
  VectorX q0 = scene.q0.size() == model.nq ? scene.q0 : neutral(model);
  VectorX dq(model.nv);
  int attempts = 0;
  // Each projection logs its correction at info level: too chatty for N samples.
  const auto log_level = spdlog::get_level();
  spdlog::set_level(std::max(log_level, spdlog::level::warn));
  while (static_cast<int>(states.size()) < options.samples) {
    if (++attempts > 10 * options.samples + 10) {
      spdlog::set_level(log_level);
      throw ModelError(scene.source_file, "bench", "could not sample constraint-consistent states near the initial pose");
    }
    State s{VectorX(model.nq), VectorX(model.nv), VectorX(model.nv)};
    for (int k = 0; k < model.nv; ++k) dq[k] = 0.1 * normal(rng);
    integrate(model, q0, dq, 1.0, s.q);
    for (int k = 0; k < model.nv; ++k) s.v[k] = normal(rng), s.tau[k] = normal(rng);
    if (set.dimension() > 0) {
      try {
        makeConsistent(set, s.q, s.v, scene.held_joints);
      } catch (const ModelError&) {
        continue;  // a sample off the assembly branch: draw another
      }
    }
    states.push_back(std::move(s));
  }
  spdlog::set_level(log_level);
  return states;
}

double percentile(std::vector<double> x, double p) {
  std::sort(x.begin(), x.end());
  const double pos = p * static_cast<double>(x.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, x.size() - 1);
  return x[lo] + (pos - static_cast<double>(lo)) * (x[hi] - x[lo]);
}

// Times `evaluate(state)` over all states: warm-up, then rounds; returns the
// median and IQR of the per-evaluation mean of each round.
template <class Evaluate>
std::pair<double, double> timeRounds(const std::vector<State>& states, const BenchOptions& options, Evaluate&& evaluate) {
  using Clock = std::chrono::steady_clock;
  for (int r = 0; r < options.warmup_rounds; ++r) {
    for (const auto& s : states) evaluate(s);
  }
  std::vector<double> per_round;
  for (int r = 0; r < options.rounds; ++r) {
    const auto start = Clock::now();
    for (const auto& s : states) evaluate(s);
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    per_round.push_back(us / static_cast<double>(states.size()));
  }
  return {percentile(per_round, 0.5), percentile(per_round, 0.75) - percentile(per_round, 0.25)};
}

}  // namespace

std::vector<BenchResult> benchmarkScene(const Scene& scene, const BenchOptions& options) {
  if (options.samples < 1 || options.rounds < 1) throw ModelError("", "bench", "samples and rounds must be >= 1");
  const Model& model = *scene.model;
  const ConstraintSet set(model, scene.constraints, scene.time_constant);
  const std::vector<State> states = sampleStates(scene, set, options);
  const std::string case_name = scene.name;
  std::vector<BenchResult> results;

  // Reference accelerations from kkt (when the set is full rank).
  std::vector<VectorX> reference;
  try {
    auto kkt = makeSolver("kkt", set, scene.solver_settings);
    VectorX lambda(set.dimension());
    for (const auto& s : states) {
      Data data(model);
      passiveForces(model, data, s.q, s.v);
      VectorX vdot(model.nv);
      kkt->solve(s.q, s.v, s.tau + data.passive, {}, vdot, lambda);
      reference.push_back(vdot);
    }
  } catch (const ModelError&) {
    reference.clear();  // rank-deficient: no dense reference
  }

  // Floor: unconstrained ABA with passive forces, timed the same way.
  {
    Data data(model);
    const auto [median, spread] =
        timeRounds(states, options, [&](const State& s) { forwardDynamics(model, data, s.q, s.v, s.tau); });
    results.push_back({case_name, "aba", "unconstrained", median, spread, static_cast<int>(states.size()), 0.0, -1.0, ""});
  }

  for (const SolverInfo& info : solverRegistry()) {
    if (!options.solvers.empty() &&
        std::find(options.solvers.begin(), options.solvers.end(), info.name) == options.solvers.end()) {
      continue;
    }
    const std::string missing = missingCapability(info.capabilities, set);
    if (!missing.empty()) {
      results.push_back({case_name, info.name, "-", 0, 0, 0, 0, -1, "needs " + missing});
      continue;
    }
    if (scene.redundant && !info.capabilities.redundant) {
      results.push_back({case_name, info.name, "-", 0, 0, 0, 0, -1, "redundant set"});
      continue;
    }
    struct Mode {
      std::string name;
      SolverSettings settings;
    };
    std::vector<Mode> modes;
    SolverSettings base = scene.solver_settings;
    if (info.capabilities.iterative) {
      SolverSettings cold = base;
      cold.warm_start = false;
      cold.tolerance = options.tolerance;
      cold.max_iterations = std::max(cold.max_iterations, 1000);
      char tol[32];
      std::snprintf(tol, sizeof tol, "tol %.0e", options.tolerance);
      modes.push_back({tol, cold});
      for (int k : {1, 3}) {
        SolverSettings fixed = base;
        fixed.warm_start = false;
        fixed.tolerance = 0.0;
        fixed.max_iterations = k;
        modes.push_back({std::to_string(k) + " iter", fixed});
      }
    } else {
      modes.push_back({"direct", base});
    }
    for (const Mode& mode : modes) {
      BenchResult result{case_name, info.name, mode.name, 0, 0, static_cast<int>(states.size()), 0, -1, ""};
      try {
        auto solver = info.make(set, mode.settings);
        Data data(model);
        VectorX tau(model.nv), vdot(model.nv), lambda(set.dimension());
        long iterations = 0, solves = 0;
        double deviation = 0.0;
        for (std::size_t i = 0; i < states.size(); ++i) {
          const State& s = states[i];
          passiveForces(model, data, s.q, s.v);
          tau = s.tau + data.passive;
          iterations += solver->solve(s.q, s.v, tau, {}, vdot, lambda).iterations;
          ++solves;
          if (!reference.empty()) {
            const double scale = std::max(1.0, reference[i].lpNorm<Eigen::Infinity>());
            deviation = std::max(deviation, (vdot - reference[i]).lpNorm<Eigen::Infinity>() / scale);
          }
        }
        result.mean_iterations = static_cast<double>(iterations) / static_cast<double>(solves);
        result.max_vdot_deviation = reference.empty() ? -1.0 : deviation;
        const auto [median, spread] = timeRounds(states, options, [&](const State& s) {
          passiveForces(model, data, s.q, s.v);
          tau = s.tau + data.passive;
          solver->solve(s.q, s.v, tau, {}, vdot, lambda);
        });
        result.median_us = median;
        result.spread_us = spread;
      } catch (const ModelError& e) {
        result.note = e.what();
      }
      results.push_back(result);
    }
  }
  return results;
}

std::string formatBenchTable(const std::vector<BenchResult>& results) {
  // One row per case, one column per solver (and mode for iterative ones).
  // Cells: median µs, then the ratio to ltl in the same case, then the mean
  // iterations of iterative solvers run to tolerance.
  std::vector<std::string> columns, cases;
  std::map<std::pair<std::string, std::string>, std::string> cells;
  std::map<std::string, double> ltl;
  for (const auto& r : results) {
    if (r.solver == "ltl" && r.note.empty()) ltl[r.case_name] = r.median_us;
  }
  for (const auto& r : results) {
    const std::string column = r.mode == "direct" || r.mode == "unconstrained" || r.mode == "-" ? r.solver
                                                                                                : r.solver + " " + r.mode;
    if (std::find(columns.begin(), columns.end(), column) == columns.end()) columns.push_back(column);
    if (std::find(cases.begin(), cases.end(), r.case_name) == cases.end()) cases.push_back(r.case_name);
    char cell[96];
    if (!r.note.empty()) {
      std::snprintf(cell, sizeof cell, "n/a");
    } else {
      int n = std::snprintf(cell, sizeof cell, "%.2f", r.median_us);
      if (auto it = ltl.find(r.case_name); it != ltl.end() && it->second > 0) {
        n += std::snprintf(cell + n, sizeof cell - static_cast<std::size_t>(n), " x%.2f", r.median_us / it->second);
      }
      if (r.mode.rfind("tol", 0) == 0) {
        std::snprintf(cell + n, sizeof cell - static_cast<std::size_t>(n), " (%.1f it)", r.mean_iterations);
      }
    }
    cells[{r.case_name, column}] = cell;
  }
  std::size_t case_width = 4;
  for (const auto& c : cases) case_width = std::max(case_width, c.size());
  std::vector<std::size_t> widths;
  for (const auto& column : columns) {
    std::size_t w = column.size();
    for (const auto& c : cases) w = std::max(w, cells[{c, column}].size());
    widths.push_back(w);
  }
  auto pad = [](const std::string& x, std::size_t w) { return x + std::string(w > x.size() ? w - x.size() : 0, ' '); };
  std::string out = pad("case", case_width);
  for (std::size_t k = 0; k < columns.size(); ++k) out += "  " + pad(columns[k], widths[k]);
  out += "\n";
  for (const auto& c : cases) {
    out += pad(c, case_width);
    for (std::size_t k = 0; k < columns.size(); ++k) {
      const auto it = cells.find({c, columns[k]});
      out += "  " + pad(it == cells.end() ? "-" : it->second, widths[k]);
    }
    out += "\n";
  }
  out += "times: median µs per (q, v, τ) → (v̇, λ) evaluation incl. kinematics and constraint terms; xR = ratio to ltl\n";
  return out;
}

std::string formatBenchCsv(const std::vector<BenchResult>& results) {
  std::string out = "case,solver,mode,median_us,iqr_us,samples,mean_iterations,max_vdot_deviation,note\n";
  char line[512];
  for (const auto& r : results) {
    std::snprintf(line, sizeof line, "%s,%s,%s,%.6g,%.6g,%d,%.6g,%.6g,\"%s\"\n", r.case_name.c_str(), r.solver.c_str(),
                  r.mode.c_str(), r.median_us, r.spread_us, r.samples, r.mean_iterations, r.max_vdot_deviation,
                  r.note.c_str());
    out += line;
  }
  return out;
}

std::string formatBenchJson(const std::vector<BenchResult>& results) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json j{{"case", r.case_name},   {"solver", r.solver},
                     {"mode", r.mode},        {"median_us", r.median_us},
                     {"iqr_us", r.spread_us}, {"samples", r.samples},
                     {"mean_iterations", r.mean_iterations}};
    j["max_vdot_deviation_from_kkt"] = r.max_vdot_deviation >= 0 ? nlohmann::json(r.max_vdot_deviation) : nlohmann::json();
    if (!r.note.empty()) j["skipped"] = r.note;
    all.push_back(j);
  }
  return all.dump(2) + "\n";
}

}  // namespace loopsim
