#pragma once
// K simulations of one scene stepping in lockstep from the same state, one per
// solver, compared against a reference solver: per-solver timing, iterations,
// closure error, energy balance, and the divergence from the reference
// ‖q_i ⊖ q_ref‖₂ (the configuration difference on the manifold, not raw q),
// with the time it first exceeded a threshold (1e-6 by default).
// A solver whose simulation diverges (NaN, violation, runaway energy) stops
// alone, with the reason; the others go on. A name SOLVER+CONTACT (pv+pgs)
// runs SOLVER with that contact solver (admm, pgs) on scenes with contacts or
// joint limits, so that contact solvers compare as well. The one seam used by
// `loopsim compare` (headless) and the GUI's comparison overlay.
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <loopsim/scene/scene.hpp>
#include <loopsim/sim/energy_watch.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim {

/// A compared run's name split: "pv+pgs" is the solver pv with the contact
/// solver pgs; "pv" keeps the scene's contact solver. `contact` is empty when
/// `contact_text` is not a contact solver's name (or there is none).
struct ComparedRunName {
  std::string solver, contact_text;
  std::optional<ContactSolverKind> contact;
};
ComparedRunName parseComparedRunName(const std::string& name);

struct ComparisonOptions {
  /// Empty: `kkt` when compared, else the first exact (not soft) solver of
  /// the list, else the first solver.
  std::string reference;
  /// The divergence whose first crossing is reported (configuration units).
  double divergence_threshold = 1e-6;
  /// One series sample per this many steps (its max divergence, mean solve time).
  long sample_every = 1;
  /// Steps of the moving median of the solve time (0: one second of steps).
  std::size_t recent_steps = 0;
};

/// One point of a solver's time series (the end of a sampling window).
struct ComparisonSample {
  double time = 0.0;
  double divergence = 0.0;  // max over the window (NaN once the reference stopped)
  double solve_us = 0.0;    // mean over the window
};

struct ComparedSolver {
  std::string name;
  std::unique_ptr<Simulation> simulation;
  std::unique_ptr<EnergyGrowthWatch> energy_watch;
  /// Why it stopped (its simulation diverged); empty while it runs.
  std::string failure;
  double failure_time = std::numeric_limits<double>::quiet_NaN();
  double divergence = 0.0;      // ‖q ⊖ q_ref‖₂ at the last compared state
  double max_divergence = 0.0;  // over every compared state
  /// First simulated time the divergence exceeded the threshold (NaN: never).
  double first_exceeded_time = std::numeric_limits<double>::quiet_NaN();
  std::vector<ComparisonSample> series;

  bool running() const { return failure.empty(); }
  /// Median solve time (µs) over the last recent_steps steps.
  double recentMedianSolveUs() const;

 private:
  friend class SolverComparison;
  std::vector<double> recent_solve_us_;
  std::size_t recent_next_ = 0, recent_count_ = 0;
  double window_divergence_ = 0.0, window_solve_us_ = 0.0;
  long window_steps_ = 0;
};

class SolverComparison {
 public:
  static constexpr int kMinSolvers = 2, kMaxSolvers = 6;

  /// Checks every name against the scene (unknown: the nearest name; missing
  /// capability: which; a contact solver on a scene without contacts or
  /// limits) and refuses duplicates and K outside [2, 6]; throws ModelError.
  SolverComparison(const Scene& scene, const std::vector<std::string>& solvers, const ComparisonOptions& options = {});

  /// Called before each solver's step (the GUI applies the same perturbation to every solver).
  std::function<void(std::size_t solver, Simulation&)> before_step;

  /// One step of every running solver, then the divergences. Returns false
  /// when none runs any more.
  bool step();
  /// Steps until `steps` steps were taken or nothing runs.
  void advanceTo(long steps);

  /// Continues every simulation from a state of one time: states[i] for
  /// solver i (the GUI's history), or one state for all (a comparison started
  /// from a state of another simulation of the scene). The future is dropped:
  /// a solver that stopped after that time runs again, one stopped at or
  /// before it stays stopped; the divergences are compared again at that
  /// state, the series and first crossings after it are dropped (the max
  /// divergence and the timings keep counting every step computed).
  /// Throws ModelError for a wrong count, mixed times or another model's state.
  void restore(std::span<const SimulationSnapshot> states);

  double time() const { return static_cast<double>(steps_) * dt_; }
  long stepCount() const { return steps_; }
  double dt() const { return dt_; }
  int referenceIndex() const { return reference_; }
  const ComparedSolver& reference() const { return solvers_[static_cast<std::size_t>(reference_)]; }
  const std::vector<ComparedSolver>& solvers() const { return solvers_; }
  std::vector<ComparedSolver>& solvers() { return solvers_; }
  /// The time the reference stopped (divergences are not defined after it); NaN while it runs.
  double referenceStopTime() const { return solvers_[static_cast<std::size_t>(reference_)].failure_time; }
  bool anyRunning() const;
  const ComparisonOptions& options() const { return options_; }

  /// The reference solver for `solvers` (see ComparisonOptions::reference; of
  /// SOLVER+CONTACT names, by SOLVER).
  static std::string defaultReference(const std::vector<std::string>& solvers);

 private:
  void compare();

  ComparisonOptions options_;
  std::vector<ComparedSolver> solvers_;
  int reference_ = 0;
  long steps_ = 0;
  double dt_ = 0.0;
  VectorX difference_;
};

}  // namespace loopsim
