#pragma once
// Linear-interpolated percentile of a sample (p in [0, 1]), and the median
// and IQR of per-round ratios, for the bench tables.
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace loopsim {

inline double percentile(std::vector<double> x, double p) {
  std::sort(x.begin(), x.end());
  const double pos = p * static_cast<double>(x.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, x.size() - 1);
  return x[lo] + (pos - static_cast<double>(lo)) * (x[hi] - x[lo]);
}

/// Median and interquartile range of a[r] / b[r] over the rounds (columns
/// timed interleaved: each round's ratio compares like with like).
inline std::pair<double, double> medianRatio(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> ratio(a.size());
  for (std::size_t r = 0; r < a.size(); ++r) ratio[r] = a[r] / b[r];
  return {percentile(ratio, 0.5), percentile(ratio, 0.75) - percentile(ratio, 0.25)};
}

}  // namespace loopsim
