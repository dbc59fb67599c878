#pragma once
// `loopsim bench --scaling`: the papers' scaling studies (paper 000 Fig. 4):
// chains of n revolute links with a 6D weld at the tip (m = 6), and the
// ladder with m ~ n (a rung welded to the world every 3 rail links). Each
// solver that takes the set is timed like `bench` (consistent states, median
// over rounds) at every size, and its growth exponent is fitted by least
// squares on log(time) against log(nv).
#include <string>
#include <vector>

#include <loopsim/bench/solver_benchmark.hpp>

namespace loopsim {

struct ScalingPoint {
  std::string family;  // "chain" or "ladder"
  int nv = 0, m = 0;
  std::string solver;  // "aba" is the unconstrained floor
  double median_us = 0.0;
};

struct ScalingFit {
  std::string family, solver;
  double exponent = 0.0;  // time ~ nv^exponent
};

/// `solvers` empty: every registered solver that takes the sets.
std::vector<ScalingPoint> benchmarkScaling(const BenchOptions& options, const std::vector<std::string>& solvers = {});
std::vector<ScalingFit> fitScaling(const std::vector<ScalingPoint>& points);

/// CSV of the points, then "# fit" lines with the exponents.
std::string formatScaling(const std::vector<ScalingPoint>& points, const std::vector<ScalingFit>& fits);

}  // namespace loopsim
