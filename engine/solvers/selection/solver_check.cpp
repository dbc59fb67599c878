#include <loopsim/solvers/selection/solver_check.hpp>

#include <sstream>

#include <loopsim/constraints/constraint_rank.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/solvers/loops/cluster_spanning.hpp>
#include <loopsim/solvers/registry.hpp>
#include <loopsim/solvers/selection/default_solver.hpp>

namespace loopsim {

namespace {

std::string solverElement(std::string_view name) { return "solver '" + std::string(name) + "'"; }

/// An exact solver on a set that is rank-deficient at q0 although the scene
/// does not declare it: the dependent rows, named.
std::optional<SolverRefusal> undeclaredRankDeficiency(const SolverProblem& problem, const ConstraintSet& set,
                                                      std::string_view name) {
  // Beyond the budget the scene loader has warned that the rank is not checked.
  if (!rankCheckAffordable(problem.model, set.dimension())) return std::nullopt;
  const ConstraintRank rank = constraintRank(problem.model, problem.constraints, problem.q0);
  if (rank.rank == rank.dimension) return std::nullopt;
  std::ostringstream os;
  os << "the constraint set is rank-deficient at the initial configuration (rank " << rank.rank << " of "
     << rank.dimension << "); dependent rows: ";
  for (std::size_t k = 0; k < rank.dependent_rows.size(); ++k) {
    os << (k ? ", " : "") << set.rowDescription(rank.dependent_rows[k]);
  }
  os << ". Exact solver '" << name
     << "' needs independent rows: drop them (rows: [...]) or declare 'redundant: true' and use a proximal solver "
        "such as prox-ltl";
  return SolverRefusal{"constraints", os.str()};
}

/// A cluster solver whose loops the declared independent joints cannot
/// coordinate at q0. The cluster builder reports that by throwing from deep
/// inside its construction; it is turned into a value here, at the boundary.
std::optional<SolverRefusal> clusterRefusal(const ConstraintSet& set, const SolverProblem& problem,
                                            std::string_view name) {
  try {
    checkClustersAt(set, problem.independent_dofs, problem.q0, solverElement(name));
  } catch (const ModelError& e) {
    return SolverRefusal{e.element(), e.message()};
  }
  return std::nullopt;
}

std::optional<SolverRefusal> refuseAuto(const SolverProblem& problem) {
  std::string reasons;
  if (!autoSolverCandidates(problem, &reasons).empty()) return std::nullopt;
  // An undeclared rank deficiency fails every exact solver alike: say that directly.
  if (!problem.redundant) {
    if (auto refusal = refuseSolver(problem, "kkt"); refusal && refusal->element == "constraints") return refusal;
  }
  return SolverRefusal{"solver 'auto'", "no exact solver can run this scene (" + reasons + ")"};
}

}  // namespace

std::optional<SolverRefusal> refuseSolver(const SolverProblem& problem, std::string_view name) {
  if (name == "auto") return refuseAuto(problem);
  const SolverInfo* info = findSolver(std::string(name));
  if (info == nullptr) return SolverRefusal{"solver", unknownSolverMessage(std::string(name))};
  const ConstraintSet set(problem.model, problem.constraints, problem.time_constant);
  const SolverCapabilities& caps = info->capabilities;
  if (const std::string missing = missingCapability(caps, set); !missing.empty()) {
    return SolverRefusal{solverElement(name), unsupportedCapabilityMessage(missing)};
  }
  if (problem.redundant && !caps.redundant && !caps.soft) {
    return SolverRefusal{solverElement(name),
                         "does not support redundant constraint sets, which this scene declares (redundant: true); "
                         "use a proximal solver such as prox-ltl"};
  }
  if (caps.needs_independent_joints) {
    if (auto refusal = clusterRefusal(set, problem, name)) return refusal;
  }
  if (problem.redundant || caps.soft) return std::nullopt;
  return undeclaredRankDeficiency(problem, set, name);
}

void throwRefusal(const std::string& file, const SolverRefusal& refusal) {
  throw ModelError(file, refusal.element, refusal.reason);
}

void requireSolver(const SolverProblem& problem, std::string_view name) {
  if (auto refusal = refuseSolver(problem, name)) throwRefusal(problem.file, *refusal);
}

std::vector<std::string> autoSolverCandidates(const SolverProblem& problem, std::string* reasons) {
  std::vector<std::string> out;
  for (const auto& info : solverRegistry()) {
    if (info.capabilities.soft) continue;
    if (auto refusal = refuseSolver(problem, info.name)) {
      if (reasons != nullptr) *reasons += (reasons->empty() ? "" : "; ") + refusal->element + ": " + refusal->reason;
    } else {
      out.push_back(info.name);
    }
  }
  return out;
}

SolverChoice chooseDefaultSolver(const SolverProblem& problem) {
  const std::string first = preferredDefaultSolver(problem.model, problem.constraints);
  std::vector<std::string> order = {first};
  for (const auto& s : solverRegistry()) {
    if (s.name != first) order.push_back(s.name);
  }
  std::string reasons;
  for (const std::string& name : order) {
    if (findSolver(name) == nullptr) continue;
    auto refusal = refuseSolver(problem, name);
    if (!refusal) return {name, std::nullopt};
    if (refusal->element == "constraints") return {{}, std::move(refusal)};  // undeclared rank deficiency: say so
    reasons += (reasons.empty() ? "" : "; ") + refusal->element + ": " + refusal->reason;
  }
  return {{}, SolverRefusal{"solver", "no registered solver can run this scene (" + reasons + ")"}};
}

}  // namespace loopsim
