#pragma once
// `loopsim bench`: times the whole constrained-dynamics evaluation
// (q, v, τ) → (v̇, λ), kinematics and constraint terms included, for each
// solver on pre-sampled constraint-consistent states of a scene, with
// bare ABA (no passive forces) as the floor. The columns are timed in
// interleaved rounds (order rotated per round) and compared by the median of
// per-round ratios, which a noisy shared machine cannot skew. With
// options.threads > 1 every pass is split over that many threads (each with
// its own solver and workspace) and timed as a whole. Iterative solvers are timed
// cold-started to a tolerance and at fixed 1 and 3 iterations (paper 001
// Table II; options.fixed_iterations), at the scene's μ or, for mu: auto
// (lcaba's and constrained-aba's default), auto's μ at q0 for the M timed
// (without a simulation's implicit-damping diagonal), each cell with its v̇
// error against kkt. With options.trajectory
// the states are instead consecutive steps of the scene's own simulation and
// iterative solvers get one more column, warm-started from the previous
// state's λ as a running simulation does.
#include <string>
#include <vector>

#include <loopsim/scene/scene.hpp>

namespace loopsim {

struct BenchOptions {
  int samples = 50;         // consistent states per case
  int rounds = 20;          // timed passes over the states (after warm-up)
  int warmup_rounds = 2;
  double tolerance = 1e-10; // cold-start tolerance for iterative solvers
  std::vector<int> fixed_iterations = {1, 3};  // extra columns of iterative solvers at k iterations
  unsigned seed = 1;
  // Solver table: each timed pass's states split into `threads` contiguous
  // parts run at once, one solver and workspace per thread; a cell is then the
  // pass's wall time per state (1 / throughput). 1: one core's latency.
  int threads = 1;
  // With threads == 1: time each pass by the thread's CPU clock instead of the
  // wall clock, so the slices a loaded machine gives other processes are not
  // counted (a long pass is preempted more often than a short one, which
  // biases wall-clock ratios and growth exponents).
  bool thread_cpu_time = false;
  std::vector<std::string> solvers;  // empty: every registered solver that supports the case
  // Also time RNEA (at the state's q, v and an acceleration sample) and CRBA
  // (symmetric M at q) as columns beside the ABA floor, with their ratios to it.
  bool dynamics_algorithms = false;
  // Also time inverse dynamics with loops on the scene's declared independent
  // coordinates (paper 004 Table II): RNEA on the spanning tree (the
  // approximate method), cluster-rnea (C-RNEA) and projected-rnea (Gᵀ RNEA at
  // q̈ = G ÿ + g), at the state's q, v and ÿ = the τ sample's first n_y
  // entries; cluster-rnea's deviation is against projected-rnea's τ_y.
  bool cluster_inverse_dynamics = false;
  // Time no constrained solver: the ABA floor and the columns above only.
  bool no_solvers = false;
  // The states: the first `samples` steps of the scene's own simulation
  // (simulatedStates) instead of random consistent samples, and a "warm tol"
  // column for iterative solvers: to the tolerance, each solve starting from
  // the λ of the state before it (a pass's first state from its last one).
  bool trajectory = false;
};

struct BenchResult {
  std::string case_name;
  std::string solver;       // "aba" for the unconstrained floor
  std::string mode;         // "direct", "tol 1e-10", "warm tol 1e-10", "1 iter", "3 iter", "unconstrained"
  double median_us = 0.0;   // median over rounds of the mean time per evaluation
  double spread_us = 0.0;   // interquartile range over rounds
  int samples = 0;
  double mean_iterations = 0.0;
  double max_vdot_deviation = -1.0;  // max |v̇ - v̇_kkt| / max(1, |v̇_kkt|) over the states; -1 when kkt is unavailable
  std::string note;         // why a solver was skipped, if it was
  // Rounds are interleaved (every column once per round, order rotated), so
  // ratios are taken within each round: median and IQR of the per-round ratios.
  double ratio_to_aba = 0.0, ratio_to_aba_spread = 0.0;
  double ratio_to_ltl = 0.0;  // 0 when ltl is not in the table
  int threads = 1;            // threads a timed pass was split over (BenchOptions::threads)
  double mu = 0.0;            // μ an iterative solver ran with (resolved as a simulation binds it); 0 otherwise
};

/// Benchmarks one scene; the case is named after the scene.
std::vector<BenchResult> benchmarkScene(const Scene& scene, const BenchOptions& options);

std::string formatBenchTable(const std::vector<BenchResult>& results);
std::string formatBenchCsv(const std::vector<BenchResult>& results);
std::string formatBenchJson(const std::vector<BenchResult>& results);

}  // namespace loopsim
