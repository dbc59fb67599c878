#include <loopsim/scene/run_length.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {
std::string formatNumber(double x) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}
}  // namespace

void validateRunLength(double dt, double duration, const std::string& file, const std::string& dt_element,
                       const std::string& duration_element) {
  if (!std::isfinite(dt) || dt <= 0.0) throw ModelError(file, dt_element, "must be a finite number > 0 (got " + formatNumber(dt) + ")");
  if (!std::isfinite(duration) || duration <= 0.0) {
    throw ModelError(file, duration_element, "must be a finite number > 0 (got " + formatNumber(duration) + ")");
  }
  if (dt > duration) {
    throw ModelError(file, dt_element, "dt is longer than the duration (dt " + formatNumber(dt) + " s, duration " +
                                           formatNumber(duration) + " s)");
  }
  const double steps = duration / dt;
  if (steps > kMaxRunSteps) {
    throw ModelError(file, duration_element, "duration " + formatNumber(duration) + " s at dt " + formatNumber(dt) +
                                                 " s is " + formatNumber(steps) + " steps; at most " +
                                                 formatNumber(kMaxRunSteps) + " are allowed (shorten the duration or "
                                                 "lengthen dt)");
  }
}

long runStepCount(double dt, double duration) {
  return std::max(1L, static_cast<long>(std::llround(duration / dt)));
}

}  // namespace loopsim
