#include <loopsim/bench/solver_benchmark.hpp>

#include <loopsim/bench/case_grid.hpp>
#include <loopsim/bench/percentile.hpp>
#include <loopsim/bench/state_sampling.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <functional>
#include <memory>
#include <tuple>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <spdlog/spdlog.h>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/parallel/parallel_chunks.hpp>
#include <loopsim/parallel/worker_pool.hpp>
#include <loopsim/solvers/selection/auto_mu.hpp>
#include <loopsim/solvers/loops/cluster_rnea.hpp>
#include <loopsim/solvers/loops/projected_rnea.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {

namespace {

// One timed column of the table: a solver in one mode (or the ABA floor).
struct Entry {
  std::size_t result;  // index into the results
  // One (q, v, τ) → (v̇, λ) evaluation per thread, each with its own solver and workspace.
  std::vector<std::function<void(const SampledState&)>> evaluate;
  std::vector<double> per_round_us;  // wall µs per evaluation, per round
};

// Paper 004 Table II's columns (BenchOptions::cluster_inverse_dynamics): RNEA
// on the spanning tree, cluster-rnea and projected-rnea, each evaluator with
// its own workspace; cluster-rnea checked against projected-rnea first.
void addClusterInverseDynamics(const Scene& scene, const ConstraintSet& set, const std::vector<SampledState>& states,
                               std::size_t threads, bool with_rnea, std::vector<BenchResult>& results,
                               std::vector<Entry>& entries) {
  const Model& model = *scene.model;
  const std::vector<int>& independent = scene.solver_settings.independent_dofs;
  const int samples = static_cast<int>(states.size());
  if (with_rnea) {  // else the dynamics columns have it
    results.push_back({scene.name, "rnea", "unconstrained", 0, 0, samples, 0.0, -1.0, ""});
    Entry entry{results.size() - 1, {}, {}};
    for (std::size_t k = 0; k < threads; ++k) {
      auto data = std::make_shared<Data>(model);
      entry.evaluate.push_back([&model, data](const SampledState& s) { rnea(model, *data, s.q, s.v, s.tau); });
    }
    entries.push_back(std::move(entry));
  }
  ProjectedRnea reference(set, independent);
  ClusterRnea checked(set, independent);
  const int ny = reference.structure().independentDofs();
  VectorX tau_ref(ny), tau(ny);
  double deviation = 0.0;
  for (const SampledState& s : states) {
    reference.compute(s.q, s.v, s.tau.head(ny), {}, tau_ref);
    checked.compute(s.q, s.v, s.tau.head(ny), {}, tau);
    deviation = std::max(deviation, (tau - tau_ref).lpNorm<Eigen::Infinity>() /
                                        std::max(1.0, tau_ref.lpNorm<Eigen::Infinity>()));
  }
  for (const char* name : {"cluster-rnea", "projected-rnea"}) {
    const bool cluster = std::string(name) == "cluster-rnea";
    results.push_back({scene.name, name, "inverse", 0, 0, samples, 0.0, cluster ? deviation : -1.0, ""});
    Entry entry{results.size() - 1, {}, {}};
    for (std::size_t k = 0; k < threads; ++k) {
      auto out = std::make_shared<VectorX>(ny);
      if (cluster) {
        auto id = std::make_shared<ClusterRnea>(set, independent);
        entry.evaluate.push_back([id, out, ny](const SampledState& s) { id->compute(s.q, s.v, s.tau.head(ny), {}, *out); });
      } else {
        auto id = std::make_shared<ProjectedRnea>(set, independent);
        entry.evaluate.push_back([id, out, ny](const SampledState& s) { id->compute(s.q, s.v, s.tau.head(ny), {}, *out); });
      }
    }
    entries.push_back(std::move(entry));
  }
}

// Interleaved timing (docs/performance.md, "How loopsim measures"): every round times each entry once over all
// states, in an order rotated by one per round, so a slow or fast period of a
// shared machine hits every column alike; ratios are taken within a round.
// A pass runs its states split over the pool's threads (contiguous parts) and
// is timed from before the fork to after the join.
void timeInterleaved(std::vector<Entry>& entries, const std::vector<SampledState>& states, const BenchOptions& options) {
  using Clock = std::chrono::steady_clock;
  WorkerPool pool(options.threads);
  // The pool's caller runs part 0, so with one thread this thread's CPU clock
  // covers the whole pass.
  const bool cpu_clock = options.thread_cpu_time && pool.size() == 1;
  auto now_us = [cpu_clock] {
    if (cpu_clock) {
      timespec t{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      return 1e6 * static_cast<double>(t.tv_sec) + 1e-3 * static_cast<double>(t.tv_nsec);
    }
    return std::chrono::duration<double, std::micro>(Clock::now().time_since_epoch()).count();
  };
  auto pass = [&](Entry& e) {
    pool.run([&](int k) {
      const Chunk chunk = chunkOf(0, states.size(), pool.size(), k);
      const auto& evaluate = e.evaluate[static_cast<std::size_t>(k)];
      for (std::size_t i = chunk.begin; i < chunk.end; ++i) evaluate(states[i]);
    });
  };
  for (int r = 0; r < options.warmup_rounds; ++r) {
    for (Entry& e : entries) pass(e);
  }
  const std::size_t n = entries.size();
  for (int r = 0; r < options.rounds; ++r) {
    for (std::size_t k = 0; k < n; ++k) {
      Entry& e = entries[(k + static_cast<std::size_t>(r)) % n];
      const double start = now_us();
      pass(e);
      const double us = now_us() - start;
      e.per_round_us.push_back(us / static_cast<double>(states.size()));
    }
  }
}

// A solver with its own workspace: one timed thread's evaluation.
struct SolverEvaluator {
  SolverEvaluator(const Model& model, std::unique_ptr<ConstrainedSolver> s)
      : solver(std::move(s)), vdot(model.nv), lambda(solver->constraints().dimension()) {}
  // s.tau already holds the passive joint forces (added before timing).
  SolveStats operator()(const SampledState& s) { return solver->solve(s.q, s.v, s.tau, {}, vdot, lambda); }
  std::unique_ptr<ConstrainedSolver> solver;
  VectorX vdot, lambda;
};

}  // namespace

std::vector<BenchResult> benchmarkScene(const Scene& scene, const BenchOptions& options) {
  if (options.samples < 1 || options.rounds < 1) {
    throw ModelError("", "BenchOptions", "samples (" + std::to_string(options.samples) + ") and rounds (" +
                                             std::to_string(options.rounds) + ") must be >= 1");
  }
  const Model& model = *scene.model;
  const ConstraintSet set(model, scene.constraints, scene.time_constant);
  // τ of every state includes the passive joint forces (damping, springs),
  // added here once: every column, ABA's floor included, then times the
  // solve alone, as a peer's solve of the same τ would be timed.
  std::vector<SampledState> states = options.trajectory ? simulatedStates(scene, options.samples)
                                                        : sampleStates(scene, set, options.samples, options.seed);
  {
    Data data(model);
    for (SampledState& s : states) {
      passiveForces(model, data, s.q, s.v);
      s.tau += data.passive;
    }
  }
  const std::string case_name = scene.name;
  std::vector<BenchResult> results;

  // Reference accelerations from kkt (when the set is full rank).
  std::vector<VectorX> reference;
  try {
    auto kkt = makeSolver("kkt", set, scene.solver_settings);
    VectorX lambda(set.dimension());
    for (const auto& s : states) {
      VectorX vdot(model.nv);
      kkt->solve(s.q, s.v, s.tau, {}, vdot, lambda);
      reference.push_back(vdot);
    }
  } catch (const ModelError&) {
    reference.clear();  // rank-deficient: no dense reference
  }

  // Every timed column, with one evaluation per thread; each owns its workspace.
  if (options.threads < 1) throw ModelError("", "bench", "threads must be >= 1");
  const auto threads = static_cast<std::size_t>(options.threads);
  std::vector<Entry> entries;

  // Floor: bare unconstrained ABA (no passive forces), timed the same way.
  {
    results.push_back({case_name, "aba", "unconstrained", 0, 0, static_cast<int>(states.size()), 0.0, -1.0, ""});
    Entry floor{results.size() - 1, {}, {}};
    for (std::size_t k = 0; k < threads; ++k) {
      auto data = std::make_shared<Data>(model);
      floor.evaluate.push_back([&model, data](const SampledState& s) { aba(model, *data, s.q, s.v, s.tau); });
    }
    entries.push_back(std::move(floor));
  }
  if (options.dynamics_algorithms) {
    // The unconstrained algorithms beside the floor, interleaved with it like
    // every column. RNEA's acceleration argument is the state's τ sample (any
    // vector of that size times the same work). CRBA twice: the symmetric M,
    // and one triangle (what ltl factors, and what Pinocchio's crba returns:
    // its upper triangle), for a like-for-like comparison with that peer.
    for (const char* name : {"rnea", "crba", "crba-lower"}) {
      results.push_back({case_name, name, "unconstrained", 0, 0, static_cast<int>(states.size()), 0.0, -1.0, ""});
      Entry entry{results.size() - 1, {}, {}};
      const bool is_rnea = std::string(name) == "rnea";
      for (std::size_t k = 0; k < threads; ++k) {
        auto data = std::make_shared<Data>(model);
        if (is_rnea) {
          entry.evaluate.push_back([&model, data](const SampledState& s) { rnea(model, *data, s.q, s.v, s.tau); });
        } else if (std::string(name) == "crba") {
          entry.evaluate.push_back([&model, data](const SampledState& s) { crba(model, *data, s.q); });
        } else {
          entry.evaluate.push_back(
              [&model, data](const SampledState& s) { crba(model, *data, s.q, MassMatrixFill::LowerTriangle); });
        }
      }
      entries.push_back(std::move(entry));
    }
  }

  if (options.cluster_inverse_dynamics && !scene.solver_settings.independent_dofs.empty()) {
    addClusterInverseDynamics(scene, set, states, threads, !options.dynamics_algorithms, results, entries);
  }

  for (const SolverInfo& info : solverRegistry()) {
    if (options.no_solvers) break;
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
    // μ resolved at the scene's q0 (mu: auto, and the penalty solvers' default
    // auto) for the M timed here: without a simulation's implicit-damping
    // diagonal dt·D, which bench's solves leave out (as a peer's solve would),
    // so the μ is auto's for that M, not the one a simulation binds (Digit:
    // 3.4e4 here, 9e4 with its dt·D). A ratio is timed at the accuracy the
    // solver has on the M it solves.
    const SolverSettings base = resolveAutoMu(scene.solver_settings, info.capabilities, set,
                                              scene.q0.size() == model.nq ? scene.q0 : neutral(model), VectorX());
    if (info.capabilities.iterative) {
      SolverSettings cold = base;
      cold.warm_start = false;
      cold.tolerance = options.tolerance;
      cold.max_iterations = std::max(cold.max_iterations, 1000);
      char tol[32];
      std::snprintf(tol, sizeof tol, "tol %.0e", options.tolerance);
      modes.push_back({tol, cold});
      if (options.trajectory) {
        // As a simulation runs it: each solve starts from the previous state's λ.
        SolverSettings warm = cold;
        warm.warm_start = true;
        modes.push_back({std::string("warm ") + tol, warm});
      }
      for (int k : options.fixed_iterations) {
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
      if (info.capabilities.iterative) result.mu = mode.settings.muValue();
      try {
        std::vector<std::shared_ptr<SolverEvaluator>> evaluators;
        for (std::size_t k = 0; k < threads; ++k) {
          evaluators.push_back(std::make_shared<SolverEvaluator>(model, info.make(set, mode.settings)));
        }
        // Untimed pass: iterations and the deviation from kkt.
        SolverEvaluator& first = *evaluators.front();
        long iterations = 0, solves = 0;
        double deviation = 0.0;
        for (std::size_t i = 0; i < states.size(); ++i) {
          iterations += first(states[i]).iterations;
          ++solves;
          if (!reference.empty()) {
            const double scale = std::max(1.0, reference[i].lpNorm<Eigen::Infinity>());
            deviation = std::max(deviation, (first.vdot - reference[i]).lpNorm<Eigen::Infinity>() / scale);
          }
        }
        result.mean_iterations = static_cast<double>(iterations) / static_cast<double>(solves);
        result.max_vdot_deviation = reference.empty() ? -1.0 : deviation;
        results.push_back(result);
        Entry entry{results.size() - 1, {}, {}};
        for (auto& evaluator : evaluators) {
          entry.evaluate.push_back([evaluator](const SampledState& s) { (*evaluator)(s); });
        }
        entries.push_back(std::move(entry));
      } catch (const ModelError& e) {
        result.note = e.what();
        results.push_back(result);
      }
    }
  }

  timeInterleaved(entries, states, options);
  const Entry& floor = entries.front();
  const Entry* ltl = nullptr;
  for (const Entry& e : entries) {
    if (results[e.result].solver == "ltl") ltl = &e;
  }
  for (const Entry& e : entries) {
    BenchResult& r = results[e.result];
    r.median_us = percentile(e.per_round_us, 0.5);
    r.spread_us = percentile(e.per_round_us, 0.75) - percentile(e.per_round_us, 0.25);
    std::tie(r.ratio_to_aba, r.ratio_to_aba_spread) = medianRatio(e.per_round_us, floor.per_round_us);
    if (ltl != nullptr) r.ratio_to_ltl = medianRatio(e.per_round_us, ltl->per_round_us).first;
    r.threads = options.threads;
  }
  return results;
}

std::string formatBenchTable(const std::vector<BenchResult>& results) {
  // One row per case, one column per solver (and mode for iterative ones).
  // Cells: median µs, the median per-round ratio to ABA in the same case
  // (± its IQR), then the mean iterations of iterative solvers run to tolerance.
  CaseGrid grid;
  for (const auto& r : results) {
    const std::string column = r.mode == "direct" || r.mode == "unconstrained" || r.mode == "-" || r.mode == "inverse"
                                   ? r.solver
                                                                                                : r.solver + " " + r.mode;
    char cell[96];
    if (!r.note.empty()) {
      std::snprintf(cell, sizeof cell, "n/a");
    } else {
      int n = std::snprintf(cell, sizeof cell, "%.2f", r.median_us);
      if (r.solver != "aba") {
        n += std::snprintf(cell + n, sizeof cell - static_cast<std::size_t>(n), " x%.2f+-%.2f", r.ratio_to_aba,
                           r.ratio_to_aba_spread);
      }
      // Iterative solvers: the accuracy the time bought (e = the v̇ error vs kkt, below).
      const bool to_tolerance = r.mode.rfind("tol", 0) == 0 || r.mode.rfind("warm tol", 0) == 0;
      const bool fixed = r.mode.size() > 5 && r.mode.compare(r.mode.size() - 5, 5, " iter") == 0;
      if (to_tolerance && r.max_vdot_deviation >= 0.0) {
        std::snprintf(cell + n, sizeof cell - static_cast<std::size_t>(n), " (%.1f it, e %.0e)", r.mean_iterations,
                      r.max_vdot_deviation);
      } else if (to_tolerance) {
        std::snprintf(cell + n, sizeof cell - static_cast<std::size_t>(n), " (%.1f it)", r.mean_iterations);
      } else if (fixed && r.max_vdot_deviation >= 0.0) {
        std::snprintf(cell + n, sizeof cell - static_cast<std::size_t>(n), " (e %.0e)", r.max_vdot_deviation);
      }
    }
    grid.set(r.case_name, column, cell);
  }
  std::string out = grid.format();
  if (std::any_of(results.begin(), results.end(), [](const BenchResult& r) { return r.solver == "crba"; })) {
    out += "rnea, crba (--dynamics): RNEA at the state's q, v and an acceleration sample; CRBA's symmetric M at q;\n"
           "crba-lower: M's lower triangle only (what ltl factors; Pinocchio's crba returns one triangle, its upper)\n";
  }
  out += "times: median µs per (q, v, τ) → (v̇, λ) evaluation incl. kinematics and constraint terms (τ includes the\n"
         "passive joint forces, added before timing); xR+-S = median\n"
         "and IQR of the per-round ratio to bare ABA (columns interleaved in every round)\n"
         "iterative solvers start cold (λ⁰ = 0; a simulation warm-starts from the previous step's λ): to the tolerance\n"
         "(it = mean iterations) and at fixed iterations; e = max over the states of |v̇ - v̇_kkt|∞ / max(1, |v̇_kkt|∞)\n";
  if (std::any_of(results.begin(), results.end(), [](const BenchResult& r) { return r.mode.rfind("warm", 0) == 0; })) {
    out += "trajectory: the states are the first steps of each scene's own simulation, in order; warm tol = to the\n"
           "tolerance, each solve starting from the previous state's λ as a running simulation does (a pass's first\n"
           "state from its last)\n";
  }
  // The μ each iterative solver ran with, per case (the penalty solvers' default is mu: auto).
  std::string mus, case_name;
  for (const auto& r : results) {
    if (r.mu <= 0.0 || r.mode.rfind("tol", 0) != 0) continue;
    if (r.case_name != case_name) {
      mus += (mus.empty() ? "  " : "\n  ") + r.case_name + ":";
      case_name = r.case_name;
    } else {
      mus += ",";
    }
    char item[96];
    std::snprintf(item, sizeof item, " %s %.2g", r.solver.c_str(), r.mu);
    mus += item;
  }
  if (!mus.empty()) out += "μ as run:\n" + mus + "\n";
  const int threads = results.empty() ? 1 : std::max_element(results.begin(), results.end(), [](const auto& a, const auto& b) {
                                              return a.threads < b.threads;
                                            })->threads;
  if (threads > 1) {
    out += std::to_string(threads) +
           " threads: each pass's states are split over them (one solver each); µs = the pass's wall time per\n"
           "state, i.e. 1 / throughput (--threads 1: one core's latency)\n";
  }
  return out;
}

std::string formatBenchCsv(const std::vector<BenchResult>& results) {
  std::string out =
      "case,solver,mode,median_us,iqr_us,ratio_to_aba,ratio_to_aba_iqr,ratio_to_ltl,samples,mean_iterations,"
      "max_vdot_deviation,note,threads,mu\n";
  char line[512];
  for (const auto& r : results) {
    std::snprintf(line, sizeof line, "%s,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%.6g,%.6g,\"%s\",%d,%.6g\n", r.case_name.c_str(),
                  r.solver.c_str(), r.mode.c_str(), r.median_us, r.spread_us, r.ratio_to_aba, r.ratio_to_aba_spread,
                  r.ratio_to_ltl, r.samples, r.mean_iterations, r.max_vdot_deviation, r.note.c_str(), r.threads, r.mu);
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
                     {"mean_iterations", r.mean_iterations}, {"ratio_to_aba", r.ratio_to_aba},
                     {"ratio_to_aba_iqr", r.ratio_to_aba_spread}, {"ratio_to_ltl", r.ratio_to_ltl},
                     {"threads", r.threads}};
    j["max_vdot_deviation_from_kkt"] = r.max_vdot_deviation >= 0 ? nlohmann::json(r.max_vdot_deviation) : nlohmann::json();
    if (r.mu > 0.0) j["mu"] = r.mu;
    if (!r.note.empty()) j["skipped"] = r.note;
    all.push_back(j);
  }
  return all.dump(2) + "\n";
}

}  // namespace loopsim
