#include <loopsim/sim/run_statistics.hpp>

#include <algorithm>
#include <cmath>

namespace loopsim {

SampleReservoir::SampleReservoir(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {
  samples_.reserve(capacity_);
}

void SampleReservoir::add(double x) {
  ++count_;
  sum_ += x;
  if (samples_.size() < capacity_) {
    samples_.push_back(x);  // within the reserved capacity: no allocation
    return;
  }
  // Reservoir sampling (Algorithm R) with a SplitMix64 generator.
  rng_state_ += 0x9E3779B97F4A7C15ull;
  std::uint64_t z = rng_state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const std::uint64_t slot = z % count_;
  if (slot < capacity_) samples_[slot] = x;
}

double SampleReservoir::median() const {
  if (samples_.empty()) return 0.0;
  std::vector<double> sorted = samples_;
  const std::size_t mid = sorted.size() / 2;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(mid), sorted.end());
  double median = sorted[mid];
  if (sorted.size() % 2 == 0) {
    median = 0.5 * (median + *std::max_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(mid)));
  }
  return median;
}

RunStatistics::RunStatistics(int constraint_rows, std::size_t sample_capacity)
    : rows_(constraint_rows), step_us_(sample_capacity), solve_us_(sample_capacity),
      iteration_samples_(sample_capacity) {}

void RunStatistics::addStep(const StepRecord& step, double dt) {
  ++steps_;
  simulated_time_ += dt;
  wall_time_ += 1e-6 * step.step_us;
  step_us_.add(step.step_us);
  solve_us_.add(step.solve_us);
  iterations_ += step.iterations;
  iteration_samples_.add(step.iterations);
  max_iterations_ = std::max(max_iterations_, step.iterations);
  if (!step.converged) ++unconverged_;
}

void RunStatistics::addViolation(const double* phi, const double* phidot) {
  ++violation_samples_;
  for (int r = 0; r < rows_; ++r) {
    sum_phi2_ += phi[r] * phi[r];
    sum_phidot2_ += phidot[r] * phidot[r];
    max_phi_ = std::max(max_phi_, std::abs(phi[r]));
    max_phidot_ = std::max(max_phidot_, std::abs(phidot[r]));
  }
}

RunSummary RunStatistics::summary(const EnergyTerms& energy, const double* pending_phi,
                                  const double* pending_phidot) const {
  RunSummary s;
  s.steps = steps_;
  s.simulated_time = simulated_time_;
  s.wall_time = wall_time_;
  s.steps_per_second = wall_time_ > 0.0 ? static_cast<double>(steps_) / wall_time_ : 0.0;
  s.realtime_factor = wall_time_ > 0.0 ? simulated_time_ / wall_time_ : 0.0;
  s.median_step_us = step_us_.median();
  s.median_solve_us = solve_us_.median();
  s.median_iterations = iteration_samples_.median();
  s.max_iterations = max_iterations_;
  s.mean_iterations = steps_ > 0 ? static_cast<double>(iterations_) / static_cast<double>(steps_) : 0.0;
  s.unconverged_solves = unconverged_;
  double max_phi = max_phi_, max_phidot = max_phidot_, sum_phi2 = sum_phi2_, sum_phidot2 = sum_phidot2_;
  long states = violation_samples_;
  if (pending_phi != nullptr && pending_phidot != nullptr) {
    ++states;
    for (int r = 0; r < rows_; ++r) {
      sum_phi2 += pending_phi[r] * pending_phi[r];
      sum_phidot2 += pending_phidot[r] * pending_phidot[r];
      max_phi = std::max(max_phi, std::abs(pending_phi[r]));
      max_phidot = std::max(max_phidot, std::abs(pending_phidot[r]));
    }
  }
  const double samples = static_cast<double>(states) * rows_;
  s.max_position_violation = max_phi;
  s.max_velocity_violation = max_phidot;
  s.rms_position_violation = samples > 0.0 ? std::sqrt(sum_phi2 / samples) : 0.0;
  s.rms_velocity_violation = samples > 0.0 ? std::sqrt(sum_phidot2 / samples) : 0.0;
  s.energy = energy;
  return s;
}

}  // namespace loopsim
