#include <loopsim/contact/joint_limit_step.hpp>

#include <algorithm>
#include <cmath>

#include <loopsim/algorithms/dynamics.hpp>

namespace loopsim {

JointLimitStep::JointLimitStep(const ConstraintSet& equality, std::vector<LimitedDof> dofs,
                               const JointLimitSettings& settings, const ContactSolverSettings& solver_settings)
    : equality_(&equality),
      dofs_(std::move(dofs)),
      settings_(settings),
      data_(equality.model()),
      cdata_(equality),
      cholesky_(equality.model().nv),
      equality_basis_(equality.model().nv, equality.dimension()),
      solver_settings_(solver_settings) {
  checkContactSolverSettings(solver_settings, "admm");
  const int nv = equality.model().nv, m_eq = equality.dimension();
  const int limits = static_cast<int>(dofs_.size());
  active_.reserve(dofs_.size());
  by_count_.resize(dofs_.size());
  equality_basis_.reserveWork(limits);
  J_ = MatrixX::Zero(m_eq + limits, nv);
  X_ = MatrixX::Zero(m_eq + limits, nv);
  M_ = MatrixX::Zero(nv, nv);
  Xe_t_ = MatrixX::Zero(nv, m_eq);
  C_ = MatrixX::Zero(m_eq, limits);
  X_perp_ = MatrixX::Zero(nv, limits);
  v_eq_ = VectorX::Zero(nv);
  lambda_e_ = VectorX::Zero(m_eq);
  impulse_ = VectorX::Zero(nv);
  lambda_ = VectorX::Zero(limits);
  limit_impulse_ = VectorX::Zero(limits);
}

void JointLimitTotals::add(const JointLimitStepResult& step) {
  if (step.active_rows == 0) return;
  ++steps_at_bound;
  most_rows = std::max(most_rows, step.active_rows);
  most_iterations = std::max(most_iterations, step.solve.iterations);
  worst_residual = std::max(worst_residual, step.solve.residuals.worst());
  if (!step.solve.converged) ++unconverged;
}

double JointLimitStep::distance(const ActiveRow& row, const Eigen::Ref<const VectorX>& q) const {
  const LimitedDof& dof = dofs_[static_cast<std::size_t>(row.dof)];
  return row.side > 0.0 ? q[dof.iq] - dof.lower : dof.upper - q[dof.iq];
}

bool JointLimitStep::addCrossedBounds(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v_next,
                                      double dt) {
  bool added = false;
  for (int k = 0; k < static_cast<int>(dofs_.size()); ++k) {
    const LimitedDof& dof = dofs_[static_cast<std::size_t>(k)];
    if (std::any_of(active_.begin(), active_.end(), [k](const ActiveRow& r) { return r.dof == k; })) continue;
    // The bound the step ends past (a dof is held by one side at a time).
    for (const double side : {1.0, -1.0}) {
      const double bound = side > 0.0 ? dof.lower : dof.upper;
      if (!std::isfinite(bound)) continue;
      const ActiveRow row{k, side};
      if (distance(row, q) + dt * side * v_next[dof.iv] < 0.0) {
        active_.push_back(row);
        added = true;
        break;
      }
    }
  }
  return added;
}

JointLimitStepResult JointLimitStep::apply(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                           double dt, const Eigen::Ref<const VectorX>& added_inertia,
                                           double time_constant, Eigen::Ref<VectorX> v_next,
                                           Eigen::Ref<VectorX> lambda_eq) {
  JointLimitStepResult result;
  limit_impulse_.setZero();
  active_.clear();
  if (!settings_.enabled || !addCrossedBounds(q, v_next, dt)) return result;
  // λ = 0 solves the problem (to the solver's tolerance, which is what its own
  // check before the first iteration would find) when every reached row has
  // g = s v_eq + β ≥ 0, so v⁺ = v_eq: a dof resting on its bound costs no solve.
  const bool at_rest = std::all_of(active_.begin(), active_.end(), [&](const ActiveRow& row) {
    return row.side * v_next[dofs_[static_cast<std::size_t>(row.dof)].iv] +
               limitRowBias(distance(row, q), dt, settings_.slop, time_constant) >=
           -solver_settings_.tolerance;
  });
  if (at_rest) {
    active_.clear();
    return result;
  }

  const Model& model = equality_->model();
  v_eq_ = v_next;
  M_ = crba(model, data_, q);  // M̃ = M + dt·D
  M_.diagonal() += added_inertia;
  cholesky_.factorize(M_);
  const int m_eq = equality_->dimension();
  if (m_eq > 0) {
    // X_e = J_e L⁻ᵀ and the QR of X_eᵀ.
    computeConstraintTerms(*equality_, data_, q, v, cdata_, kConstraintErrors | kConstraintJacobian);
    J_.topRows(m_eq) = cdata_.J;
    X_.topRows(m_eq) = cdata_.J;
    cholesky_.solveLowerTransposedRows(X_.topRows(m_eq));
    Xe_t_ = X_.topRows(m_eq).transpose();
    equality_basis_.compute(Xe_t_);
  }
  // Each round adds at least one bound, so there are at most as many rounds as limited dofs.
  for (std::size_t round = 0; round < dofs_.size(); ++round) {
    solveActive(q, dt, time_constant, result);
    v_next = v_eq_ + impulse_;
    if (!addCrossedBounds(q, v_next, dt)) break;
  }
  if (m_eq > 0) lambda_eq += lambda_e_ / dt;
  for (std::size_t r = 0; r < active_.size(); ++r) {
    limit_impulse_[active_[r].dof] = active_[r].side * lambda_[static_cast<Eigen::Index>(r)];
  }
  return result;
}

void JointLimitStep::solveActive(const Eigen::Ref<const VectorX>& q, double dt, double time_constant,
                                 JointLimitStepResult& result) {
  const int m_eq = equality_->dimension();
  const int rows = static_cast<int>(active_.size());
  std::unique_ptr<Unilateral>& slot = by_count_[static_cast<std::size_t>(rows - 1)];
  if (!slot) {  // the first step with this many limits active: the only allocation
    std::vector<ContactBlock> blocks;
    for (int r = 0; r < rows; ++r) blocks.push_back(unilateralBlock(r));
    slot = std::make_unique<Unilateral>(Unilateral{ContactProblem(rows, blocks), AdmmContactSolver(solver_settings_)});
    slot->solver.resize(rows);
  }
  ContactProblem& problem = slot->problem;

  // J_l = s e_iv per row; X_l = J_l L⁻ᵀ.
  auto J_l = J_.middleRows(m_eq, rows);
  auto X_l = X_.middleRows(m_eq, rows);
  J_l.setZero();
  for (int r = 0; r < rows; ++r) {
    const ActiveRow& row = active_[static_cast<std::size_t>(r)];
    J_l(r, dofs_[static_cast<std::size_t>(row.dof)].iv) = row.side;
  }
  X_l = J_l;
  cholesky_.solveLowerTransposedRows(X_l);
  // G_red = X_⊥ᵀ X_⊥ (the equality rows eliminated), X_⊥ = X_lᵀ − X_eᵀ C.
  auto X_perp = X_perp_.leftCols(rows);
  X_perp = X_l.transpose();
  if (m_eq > 0) {
    equality_basis_.coefficients(X_perp, C_.leftCols(rows));
    equality_basis_.removeRange(X_perp);
  }
  problem.G().noalias() = X_perp.transpose() * X_perp;
  // g: a limit row is s v_eq + β (joint_limits.hpp); the equality rows hold what v_eq satisfies.
  for (int r = 0; r < rows; ++r) {
    const ActiveRow& row = active_[static_cast<std::size_t>(r)];
    problem.g()[r] = row.side * v_eq_[dofs_[static_cast<std::size_t>(row.dof)].iv] +
                      limitRowBias(distance(row, q), dt, settings_.slop, time_constant);
  }
  auto lambda = lambda_.head(rows);
  lambda.setZero();
  result.solve = slot->solver.solve(problem, lambda);
  result.active_rows = rows;
  // v⁺ − v_eq = M̃⁻¹ (J_eᵀ λ_e + J_lᵀ λ_l) = L⁻ᵀ X_⊥ λ_l, with λ_e = −C λ_l.
  impulse_.noalias() = X_perp * lambda;
  cholesky_.solveUpper(impulse_);
  if (m_eq > 0) lambda_e_.noalias() = -C_.leftCols(rows) * lambda;
}

}  // namespace loopsim
