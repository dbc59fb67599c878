#pragma once
// Solver `auto` (docs/solvers.md, "Solver `auto`"): a short timing probe over the capable exact
// solvers on the scene's own initial state picks the fastest.
//
// - Candidates (the caller filters them by capability and rank: the scene's
//   autoSolverCandidates) are exact solvers only; soft ones solve another problem.
// - Direct solvers are preferred: an iterative one takes part only when it
//   converged to the tolerance in the probe and its v̇ agrees with the first
//   direct candidate's to 1e-8 (relative), and it is picked only when it beats
//   the fastest direct solver by more than kIterativeMargin. Iterative
//   solvers are timed cold-started: the cost of a step where the state has
//   moved, an upper bound on a warm-started one.
// - Timing: every round times each candidate once (a batch of solves of about
//   50 µs), in an order rotated by one per round, so a slow period of a shared
//   machine hits all alike; the median over rounds is compared. At most
//   `rounds` rounds and about `budget_ms` in all.
// The pick depends on the machine and its load: it is not deterministic
// across machines. Records store the picked name (the Simulation writes it
// into its scene), so replay runs that solver and never probes again.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <loopsim/solvers/solver.hpp>

namespace loopsim {

struct ProbeTiming {
  std::string solver;
  double median_us = 0.0;  // per solve; 0 when excluded
  int iterations = 0;      // of the probe's untimed first solve (iterative solvers)
  bool iterative = false;
  std::string excluded;    // why it did not take part; empty when it did
};

struct SolverSelection {
  std::string picked;
  std::string reason;               // e.g. "fastest of 4 exact solvers"
  std::vector<ProbeTiming> timings;  // timed ones fastest first, then the excluded
  /// "ltl (probe: ltl 13.1 µs, kkt 17.0 µs, pv 21.2 µs)".
  std::string summary() const;
};

struct ProbeOptions {
  int rounds = 20;
  double budget_ms = 80.0;
  double batch_us = 50.0;  // solves per timed batch: about this long
};

/// An iterative solver is picked over the fastest direct one only when faster by more than this.
inline constexpr double kIterativeMargin = 0.10;

struct SolverInfo;
/// The settings a candidate runs with (mu: auto resolves per solver family).
using SettingsFor = std::function<SolverSettings(const SolverInfo&)>;

/// Probes `candidates` (registry names, in registry order) at (q, v, τ) with the
/// added inertia d. Throws ModelError when no candidate is usable.
SolverSelection probeSolvers(const std::vector<std::string>& candidates, const ConstraintSet& constraints,
                             const SettingsFor& settings_for, const Eigen::Ref<const VectorX>& q,
                             const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                             const Eigen::Ref<const VectorX>& added_inertia, const ProbeOptions& options = {});

}  // namespace loopsim
