#pragma once
// Solvers by name, for the CLI, the GUI and the benchmarks.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <loopsim/solvers/solver.hpp>

namespace loopsim {

struct SolverInfo {
  std::string name;
  std::string description;  // one line, with the paper reference
  SolverCapabilities capabilities;
  std::function<std::unique_ptr<ConstrainedSolver>(const ConstraintSet&, const SolverSettings&)> make;
};

/// Every finished solver, in a stable order.
const std::vector<SolverInfo>& solverRegistry();
/// nullptr when unknown.
const SolverInfo* findSolver(const std::string& name);
/// "unknown solver 'x' (did you mean 'y'?); available: ..." — the one wording of an unknown name.
std::string unknownSolverMessage(const std::string& name);
/// Builds a solver for a library caller. Throws ModelError with
/// unknownSolverMessage when unknown, and when the solver lacks a capability
/// the constraint set needs (saying which). Scenes choose and validate their
/// solver in solvers/selection/ (solver_check.hpp) before they build it.
std::unique_ptr<ConstrainedSolver> makeSolver(const std::string& name, const ConstraintSet& constraints,
                                              const SolverSettings& settings = {});
/// Empty when the solver can handle the set, else the missing capability.
std::string missingCapability(const SolverCapabilities& caps, const ConstraintSet& constraints);

/// The one wording of a missing capability, as an error's reason.
std::string unsupportedCapabilityMessage(const std::string& missing);

}  // namespace loopsim
