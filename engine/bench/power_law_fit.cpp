#include <loopsim/bench/power_law_fit.hpp>

#include <cmath>

namespace loopsim {

double fitPowerLawExponent(const std::vector<std::pair<double, double>>& size_time) {
  const double n = static_cast<double>(size_time.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [size, time] : size_time) {
    const double x = std::log(size), y = std::log(time);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double denominator = n * sxx - sx * sx;
  return denominator > 0 ? (n * sxy - sx * sy) / denominator : 0.0;
}

}  // namespace loopsim
