#include <loopsim/solvers/selection/default_solver.hpp>

#include <vector>

#include <loopsim/constraints/constraint_set.hpp>

namespace loopsim {

double ltlSolveFlops(const Model& model, int constraint_rows) {
  std::vector<double> path_dofs(static_cast<std::size_t>(model.nbodies()), 0.0);
  double factor = 0.0, nonzeros = 0.0;
  for (int j = 1; j < model.nbodies(); ++j) {
    const double d = path_dofs[static_cast<std::size_t>(model.parent[j])] + model.joint_nv[j];
    path_dofs[static_cast<std::size_t>(j)] = d;
    factor += model.joint_nv[j] * d * d;
    nonzeros += model.joint_nv[j] * d;
  }
  const double m = constraint_rows;
  return factor + 2.0 * m * nonzeros + m * m * m / 3.0;
}

int worldConstraintRows(const std::vector<Constraint>& constraints) {
  int rows = 0;
  for (const Constraint& c : constraints) {
    if (c.kind != ConstraintKind::Coupling && (c.body1 == 0 || c.body2 == 0)) rows += c.dimension();
  }
  return rows;
}

std::string preferredDefaultSolver(const Model& model, const std::vector<Constraint>& constraints) {
  if (model.nv <= kDenseSolverMaxDofs) return "kkt";
  const ConstraintSet set(model, constraints);
  if (ltlSolveFlops(model, set.dimension()) <= kDefaultDirectSolverFlops || set.hasCouplings()) return "ltl";
  return worldConstraintRows(constraints) <= kProxBboMaxWorldRows ? "prox-bbo" : "lcaba";
}

}  // namespace loopsim
