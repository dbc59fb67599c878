#pragma once
// Binds a scene's solver request to a constraint set at a state: resolves
// `mu: auto` (solvers/selection/auto_mu.hpp) and solver `auto` (solvers/selection/auto_solver.hpp)
// there, then builds the solver. The Simulation binds at its consistent
// initial state, and again at the current state when the solver is switched.
#include <memory>
#include <optional>
#include <string>

#include <loopsim/solvers/selection/auto_mu.hpp>
#include <loopsim/solvers/selection/auto_solver.hpp>
#include <loopsim/solvers/selection/solver_check.hpp>

namespace loopsim {

struct SolverBinding {
  std::string requested;                     // the name asked for ("auto" or a registry name)
  bool mu_auto = false;                      // the settings asked for mu: auto
  bool mu_default = false;                   // nobody chose μ (neither a number nor auto)
  std::string solver;                        // the solver built
  SolverSettings settings;                   // its settings, μ resolved (set, mu_auto false)
  std::optional<AutoMuEstimate> auto_mu;     // when μ was resolved as mu: auto (asked, or a penalty solver's default)
  /// An explicit μ far above what mu: auto would choose for a penalty-in-inertia
  /// solver (explicitMuWarning, auto_mu.hpp); empty otherwise. run, check and the GUI print it.
  std::string mu_warning;
  std::optional<SolverSelection> selection;  // when requested == "auto"

  /// "μ auto: 2.3e+04 (λ_max(M) ≈ 23.1 × 1e+03, 4 power sweeps)" ("μ auto (lcaba's default): …"
  /// when nobody chose μ); empty unless μ was resolved as mu: auto.
  std::string muLine() const;
  /// "solver auto → ltl (probe: ltl 13.1 µs, kkt 17.0 µs, ...); fastest of 4 exact solvers"; empty unless auto.
  std::string solverLine() const;
};

/// A built solver, or why none was built (refuseSolver's answer).
struct BoundSolver {
  std::unique_ptr<ConstrainedSolver> solver;  // null when refused
  SolverBinding binding;
  std::optional<SolverRefusal> refusal;
};

/// Resolves `mu: auto` and solver `auto` (refused when no exact solver can run
/// the problem) and builds the solver with `settings` for the problem's constraint
/// set at (q, v, τ) with the added inertia d (set on the solver). μ is
/// resolved first, so the probe times the iterative solvers at the μ they
/// would run with. A named solver is expected to have passed refuseSolver for
/// this problem (the loader checks the scene's own, a caller switching solvers
/// checks first); an unknown name is refused, a missing capability throws
/// ModelError from the registry.
BoundSolver bindSolver(const SolverProblem& problem, const ConstraintSet& constraints, const std::string& name,
                       const SolverSettings& settings, const Eigen::Ref<const VectorX>& q,
                       const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                       const Eigen::Ref<const VectorX>& added_inertia);

}  // namespace loopsim
