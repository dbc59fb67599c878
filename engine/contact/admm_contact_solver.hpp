#pragma once
// ADMM on the contact problem (contact_problem.hpp), after Carpentier, Le
// Lidec and Montaut 2024 ("From compliant to rigid contact simulation: a
// unified and efficient approach") and Pinocchio 3's ADMMContactSolver; our
// own derivation and notation, rigid contacts (no compliance).
//
// With De Saxcé's correction s(v) (s_n = μ ‖v_t‖ on each contact's normal row,
// 0 elsewhere) held fixed, the problem is the cone-constrained QP
//     min ½ λᵀ G λ + λᵀ (g + s)   s.t.  λ ∈ K = Π_b K_b,
// split as x = z with z ∈ K. The proximal augmented Lagrangian, with u the
// multiplier of x = z taken as a velocity (u = −y), penalty ρ and proximal η:
//   (A1) (G + (ρ + η) I) x⁺ = −(g + s) + u + ρ z + η x
//   (A2) z⁺ = P_K(x⁺ − u / ρ)                     (per block: cone, λ ≥ 0, identity)
//   (A3) u⁺ = u − ρ (x⁺ − z⁺)
//   (A4) s⁺ = s(u⁺)                                (the De Saxcé update)
// u is the iteration's estimate of the corrected velocity ṽ (its tangential
// part is v_t at a fixed point, so s(u) = s(v) there; taking s from u rather
// than from G z + g converged in fewer iterations on our random problems).
// A fixed point has x = z and u = G z + g + s(G z + g), and (A2) says
// −u ∈ N_K(z): K ∋ z ⟂ u ∈ K*, the De Saxcé complementarity. On bilateral
// rows (K = ℝᵏ) (A2-A3) give u = 0, i.e. v = 0. The returned λ is z (in K
// by construction) and the solve stops on the residuals of (z, G z + g).
//
// Penalty: the spectral rule of the paper, ρ = √(η L) κ^p with κ = L / η,
// L = λ_max(G) by power iteration (η stands for λ_min: G may be singular),
// and residual balancing on p: when the ADMM primal residual ‖x⁺ − z⁺‖∞
// exceeds `balance_ratio` times the dual one ρ ‖z⁺ − z‖∞ (Boyd et al. 2011,
// "Distributed optimization ... ADMM", §3.3 and §3.4.1), p grows by
// `rho_power_step` (ρ x κ^step), in the opposite case it shrinks. Each change
// refactorises G + (ρ + η) I (DenseCholesky, O(m³)); between changes an
// iteration costs two triangular solves and one product with G, O(m²).
//
// Warm start: λ in is the initial z = x (projected onto K) and u starts at
// the corrected velocity of that λ. No heap allocation in solve() once
// resize() has seen the problem's size.
#include <loopsim/contact/contact_solver.hpp>
#include <loopsim/linalg/dense_cholesky.hpp>

namespace loopsim {

class AdmmContactSolver {
 public:
  /// Checks the settings (checkContactSolverSettings).
  explicit AdmmContactSolver(const ContactSolverSettings& settings = {});

  /// Sizes the workspace for problems of m rows; the only place it allocates.
  void resize(int m);
  void resize(const ContactProblem& problem) { resize(problem.size()); }
  int size() const { return static_cast<int>(x_.size()); }

  /// Solves `problem` (of size(); ModelError otherwise). lambda: in, the warm
  /// start (zero for a cold start); out, the solution. No allocation.
  ContactSolverResult solve(const ContactProblem& problem, Eigen::Ref<VectorX> lambda);

  /// v⁺ = G λ + g of the last solve's λ.
  const VectorX& velocity() const { return v_; }
  /// The penalty ρ the last solve ended with, and the λ_max(G) it estimated.
  double rho() const { return rho_; }
  double largestEigenvalue() const { return largest_eigenvalue_; }

  const ContactSolverSettings& settings() const { return settings_; }
  void setSettings(const ContactSolverSettings& settings);

 private:
  double estimateLargestEigenvalue(const MatrixX& G);
  void factorize(const MatrixX& G);  // G + (ρ + η) I

  ContactSolverSettings settings_;
  VectorX x_, z_, z_previous_, u_, v_, s_, rhs_, power_, power_next_;
  MatrixX shifted_;  // G + (ρ + η) I, what the factor is computed from
  DenseCholesky cholesky_;
  double rho_ = 0.0;
  double largest_eigenvalue_ = 0.0;
};

}  // namespace loopsim
