#pragma once
// How long a run is, checked once for the YAML keys and the command-line
// overrides alike: dt and duration finite and > 0, dt no longer than the
// duration, and a step count that fits (duration 1e300 or dt 1e-12 are
// typing mistakes, not runs).
#include <string>

namespace loopsim {

/// More steps than this is refused: at 1 µs per step it is already 17 minutes
/// of wall time per 1e9, and no scene here steps that fast.
inline constexpr double kMaxRunSteps = 1e9;

/// The checks above; the ModelError names `file` and `element` (a YAML path
/// with its line, or a command-line option) and the offending values.
void validateRunLength(double dt, double duration, const std::string& file, const std::string& dt_element,
                       const std::string& duration_element);

/// round(duration / dt), at least 1; call after validateRunLength.
long runStepCount(double dt, double duration);

/// The step at which something scheduled at `time` (s) happens, round(time / dt)
/// (a solver switch, the start of a comparison). Throws ModelError naming
/// `element` and the values when the time is not finite, is negative, or lies
/// more than kMaxRunSteps steps ahead (it would never be reached, and its step
/// count would not fit).
long scheduledStep(double time, double dt, const std::string& element);

/// round(time / dt) held at most kMaxRunSteps + 1 (and at least 0): a step count
/// that never overflows, for times checked elsewhere or not at all.
long boundedStepCount(double time, double dt);

}  // namespace loopsim
