#include <loopsim/solvers/selection/solver_binding.hpp>

#include <cstdio>

#include <loopsim/solvers/registry.hpp>

namespace loopsim {

std::string SolverBinding::muLine() const {
  if (!auto_mu) return {};
  const std::string head = mu_default && !mu_auto ? "μ auto (" + solver + "'s default)" : std::string("μ auto");
  char line[200];
  if (auto_mu->mu == auto_mu->factor * auto_mu->constraint_inertia && auto_mu->constraint_inertia > 0.0) {
    std::snprintf(line, sizeof line, "%s: %.2g (λ_Λ ≈ %.4g × %.0e; λ_max(M) ≈ %.4g, %d power sweeps)", head.c_str(),
                  auto_mu->mu, auto_mu->constraint_inertia, auto_mu->factor, auto_mu->lambda_max, auto_mu->sweeps);
  } else if (auto_mu->capped) {
    // The penalty rule's cap bound: say what λ_Λ alone would have given.
    std::snprintf(line, sizeof line, "%s: %.2g (the cap, λ_max(M) ≈ %.4g × %.0e, below %.0e λ_Λ ≈ %.2g; %d power sweeps)",
                  head.c_str(), auto_mu->mu, auto_mu->lambda_max, auto_mu->factor, kAutoMuFactorConstraintInertia,
                  kAutoMuFactorConstraintInertia * auto_mu->constraint_inertia, auto_mu->sweeps);
  } else {
    std::snprintf(line, sizeof line, "%s: %.2g (λ_max(M) ≈ %.4g × %.0e, %d power sweeps)", head.c_str(), auto_mu->mu,
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

BoundSolver bindSolver(const SolverProblem& problem, const ConstraintSet& constraints, const std::string& name,
                       const SolverSettings& settings, const Eigen::Ref<const VectorX>& q,
                       const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                       const Eigen::Ref<const VectorX>& added_inertia) {
  BoundSolver out;
  if (name != "auto" && findSolver(name) == nullptr) {
    out.refusal = SolverRefusal{"solver", unknownSolverMessage(name)};
    return out;
  }
  SolverBinding& b = out.binding;
  b.requested = name;
  b.mu_auto = settings.mu_auto;
  b.mu_default = !settings.mu_auto && !settings.mu;
  // One power iteration; the factor depends on the solver (auto_mu.hpp), and
  // the penalty solvers (lcaba, constrained-aba) take μ from λ_Λ instead. A
  // penalty solver resolves auto by default too, and an explicit μ on one is
  // compared with auto's (the warning below): both need the estimates.
  const SolverInfo* requested = findSolver(name);
  const bool penalty = requested != nullptr && requested->capabilities.penalty_in_inertia;
  AutoMuEstimate estimate;
  bool estimated = false;
  const auto estimate_all = [&] {
    estimate = estimateInertiaEigenvalue(constraints.model(), q, added_inertia);
    estimate.constraint_inertia = estimateConstraintInertia(constraints, q, added_inertia);
    estimated = true;
  };
  if (settings.mu_auto && !penalty && name != "auto") {
    estimate = estimateInertiaEigenvalue(constraints.model(), q, added_inertia);
  } else if (settings.mu_auto || (b.mu_default && (penalty || name == "auto"))) {
    estimate_all();
  }
  b.solver = name;
  if (name == "auto") {
    const std::vector<std::string> candidates = autoSolverCandidates(problem);
    if (candidates.empty()) {
      out.refusal = refuseSolver(problem, "auto");  // says why none can
      return out;
    }
    const SettingsFor settings_for = [&](const SolverInfo& info) {
      AutoMuEstimate e = estimate;
      return resolveAutoMu(settings, info.capabilities, e);
    };
    b.selection = probeSolvers(candidates, constraints, settings_for, q, v, tau, added_inertia);
    b.solver = b.selection->picked;
  }
  const SolverInfo* info = findSolver(b.solver);
  const SolverCapabilities caps = info != nullptr ? info->capabilities : SolverCapabilities{};
  b.settings = resolveAutoMu(settings, caps, estimate);
  if (resolvesAutoMu(settings, caps)) b.auto_mu = estimate;
  if (caps.penalty_in_inertia && !resolvesAutoMu(settings, caps)) {
    if (!estimated) estimate_all();
    SolverSettings automatic = settings;
    automatic.mu_auto = true;
    resolveAutoMu(automatic, caps, estimate);
    b.mu_warning = explicitMuWarning(b.solver, b.settings.muValue(), estimate.mu);
  }
  out.solver = makeSolver(b.solver, constraints, b.settings);
  out.solver->setAddedInertia(added_inertia);
  return out;
}

}  // namespace loopsim
