#pragma once
// Growth exponent of a timing series: the least-squares slope p of
// log(time) against log(size), i.e. time ~ c·size^p. Shared by the scaling
// studies of `loopsim bench` (--scaling, --loop-scaling).
#include <utility>
#include <vector>

namespace loopsim {

/// (size, time) pairs, both positive; 0 when fewer than two distinct sizes.
double fitPowerLawExponent(const std::vector<std::pair<double, double>>& size_time);

}  // namespace loopsim
