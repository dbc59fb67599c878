#pragma once
// Binds a scene's solver request to a constraint set at a state: resolves
// `mu: auto` (solvers/auto_mu.hpp) and solver `auto` (solvers/auto_solver.hpp)
// there, then builds the solver. The Simulation binds at its consistent
// initial state, and again at the current state when the solver is switched.
#include <memory>
#include <optional>
#include <string>

#include <loopsim/scene/scene.hpp>
#include <loopsim/solvers/auto_mu.hpp>
#include <loopsim/solvers/auto_solver.hpp>

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

struct BoundSolver {
  std::unique_ptr<ConstrainedSolver> solver;
  SolverBinding binding;
};

/// Resolves and builds `name` with `settings` for `scene` at (q, v, τ) with the
/// added inertia d (set on the solver). μ is resolved first, so the probe times
/// the iterative solvers at the μ they would run with. Throws ModelError.
BoundSolver bindSolver(const Scene& scene, const ConstraintSet& constraints, const std::string& name,
                       const SolverSettings& settings, const Eigen::Ref<const VectorX>& q,
                       const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                       const Eigen::Ref<const VectorX>& added_inertia);

}  // namespace loopsim
