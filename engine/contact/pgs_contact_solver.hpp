#pragma once
// Projected Gauss–Seidel by blocks on the contact problem
// (contact_problem.hpp), the baseline every engine has. One iteration is one
// sweep over the blocks in order (a contact's normal row, then its tangential
// pair, as Pinocchio 3's PGSContactSolver); each block reads its rows of
// v = G λ + g with the blocks before it already updated:
//   frictional  the normal row first, λ_n ← max(0, λ_n − ω v_n / G_nn); then,
//               with v_t updated for the new λ_n, the tangential pair
//               λ_t ← λ_t − ω v_t / ℓ_t projected onto the disc ‖λ_t‖ ≤ μ λ_n,
//               with ℓ_t = λ_max(G_tt) of the contact's 2 x 2 tangential block
//               (a step the projected gradient cannot overshoot with)
//   unilateral  λ ← max(0, λ − ω v / G_ii)
//   bilateral   λ_b ← λ_b − ω G_bb⁻¹ v_b (the block solved exactly, by Cholesky)
// A fixed point is Coulomb's law itself: λ_n ⟂ v_n, and v_t = 0 inside the
// disc or v_t opposite λ_t on its rim, which is the De Saxcé complementarity
// of the problem (coulomb_cone.hpp); the correction itself is not needed in
// the sweep. Stops on the residuals of (λ, G λ + g) after each sweep.
// A zero diagonal (a row G does not move) leaves its λ unchanged.
//
// Warm start: λ in is the first iterate. No heap allocation in solve() once
// resize() has seen the problem's blocks.
#include <vector>

#include <loopsim/contact/contact_solver.hpp>
#include <loopsim/linalg/small_cholesky.hpp>

namespace loopsim {

class PgsContactSolver {
 public:
  /// Checks the settings (checkContactSolverSettings).
  explicit PgsContactSolver(const ContactSolverSettings& settings = {});

  /// Sizes the workspace for problems with these blocks (their sizes, not their μ).
  void resize(const ContactProblem& problem);
  int size() const { return static_cast<int>(v_.size()); }

  /// Solves `problem` (with the blocks resize() saw; ModelError otherwise).
  /// lambda: in, the warm start; out, the solution. No allocation.
  ContactSolverResult solve(const ContactProblem& problem, Eigen::Ref<VectorX> lambda);

  /// v⁺ = G λ + g of the last solve's λ.
  const VectorX& velocity() const { return v_; }

  const ContactSolverSettings& settings() const { return settings_; }
  void setSettings(const ContactSolverSettings& settings);

 private:
  bool sameBlocks(const ContactProblem& problem) const;

  ContactSolverSettings settings_;
  std::vector<ContactBlock> blocks_;  // the structure resize() saw
  std::vector<double> steps_;         // per block: 1 / G_nn or 1 / G_ii (0 for a zero diagonal)
  std::vector<double> tangent_steps_;  // per block: 1 / λ_max(G_tt) of a frictional block
  std::vector<SmallCholesky> bilateral_;  // per block: the factor of G_bb (size 0 unless bilateral)
  VectorX v_, local_;
};

}  // namespace loopsim
