#pragma once
// The solver a scene gets when it names none: one whose cost fits the scene.
//
// - Up to kDenseSolverMaxDofs dofs: kkt (dense, the reference).
// - Above: ltl when its sparse factorisation is cheap (a wide tree) or the
//   scene has joint couplings (the O(n) loop solvers have none); else an
//   O(n)-per-iteration loop solver of paper 001: prox-bbo (Alg. 4-6, exact
//   to round-off; μ only damps) while few rows reach the world (it solves
//   those densely there, O(m³)), else lcaba (Alg. 1-3, O(n + m)) at the
//   scene's μ, or its default mu: auto (3e3 λ_Λ capped at 1e4 λ_max(M),
//   solvers/selection/auto_mu.hpp; the former 1e3 λ_max alone, ~1e12 at 1,000 links,
//   left v̇ off by 100 % on pendulum_chain). chain_6d_every_k, 1,000 links
//   welded every 20: q within 9.8e-8 of kkt after 10 steps at 3 iterations
//   (at the former default μ = 1e8: 2.2e-3, `compare --solvers kkt,lcaba`).
// chooseDefaultSolver (solver_check.hpp) falls back on the registry order
// when the preferred solver cannot run the scene.
#include <string>

#include <vector>

#include <loopsim/constraints/constraint.hpp>
#include <loopsim/model/model.hpp>

namespace loopsim {

/// Above this many dofs the dense kkt (O(nv³) per step, nv² memory) is the wrong default.
inline constexpr int kDenseSolverMaxDofs = 300;
/// Above this estimated work per solve (≈ 0.1 s on one core) ltl is not the default when lcaba can run the scene.
inline constexpr double kDefaultDirectSolverFlops = 2e8;

/// prox-bbo is the default only while at most this many constraint rows reach the world.
inline constexpr int kProxBboMaxWorldRows = 120;

/// Estimated floating-point operations of one ltl solve: the sparse LTL
/// factorisation of M (Σ over dofs of the squared number of dofs on their path
/// to the root, Featherstone 2005) and the Delassus matrix through the factors
/// (a solve over the factor's nonzeros per row, then m³/3).
double ltlSolveFlops(const Model& model, int constraint_rows);

/// Rows of the constraints between a body and the world.
int worldConstraintRows(const std::vector<Constraint>& constraints);

/// The solver to try first for a scene that names none (see above).
std::string preferredDefaultSolver(const Model& model, const std::vector<Constraint>& constraints);

}  // namespace loopsim
