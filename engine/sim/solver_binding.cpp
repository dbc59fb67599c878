#include <loopsim/sim/solver_binding.hpp>

#include <cstdio>

#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {

std::string SolverBinding::muLine() const {
  if (!auto_mu) return {};
  char line[160];
  if (auto_mu->mu == auto_mu->factor * auto_mu->constraint_inertia && auto_mu->constraint_inertia > 0.0) {
    std::snprintf(line, sizeof line, "μ auto: %.2g (λ_Λ ≈ %.4g × %.0e; λ_max(M) ≈ %.4g, %d power sweeps)", auto_mu->mu,
                  auto_mu->constraint_inertia, auto_mu->factor, auto_mu->lambda_max, auto_mu->sweeps);
  } else {
    std::snprintf(line, sizeof line, "μ auto: %.2g (λ_max(M) ≈ %.4g × %.0e, %d power sweeps)", auto_mu->mu,
                  auto_mu->lambda_max, auto_mu->factor, auto_mu->sweeps);
  }
  return line;
}

std::string SolverBinding::solverLine() const {
  if (!selection) return {};
  std::string line = "solver auto → " + selection->summary() + "; " + selection->reason;
  std::string excluded;
  for (const auto& t : selection->timings) {
    if (!t.excluded.empty()) excluded += (excluded.empty() ? "" : ", ") + t.solver + " (" + t.excluded + ")";
  }
  if (!excluded.empty()) line += "; not timed: " + excluded;
  return line;
}

BoundSolver bindSolver(const Scene& scene, const ConstraintSet& constraints, const std::string& name,
                       const SolverSettings& settings, const Eigen::Ref<const VectorX>& q,
                       const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                       const Eigen::Ref<const VectorX>& added_inertia) {
  BoundSolver out;
  SolverBinding& b = out.binding;
  b.requested = name;
  b.mu_auto = settings.mu_auto;
  // One power iteration; the factor depends on the solver (auto_mu.hpp), and
  // the penalty solvers (lcaba, constrained-aba) take μ from λ_Λ instead.
  AutoMuEstimate estimate;
  if (settings.mu_auto) {
    estimate = estimateInertiaEigenvalue(constraints.model(), q, added_inertia);
    const SolverInfo* requested = findSolver(name);
    if (name == "auto" || (requested != nullptr && requested->capabilities.penalty_in_inertia)) {
      estimate.constraint_inertia = estimateConstraintInertia(constraints, q, added_inertia);
    }
  }
  b.solver = name;
  if (name == "auto") {
    std::string reasons;
    const std::vector<std::string> candidates = autoSolverCandidates(scene, &reasons);
    if (candidates.empty()) checkSolverForScene(scene, "auto");  // throws, saying why
    const SettingsFor settings_for = [&](const SolverInfo& info) {
      AutoMuEstimate e = estimate;
      return resolveAutoMu(settings, info.capabilities, e);
    };
    b.selection = probeSolvers(candidates, constraints, settings_for, q, v, tau, added_inertia);
    b.solver = b.selection->picked;
  }
  const SolverInfo* info = findSolver(b.solver);
  b.settings = resolveAutoMu(settings, info != nullptr ? info->capabilities : SolverCapabilities{}, estimate);
  if (settings.mu_auto) b.auto_mu = estimate;
  out.solver = makeSolver(b.solver, constraints, b.settings);  // an unknown name: the registry's error
  out.solver->setAddedInertia(added_inertia);
  return out;
}

}  // namespace loopsim
