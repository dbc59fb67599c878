#pragma once
// Joint limits in the simulation step. The equality solver gives v̇ (the
// scene's loops, welds and couplings at acceleration level, Baumgarte
// included) and so the end-of-step velocity v_eq = v + dt v̇. When that step
// would carry a limited dof past its bound (joint_limits.hpp), the limits and
// the equality rows form one velocity-level problem (contact_problem.hpp) on
// the correction impulses λ:
//     v⁺ = v_eq + M̃⁻¹ Jᵀ λ,   M̃ = M + dt·D (the step's inertia with implicit damping),
//     J = [J_eq; J_lim],      G = J M̃⁻¹ Jᵀ,
//     g = [0; s v_eq,i + β]   (the equality rows hold what v_eq satisfies: J_eq v⁺ = J_eq v_eq),
// the equality rows bilateral, the limits unilateral. It is the problem the
// step would pose from the unconstrained v_free with the equality rows'
// velocity targets J_eq v_eq, since v_eq − v_free lies in the range of M̃⁻¹ J_eqᵀ.
// Without a limit reached the step is the equality solver's, unchanged.
//
// The bilateral rows are eliminated exactly (G_ee λ_e + G_el λ_l = 0): the
// limits see the Delassus matrix with the loops closed,
//     G_red = G_ll − G_le G_ee⁻¹ G_el      (paper 004 §II-E; delassus/ dense-closed),
// a small problem of unilateral rows only. It is formed without G_ee⁻¹, whose
// condition is the square of the rows': with X = J L⁻ᵀ (M̃ = L Lᵀ), X_lᵀ is
// split by a least-squares solve on X_eᵀ (column-pivoting QR, which also
// takes a declared-redundant equality set): with Q an orthonormal basis of
// X_eᵀ's columns (linalg/orthonormal_basis.hpp), X_⊥ = (I − Q Qᵀ) X_lᵀ,
// G_red = X_⊥ᵀ X_⊥, and λ_e = −C λ_l with X_eᵀ C = Q Qᵀ X_lᵀ.
//
// Active set: the limits v_eq would cross (end-of-step distance below zero)
// or is already past; when the corrected v⁺ crosses another bound that one
// joins and the problem is solved again (at most once per limited dof). When
// λ = 0 already solves it (every reached row has s v_eq + β ≥ 0 to the solver's
// tolerance: a dof resting on its bound) the step is left as it was, without a solve.
// G by dense Cholesky of M̃ (CRBA): a handful of limit rows on top of the
// equality rows; the papers' Delassus algorithms take constraints on bodies,
// not joint-space rows. The unilateral problem is solved by ADMM
// (admm_contact_solver.hpp). A problem and its solver are kept per count of
// active limits, so a step allocates only the first time it meets a count.
#include <memory>
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/contact/admm_contact_solver.hpp>
#include <loopsim/contact/contact_problem.hpp>
#include <loopsim/contact/joint_limits.hpp>
#include <loopsim/linalg/dense_cholesky.hpp>
#include <loopsim/linalg/orthonormal_basis.hpp>
#include <loopsim/model/data.hpp>

namespace loopsim {

struct JointLimitStepResult {
  int active_rows = 0;          // limit rows in the last problem (0: the step was left as it was)
  ContactSolverResult solve;    // of the last problem solved
};

/// What the limits did over a run (Simulation::jointLimitTotals()).
struct JointLimitTotals {
  long steps_at_bound = 0;      // steps that reached a bound
  int most_rows = 0;            // the most limits active at once
  int most_iterations = 0;      // the most ADMM iterations of a step's last problem
  double worst_residual = 0.0;  // the worst of the three residuals (contact_residuals.hpp) over those problems
  long unconverged = 0;         // problems that stopped at the iteration cap

  void add(const JointLimitStepResult& step);
};

class JointLimitStep {
 public:
  /// `equality`: the scene's constraint set (its rows become the bilateral block).
  JointLimitStep(const ConstraintSet& equality, std::vector<LimitedDof> dofs, const JointLimitSettings& settings,
                 const ContactSolverSettings& solver_settings = {});

  /// v_next: in v_eq, out v⁺. lambda_eq: in the equality solver's constraint
  /// forces, out plus the bilateral correction impulses / dt. added_inertia:
  /// the diagonal dt·D of M̃ (size nv, zero without implicit damping).
  /// time_constant: the Baumgarte T of the push-back past a bound.
  JointLimitStepResult apply(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v, double dt,
                             const Eigen::Ref<const VectorX>& added_inertia, double time_constant,
                             Eigen::Ref<VectorX> v_next, Eigen::Ref<VectorX> lambda_eq);

  const std::vector<LimitedDof>& dofs() const { return dofs_; }
  const JointLimitSettings& settings() const { return settings_; }
  /// The impulse of each limit in the last step (+ at the lower bound, − at the upper; 0 when inactive).
  const VectorX& limitImpulses() const { return limit_impulse_; }

 private:
  struct ActiveRow {
    int dof;     // index into dofs_
    double side; // +1 lower bound, −1 upper bound
  };
  double distance(const ActiveRow& row, const Eigen::Ref<const VectorX>& q) const;
  bool addCrossedBounds(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v_next, double dt);
  void solveActive(const Eigen::Ref<const VectorX>& q, double dt, double time_constant, JointLimitStepResult& result);

  const ConstraintSet* equality_;
  std::vector<LimitedDof> dofs_;
  JointLimitSettings settings_;
  Data data_;
  ConstraintData cdata_;
  DenseCholesky cholesky_;  // M̃ = L Lᵀ
  OrthonormalBasis equality_basis_;  // of X_eᵀ's columns
  ContactSolverSettings solver_settings_;
  struct Unilateral {
    ContactProblem problem;
    AdmmContactSolver solver;
  };
  std::vector<std::unique_ptr<Unilateral>> by_count_;  // [k − 1]: k active limits, made on first use
  std::vector<ActiveRow> active_;
  MatrixX J_, X_, M_, Xe_t_, C_, X_perp_;
  VectorX v_eq_, lambda_, lambda_e_, impulse_, limit_impulse_;
};

}  // namespace loopsim
