#pragma once
// Linear-interpolated percentile of a sample (p in [0, 1]), for the bench tables.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace loopsim {

inline double percentile(std::vector<double> x, double p) {
  std::sort(x.begin(), x.end());
  const double pos = p * static_cast<double>(x.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, x.size() - 1);
  return x[lo] + (pos - static_cast<double>(lo)) * (x[hi] - x[lo]);
}

}  // namespace loopsim
