#pragma once
// `loopsim bench --loop-scaling`: paper 001 §VI-C's scaling studies of the
// loop solvers (Figs. 6-9), one family per figure, each from a generator with
// the figure's size parameter:
//   Fig. 6  cycle                 n    links of one ring closed by a weld
//   Fig. 7  chain_of_loops        m_l  loops of 7 links (the paper's loop size)
//   Fig. 8  coupled_worst_case    m    branches from a 3-link stem to the
//                                      ground: every loop shares the stem
//   Fig. 9  favourable_branching  m_b  branches of 6 links from one hub, tips
//                                      of consecutive branches welded together
//           favourable_branching_grounded  the same with the world as the hub:
//                                      only then does paper 001's claim hold
//                                      that no link is eliminated with more
//                                      than one neighbour (a moving hub
//                                      couples every next tip to it: two)
// Every size is a `bench` case (benchmarkScene: consistent states, columns
// timed in interleaved rounds, medians, ABA as the floor); iterative solvers
// get the paper's measure (the first prox/ALM iteration, "1 iter") and a
// cold start to the tolerance. The growth exponent of each column is fitted
// over the largest sizes against the number of links (= nv here: every
// joint is revolute), so ~1 is linear growth.
#include <functional>
#include <string>
#include <vector>

#include <loopsim/bench/solver_benchmark.hpp>
#include <loopsim/scene/generators.hpp>

namespace loopsim {

struct LoopScalingFamily {
  std::string name;       // the generator's name, with a suffix for a variant
  std::string figure;     // "paper 001 Fig. 6"
  std::string size_name;  // the figure's size parameter ("n", "m_l", "m", "m_b")
  std::vector<int> sizes;  // default sizes, smallest first (~8 to 200+ links)
  std::function<GeneratedMechanism(int size)> make;
};

/// The five families in figure order.
const std::vector<LoopScalingFamily>& loopScalingFamilies();

/// The default columns: the loop solvers, the joint-space ones, kkt (ABA is always timed).
const std::vector<std::string>& loopScalingSolvers();

struct LoopScalingOptions {
  // samples, rounds, threads; bench.solvers empty: loopScalingSolvers(); with
  // one thread the passes are timed by its CPU clock (thread_cpu_time is set)
  BenchOptions bench;
  std::vector<std::string> families;  // empty: all four
  int max_links = 0;                  // > 0: only the sizes with at most this many links
  int fit_sizes = 4;                  // the fit uses this many of the largest sizes
};

struct LoopScalingPoint {
  std::string family, size_name;
  int size = 0, links = 0, constraint_dim = 0;
  BenchResult result;  // one column (solver and mode) at this size
};

struct LoopScalingFit {
  std::string family, column;  // column: "lcaba 1 iter", "kkt", "aba", ...
  double exponent = 0.0;       // time ~ links^exponent
  double last_step_exponent = 0.0;  // the slope between the two largest sizes alone
  double ratio_exponent = 0.0;      // ratio to ABA ~ links^ratio_exponent (0 for ABA itself)
  int from_links = 0, to_links = 0, sizes = 0;  // the sizes the fit used
};

/// Throws ModelError for an unknown family, or when max_links leaves a family
/// fewer than two sizes (no exponent to fit).
std::vector<LoopScalingPoint> benchmarkLoopScaling(const LoopScalingOptions& options);

/// One fit per (family, column) over its `fit_sizes` largest sizes (all when
/// fewer); columns skipped at some size fit the sizes they have.
std::vector<LoopScalingFit> fitLoopScaling(const std::vector<LoopScalingPoint>& points, int fit_sizes);

/// Per family: a table (one row per size, one column per solver and mode,
/// median µs) and its exponent lines under it.
std::string formatLoopScalingTable(const std::vector<LoopScalingPoint>& points, const std::vector<LoopScalingFit>& fits);
/// One CSV row per point, then "# fit" lines.
std::string formatLoopScalingCsv(const std::vector<LoopScalingPoint>& points, const std::vector<LoopScalingFit>& fits);

}  // namespace loopsim
