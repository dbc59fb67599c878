#pragma once
// What the contact solvers (admm_contact_solver.hpp, pgs_contact_solver.hpp)
// share: their settings, checked once when a solver takes them, and what a
// solve returns. Both stop when the worst of the three residuals
// (contact_residuals.hpp) of their current (λ, G λ + g) is at most
// `tolerance`, checked before the first iteration too, so a warm start that
// already solves the problem costs no iteration.
#include <string_view>

#include <loopsim/contact/contact_residuals.hpp>

namespace loopsim {

struct ContactSolverSettings {
  double tolerance = 1e-10;  // on ContactResiduals::worst(), > 0
  int max_iterations = 1000;  // >= 1; an iteration is one ADMM step or one PGS sweep over the blocks

  // ADMM only (admm_contact_solver.hpp: the spectral rule and its residual balancing).
  double proximal = 1e-6;       // η > 0: the proximal weight on the previous iterate; also the
                                // smallest eigenvalue the spectral rule assumes for G (G may be singular)
  double rho_power = 0.2;       // p at the start of a solve, in [-0.5, 0.5], in ρ = √(η L) (L/η)^p
                                // (p = ±0.5: ρ = L or η); the solve keeps p within [-1, 1]
  double rho_power_step = 0.05;  // how much p moves when the residuals are out of balance
  double balance_ratio = 10.0;  // > 1: p moves when one ADMM residual exceeds the other by this ratio
  int power_iterations = 20;    // >= 1, the power iterations estimating L = λ_max(G)

  // PGS only.
  double over_relaxation = 1.0;  // ω in (0, 2)
};

/// Throws ModelError (element "contact solver '<solver>'") naming the setting and its value.
void checkContactSolverSettings(const ContactSolverSettings& settings, std::string_view solver);

struct ContactSolverResult {
  int iterations = 0;
  bool converged = false;  // residuals.worst() <= tolerance
  ContactResiduals residuals;  // of the returned λ and v = G λ + g
};

}  // namespace loopsim
