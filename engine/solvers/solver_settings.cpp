// Checks of the settings shared by the proximal and augmented-Lagrangian solvers.
#include <cmath>
#include <string>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/number_text.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

std::string toleranceHint(double tolerance) {
  return tolerance > kMaxResidualTolerance ? " (a residual tolerance this large stops every solve at once and lets "
                                             "the constraints drift)"
                                           : "";
}

void requireProximalSettings(const ConstraintSet& constraints, const SolverSettings& settings,
                             std::string_view solver) {
  const std::string element = "solver '" + std::string(solver) + "'";
  const std::string& file = constraints.model().source_file;
  if (settings.mu_auto) {
    throw ModelError(file, element,
                     "mu: auto is resolved when a simulation binds the solver to its initial state "
                     "(resolveAutoMu, solvers/selection/auto_mu.hpp); this caller constructed the solver without resolving it");
  }
  const double mu = settings.muValue();
  if (!(mu > 0.0) || !std::isfinite(mu)) {
    throw ModelError(file, element, "mu must be positive and finite, got " + numberText(mu));
  }
  if (!(settings.tolerance >= 0.0)) {
    throw ModelError(file, element, "tolerance must be >= 0, got " + numberText(settings.tolerance));
  }
  if (settings.max_iterations < 1) {
    throw ModelError(file, element, "max_iterations must be >= 1, got " + std::to_string(settings.max_iterations));
  }
}

}  // namespace loopsim
