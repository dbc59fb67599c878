#include <loopsim/bench/scaling_benchmark.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <spdlog/spdlog.h>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/bench/power_law_fit.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>
#include <loopsim/solvers/selection/auto_mu.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {

namespace {

struct Sample {
  VectorX q, v, tau;
};

std::vector<Sample> consistentSamples(const GeneratedMechanism& g, const ConstraintSet& set, const BenchOptions& options) {
  const Model& model = g.model;
  std::mt19937 rng(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<Sample> out;
  const auto level = spdlog::get_level();
  spdlog::set_level(std::max(level, spdlog::level::warn));
  for (int attempt = 0; static_cast<int>(out.size()) < options.samples && attempt < 10 * options.samples; ++attempt) {
    Sample s{VectorX(model.nq), VectorX(model.nv), VectorX(model.nv)};
    VectorX dq(model.nv);
    for (int k = 0; k < model.nv; ++k) dq[k] = 0.05 * normal(rng), s.v[k] = normal(rng), s.tau[k] = normal(rng);
    integrate(model, g.q0, dq, 1.0, s.q);
    try {
      makeConsistent(set, s.q, s.v);
    } catch (const ModelError&) {
      continue;
    }
    out.push_back(std::move(s));
  }
  spdlog::set_level(level);
  if (out.empty()) throw ModelError("", "bench --scaling", "could not sample consistent states of " + g.model.name);
  return out;
}

template <class Evaluate>
double medianTime(const std::vector<Sample>& samples, const BenchOptions& options, Evaluate&& evaluate) {
  using Clock = std::chrono::steady_clock;
  for (int r = 0; r < options.warmup_rounds; ++r) {
    for (const auto& s : samples) evaluate(s);
  }
  std::vector<double> rounds;
  for (int r = 0; r < options.rounds; ++r) {
    const auto start = Clock::now();
    for (const auto& s : samples) evaluate(s);
    rounds.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                     static_cast<double>(samples.size()));
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace

std::vector<ScalingPoint> benchmarkScaling(const BenchOptions& options, const std::vector<std::string>& solvers) {
  // The generated chains and ladders declare no independent coordinates: a
  // solver that needs them (cluster-aba) is left out, and refused when named.
  for (const std::string& name : solvers) {
    const SolverInfo* info = findSolver(name);
    if (info != nullptr && info->capabilities.needs_independent_joints) {
      throw ModelError("", "--solver", "'" + name +
                                           "' needs declared independent coordinates (scene key 'independent'), "
                                           "which --scaling's generated chains and ladders do not have");
    }
  }
  std::vector<std::pair<std::string, GeneratedMechanism>> cases;
  for (int n : {8, 16, 32, 64, 128, 200}) {
    PendulumChainParams p;
    p.links = n;
    cases.emplace_back("chain", pendulumChain(p));
  }
  for (int rungs : {2, 4, 8, 16, 32}) {
    LadderParams p;
    p.rungs = rungs;
    cases.emplace_back("ladder", ladderMechanism(p));
  }
  std::vector<ScalingPoint> points;
  for (const auto& [family, g] : cases) {
    const Model& model = g.model;
    const ConstraintSet set(model, g.constraints);
    const auto samples = consistentSamples(g, set, options);
    {
      Data data(model);
      points.push_back({family, model.nv, set.dimension(), "aba",
                        medianTime(samples, options, [&](const Sample& s) { aba(model, data, s.q, s.v, s.tau); })});
    }
    for (const SolverInfo& info : solverRegistry()) {
      if (!solvers.empty() && std::find(solvers.begin(), solvers.end(), info.name) == solvers.end()) continue;
      if (!missingCapability(info.capabilities, set).empty() || info.capabilities.needs_independent_joints) continue;
      // μ as a simulation binds it (the penalty solvers' default mu: auto,
      // docs/solvers.md): kDefaultMu would time lcaba at an inaccurate μ.
      SolverSettings settings = resolveAutoMu(SolverSettings{}, info.capabilities, set, samples.front().q, VectorX());
      settings.warm_start = false;
      if (info.capabilities.iterative) settings.max_iterations = 3, settings.tolerance = 0.0;  // 3 iterations
      auto solver = info.make(set, settings);
      VectorX vdot(model.nv), lambda(set.dimension());
      const double t = medianTime(samples, options, [&](const Sample& s) {
        solver->solve(s.q, s.v, s.tau, {}, vdot, lambda);
      });
      points.push_back({family, model.nv, set.dimension(), info.name + (info.capabilities.iterative ? " (3 it)" : ""), t});
    }
  }
  return points;
}

std::vector<ScalingFit> fitScaling(const std::vector<ScalingPoint>& points) {
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> series;
  for (const auto& p : points) series[{p.family, p.solver}].push_back({p.nv, p.median_us});
  std::vector<ScalingFit> fits;
  for (const auto& [key, size_time] : series) fits.push_back({key.first, key.second, fitPowerLawExponent(size_time)});
  return fits;
}

std::string formatScaling(const std::vector<ScalingPoint>& points, const std::vector<ScalingFit>& fits) {
  std::string out = "family,nv,m,solver,median_us\n";
  char line[256];
  for (const auto& p : points) {
    std::snprintf(line, sizeof line, "%s,%d,%d,%s,%.4g\n", p.family.c_str(), p.nv, p.m, p.solver.c_str(), p.median_us);
    out += line;
  }
  for (const auto& f : fits) {
    std::snprintf(line, sizeof line, "# fit %s %s: time ~ nv^%.2f\n", f.family.c_str(), f.solver.c_str(), f.exponent);
    out += line;
  }
  return out;
}

}  // namespace loopsim
