#pragma once
// Whether a solver can run a problem, answered once, as a value: the one
// place that validates a solver name against a scene (unknown name, missing
// capability, declared or undeclared redundancy, clusters the declared
// independent joints cannot coordinate). Loading, binding, the GUI's solver
// list and the CLI's overrides all ask here.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <loopsim/constraints/constraint.hpp>
#include <loopsim/model/model.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

/// What solver selection needs to know of a scene (Scene::solverProblem()).
struct SolverProblem {
  const Model& model;
  const std::vector<Constraint>& constraints;
  double time_constant;          // Baumgarte T of the constraint set
  bool redundant;                // the scene declares the set rank-deficient
  const std::vector<int>& independent_dofs;  // the scene's `independent` (cluster solvers)
  const VectorX& q0;             // where the rank and the clusters are checked
  std::string file;              // names the scene in errors ("" when built in code)
};

/// Why a solver cannot run a problem. `element` is what an error names:
/// "solver" (unknown name), "solver 'NAME'" (the solver cannot run the scene)
/// or "constraints" (the set is rank-deficient and the scene does not say so,
/// which fails every exact solver alike).
struct SolverRefusal {
  std::string element;
  std::string reason;
};

/// Empty when `name` (a registry name or "auto") can run the problem.
std::optional<SolverRefusal> refuseSolver(const SolverProblem& problem, std::string_view name);

/// A refusal as the error the user sees: ModelError(file, element, reason).
[[noreturn]] void throwRefusal(const std::string& file, const SolverRefusal& refusal);

/// Throws (throwRefusal) when refuseSolver refuses.
void requireSolver(const SolverProblem& problem, std::string_view name);

/// Solver `auto`'s candidates: every registered exact (not soft) solver that
/// refuseSolver accepts, in registry order. `reasons` (optional) collects why
/// the others were left out.
std::vector<std::string> autoSolverCandidates(const SolverProblem& problem, std::string* reasons = nullptr);

/// The solver a scene gets when it names none: preferredDefaultSolver
/// (default_solver.hpp) when it can run the scene, else the first registered
/// solver that can; a refusal saying why none can.
struct SolverChoice {
  std::string solver;                    // empty when refused
  std::optional<SolverRefusal> refusal;  // set when no solver can run the scene
};
SolverChoice chooseDefaultSolver(const SolverProblem& problem);

}  // namespace loopsim
