#pragma once
// Settings the loop-solver tests (lcaba, prox-bbo) compare at: tolerance
// 1e-12, up to 200 iterations, and the μ each solver is accurate at.
#include <string>

#include <loopsim/solvers/solver.hpp>

namespace loopsim::test {

inline SolverSettings tightSettings(double mu, bool warm_start = false) {
  SolverSettings s;
  s.mu = mu;
  s.tolerance = 1e-12;
  s.warm_start = warm_start;
  s.max_iterations = 200;
  return s;
}

// μ for the agreement tests. lcaba's augmented Lagrangian puts μ KᵀK into
// the articulated inertias, so each inner solve carries ε κ round-off with κ
// ~ 1 + μ λ_max(J M⁻¹ Jᵀ) (as constrained-aba); 1e4 converges in a few
// iterations and keeps v̇ well inside 1e-7 (AccuracyAcrossMu reports others).
// prox-bbo's μ only damps the dual (μ⁻¹I in L): the default 1e8, as prox-pv.
inline double agreementMu(const std::string& solver) { return solver == "lcaba" ? 1e4 : 1e8; }

}  // namespace loopsim::test
