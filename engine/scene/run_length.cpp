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

long scheduledStep(double time, double dt, const std::string& element) {
  if (!std::isfinite(time) || time < 0.0) {
    throw ModelError("", element, "must be a time >= 0 s (got " + formatNumber(time) + ")");
  }
  const double steps = std::round(time / dt);
  if (steps > kMaxRunSteps) {
    char step_text[40];  // ten digits: a step just past the limit reads as such
    std::snprintf(step_text, sizeof step_text, "%.10g", steps);
    throw ModelError("", element, "t = " + formatNumber(time) + " s at dt " + formatNumber(dt) + " s is step " +
                                      step_text + "; at most " + formatNumber(kMaxRunSteps) + " steps are allowed");
  }
  return static_cast<long>(steps);
}

long boundedStepCount(double time, double dt) {
  const double steps = std::round(time / dt);
  if (!(steps > 0.0)) return 0;  // negative or NaN
  return static_cast<long>(std::min(steps, kMaxRunSteps + 1.0));
}

}  // namespace loopsim
