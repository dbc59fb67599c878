#pragma once
// Statistics of a run, accumulated step by step without allocation: timing
// samples for medians (fixed capacity; beyond it a deterministic reservoir
// keeps a uniform sample), solver iterations, constraint violations and
// energy. Summaries are computed on demand (they sort a copy: not real-time).
#include <cstdint>
#include <vector>

namespace loopsim {

/// Fixed-capacity sample of a scalar series for medians.
class SampleReservoir {
 public:
  explicit SampleReservoir(std::size_t capacity);
  void add(double x);  // no allocation
  std::size_t count() const { return count_; }
  double median() const;  // 0 when empty
  double mean() const { return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_); }

 private:
  std::vector<double> samples_;
  std::size_t capacity_;
  std::size_t count_ = 0;
  double sum_ = 0.0;
  std::uint64_t rng_state_ = 0x9E3779B97F4A7C15ull;
};

/// One step's measurements (Simulation::lastStep()).
struct StepRecord {
  double step_us = 0.0;       // wall time of the whole step (controller, solve, integration, projection, stats)
  double solve_us = 0.0;      // wall time of solver.solve
  int iterations = 0;         // solver iterations
  double solver_residual = 0.0;  // ‖J v̇ - k‖∞ reported by the solver
  bool converged = true;
};

/// Energy bookkeeping. E = kinetic + potential (gravity and joint springs).
/// The balance E - E0 - W_applied - W_damping is zero for an exact integrator
/// with ideal constraints; what remains is integration error plus the work of
/// Baumgarte stabilisation and projection.
struct EnergyTerms {
  double kinetic = 0.0;
  double potential = 0.0;        // gravity + springs
  double initial = 0.0;          // E0
  double applied_work = 0.0;     // ∫ τ_controller · v dt
  double damping_work = 0.0;     // ∫ τ_damping · v dt (<= 0: dissipated by joint damping)
  double total() const { return kinetic + potential; }
  double balance() const { return total() - initial - applied_work - damping_work; }
};

struct RunSummary {
  long steps = 0;
  double simulated_time = 0.0;
  double wall_time = 0.0;           // Σ step wall time (s)
  double steps_per_second = 0.0;
  double realtime_factor = 0.0;     // simulated / wall
  double median_step_us = 0.0, median_solve_us = 0.0;
  double mean_iterations = 0.0;
  double median_iterations = 0.0;  // over the kept sample of steps
  int max_iterations = 0;
  long unconverged_solves = 0;
  double max_position_violation = 0.0, rms_position_violation = 0.0;
  double max_velocity_violation = 0.0, rms_velocity_violation = 0.0;
  EnergyTerms energy;
};

class RunStatistics {
 public:
  /// sample_capacity: timing samples kept for the medians.
  RunStatistics(int constraint_rows, std::size_t sample_capacity);
  void addStep(const StepRecord& step, double dt);
  /// φ and J v of one state the run passed through (size constraint_rows).
  void addViolation(const double* phi, const double* phidot);
  /// pending_phi / pending_phidot (optional): one more state's errors folded
  /// into the summary without booking them (the run's current state).
  RunSummary summary(const EnergyTerms& energy, const double* pending_phi = nullptr,
                     const double* pending_phidot = nullptr) const;

 private:
  int rows_;
  SampleReservoir step_us_, solve_us_, iteration_samples_;
  long steps_ = 0;
  long violation_samples_ = 0;  // states whose φ, J v were booked
  double simulated_time_ = 0.0, wall_time_ = 0.0;
  long iterations_ = 0, unconverged_ = 0;
  int max_iterations_ = 0;
  double max_phi_ = 0.0, sum_phi2_ = 0.0, max_phidot_ = 0.0, sum_phidot2_ = 0.0;
};

}  // namespace loopsim
