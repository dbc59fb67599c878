#pragma once
// How far a pair (λ, v = G λ + g) is from solving the contact problem
// (contact_problem.hpp): primal and dual feasibility and complementarity, the
// three measures of Carpentier et al. 2024, each the max over the blocks:
//   primal           distance of λ_b to its cone: K_μ, λ ≥ 0, or the whole space
//                    (bilateral: 0)
//   dual             distance of the De Saxcé-corrected ṽ_b = v_b + μ‖v_t‖ e_n to
//                    the dual cone K_μ* (unilateral: max(0, −v); bilateral: the
//                    distance to {0}, i.e. |v_b|)
//   complementarity  |⟨λ_b, ṽ_b⟩| on the frictional and unilateral blocks
// Distances are Euclidean within a block (a contact's 3 rows, a bilateral
// block's rows); the max over the blocks makes each a max-norm. λ and v are
// in the problem's units (impulse, velocity), so complementarity is in
// impulse x velocity. No allocation.
#include <algorithm>

#include <loopsim/contact/contact_problem.hpp>

namespace loopsim {

struct ContactResiduals {
  double primal = 0.0;
  double dual = 0.0;
  double complementarity = 0.0;

  double worst() const { return std::max({primal, dual, complementarity}); }
};

/// The residuals of λ with v = G λ + g (the caller's, e.g. a solver's velocity()).
ContactResiduals contactResiduals(const ContactProblem& problem, const Eigen::Ref<const VectorX>& lambda,
                                  const Eigen::Ref<const VectorX>& v);

}  // namespace loopsim
