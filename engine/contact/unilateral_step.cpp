#include <loopsim/contact/unilateral_step.hpp>

#include <algorithm>
#include <cmath>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/jacobians.hpp>
#include <loopsim/algorithms/kinematics.hpp>

namespace loopsim {

const char* contactSolverName(ContactSolverKind kind) {
  return kind == ContactSolverKind::pgs ? "pgs" : "admm";
}

const char* contactSolverDescription(ContactSolverKind kind) {
  return kind == ContactSolverKind::pgs
             ? "projected Gauss-Seidel by blocks (a contact's normal, then its friction on the disc; limits clamped; "
               "bilateral blocks solved exactly): refuses a bilateral block whose part of the Delassus matrix is singular"
             : "ADMM on the exact Coulomb cones with a proximal term and the spectral penalty rule, De Saxce's "
               "correction each iteration: takes a singular Delassus matrix (the default)";
}

bool parseContactSolver(std::string_view name, ContactSolverKind& kind) {
  if (name == "admm") {
    kind = ContactSolverKind::admm;
    return true;
  }
  if (name == "pgs") {
    kind = ContactSolverKind::pgs;
    return true;
  }
  return false;
}

UnilateralStep::UnilateralStep(const ConstraintSet& equality, std::vector<LimitedDof> dofs,
                               const JointLimitSettings& settings, ContactSolverKind solver,
                               const ContactSolverSettings& solver_settings,
                               std::optional<StepFactorization> factorization)
    : equality_(&equality),
      dofs_(std::move(dofs)),
      settings_(settings),
      solver_kind_(solver),
      solver_settings_(solver_settings),
      data_(equality.model()),
      cdata_(equality),
      factor_(equality.model(), factorization.value_or(chooseFactorization(equality.model()))),
      equality_basis_(equality.model().nv, equality.dimension()) {
  checkContactSolverSettings(solver_settings, contactSolverName(solver));
  const int nv = equality.model().nv;
  active_.reserve(dofs_.size());
  point_jacobian_ = Matrix6X::Zero(6, nv);
  M_ = MatrixX::Zero(nv, nv);
  Xe_t_ = MatrixX::Zero(nv, equality.dimension());
  v_eq_ = VectorX::Zero(nv);
  lambda_e_ = VectorX::Zero(equality.dimension());
  impulse_ = VectorX::Zero(nv);
  limit_impulse_ = VectorX::Zero(static_cast<Eigen::Index>(dofs_.size()));
  ensureCapacity(0);
}

namespace {

// What both totals keep of a step that counted: one more step, the most rows (of
// their kind) at once, and the solve's iterations, residual and convergence.
void addCounted(int rows, const ContactSolverResult& solve, long& steps, int& most_rows, int& most_iterations,
                double& worst_residual, long& unconverged) {
  ++steps;
  most_rows = std::max(most_rows, rows);
  most_iterations = std::max(most_iterations, solve.iterations);
  worst_residual = std::max(worst_residual, solve.residuals.worst());
  if (!solve.converged) ++unconverged;
}

}  // namespace

void JointLimitTotals::add(const UnilateralStepResult& step) {
  if (step.active_rows == 0) return;
  addCounted(step.active_rows, step.solve, steps_at_bound, most_rows, most_iterations, worst_residual, unconverged);
}

void ContactTotals::add(const UnilateralStepResult& step) {
  if (step.contacts == 0) return;
  addCounted(step.contacts, step.solve, steps_in_contact, most_contacts, most_iterations, worst_residual, unconverged);
}

void UnilateralStep::ensureCapacity(int contacts) {
  if (contacts <= contact_capacity_) return;
  // Room for twice as many as seen, so a growing contact set reallocates rarely.
  const int room = contact_capacity_ < 0 ? contacts : std::max(contacts, 2 * contact_capacity_);
  contact_capacity_ = room;
  const int nv = equality_->model().nv, m_eq = equality_->dimension();
  const int rows = 3 * room + static_cast<int>(dofs_.size());
  equality_basis_.reserveWork(rows);
  J_ = MatrixX::Zero(m_eq + rows, nv);
  X_ = MatrixX::Zero(m_eq + rows, nv);
  C_ = MatrixX::Zero(m_eq, rows);
  X_perp_ = MatrixX::Zero(nv, rows);
  lambda_ = VectorX::Zero(rows);
  contact_g_ = VectorX::Zero(3 * room);
  VectorX kept = contact_impulse_;
  contact_impulse_ = VectorX::Zero(3 * room);
  contact_impulse_.head(kept.size()) = kept;
  previous_ids_.reserve(static_cast<std::size_t>(room));
}

UnilateralStep::Unilateral& UnilateralStep::problemFor(int contacts, int limits) {
  std::unique_ptr<Unilateral>& slot = problems_[{contacts, limits}];
  if (!slot) {  // the first step with this many contacts and limits: the only allocation
    std::vector<ContactBlock> blocks;
    for (int c = 0; c < contacts; ++c) blocks.push_back(frictionalBlock(3 * c, 0.0));
    for (int r = 0; r < limits; ++r) blocks.push_back(unilateralBlock(3 * contacts + r));
    const int m = 3 * contacts + limits;
    slot = std::make_unique<Unilateral>(
        Unilateral{ContactProblem(m, blocks), AdmmContactSolver(solver_settings_), PgsContactSolver(solver_settings_)});
    if (solver_kind_ == ContactSolverKind::admm) {
      slot->admm.resize(m);
    } else {
      slot->pgs.resize(slot->problem);
    }
  }
  return *slot;
}

double UnilateralStep::distance(const ActiveRow& row, const Eigen::Ref<const VectorX>& q) const {
  const LimitedDof& dof = dofs_[static_cast<std::size_t>(row.dof)];
  return row.side > 0.0 ? q[dof.iq] - dof.lower : dof.upper - q[dof.iq];
}

bool UnilateralStep::addCrossedBounds(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v_next,
                                      double dt) {
  if (!settings_.enabled) return false;
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

UnilateralStepResult UnilateralStep::apply(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                           double dt, const Eigen::Ref<const VectorX>& added_inertia,
                                           double time_constant, const std::vector<ContactRowSource>& contacts,
                                           Eigen::Ref<VectorX> v_next, Eigen::Ref<VectorX> lambda_eq) {
  UnilateralStepResult result;
  limit_impulse_.setZero();
  active_.clear();
  const int ncontacts = static_cast<int>(contacts.size());
  const bool limits_reached = addCrossedBounds(q, v_next, dt);
  if (ncontacts == 0) {
    previous_ids_.clear();
    if (!limits_reached) return result;
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
  }
  ensureCapacity(ncontacts);

  const Model& model = equality_->model();
  v_eq_ = v_next;
  M_ = crba(model, data_, q);  // M̃ = M + dt·D
  M_.diagonal() += added_inertia;
  factor_.factorize(M_);
  const int m_eq = equality_->dimension();
  if (m_eq > 0) {
    // X_e = J_e F⁻ᵀ and the QR of X_eᵀ.
    computeConstraintTerms(*equality_, data_, q, v, cdata_, kConstraintErrors | kConstraintJacobian);
    J_.topRows(m_eq) = cdata_.J;
    X_.topRows(m_eq) = cdata_.J;
    factor_.whitenRows(X_.topRows(m_eq));
    Xe_t_ = X_.topRows(m_eq).transpose();
    equality_basis_.compute(Xe_t_);
  }
  if (ncontacts > 0) {
    forwardKinematics(model, data_, q);
    contactRows(contacts, dt, time_constant);
  }
  // Each round adds at least one bound, so there are at most as many rounds as limited dofs.
  for (std::size_t round = 0; round <= dofs_.size(); ++round) {
    solveActive(q, dt, time_constant, contacts, result);
    v_next = v_eq_ + impulse_;
    if (!addCrossedBounds(q, v_next, dt)) break;
  }
  if (m_eq > 0) lambda_eq += lambda_e_ / dt;
  for (std::size_t r = 0; r < active_.size(); ++r) {
    limit_impulse_[active_[r].dof] =
        active_[r].side * lambda_[static_cast<Eigen::Index>(3 * ncontacts) + static_cast<Eigen::Index>(r)];
  }
  // This step's contact impulses, kept with their ids for the next step's warm start.
  contact_impulse_.head(3 * ncontacts) = lambda_.head(3 * ncontacts);
  previous_ids_.clear();
  for (const ContactRowSource& c : contacts) previous_ids_.push_back(c.id);
  return result;
}

// The rows of the contacts (J_c) and their constant terms without v_eq (the bias β
// on each normal row), from data_.oMi at q.
void UnilateralStep::contactRows(const std::vector<ContactRowSource>& contacts, double dt, double time_constant) {
  const Model& model = equality_->model();
  const int m_eq = equality_->dimension();
  jacobian_body_ = -1;
  for (std::size_t c = 0; c < contacts.size(); ++c) {
    const ContactRowSource& contact = contacts[c];
    auto rows = J_.middleRows(m_eq + 3 * static_cast<Eigen::Index>(c), 3);
    rows.setZero();
    // The point's velocity on body b minus on body a, in world axes, turned into the
    // contact frame: v_p = v_o + ω × r = J_lin − [r]× J_ang with r = R · point, from
    // the body's Jacobian at its origin in world axes (LocalWorldAligned), computed
    // once for the contacts of one body in a row (the detection sorts them by pair).
    for (const int side : {1, -1}) {
      const int body = side > 0 ? contact.body_b : contact.body_a;
      if (body == 0) continue;  // the world does not move
      if (body != jacobian_body_) {
        bodyPointJacobian(model, data_, body, SE3::Identity(), ReferenceFrame::LocalWorldAligned, point_jacobian_);
        jacobian_body_ = body;
      }
      const Vector3 r = data_.oMi[static_cast<std::size_t>(body)].R * (side > 0 ? contact.point_in_b : contact.point_in_a);
      const Matrix3 turn = static_cast<double>(side) * contact.frame.transpose();
      rows.noalias() += turn * point_jacobian_.bottomRows<3>();
      rows.noalias() -= (turn * skew(r)) * point_jacobian_.topRows<3>();
    }
    auto g = contact_g_.segment(3 * static_cast<Eigen::Index>(c), 3);
    g.setZero();
    g[2] = limitRowBias(contact.distance, dt, settings_.slop, time_constant);
  }
}

void UnilateralStep::solveActive(const Eigen::Ref<const VectorX>& q, double dt, double time_constant,
                                 const std::vector<ContactRowSource>& contacts, UnilateralStepResult& result) {
  const int m_eq = equality_->dimension();
  const int ncontacts = static_cast<int>(contacts.size());
  const int nlimits = static_cast<int>(active_.size());
  const int rows = 3 * ncontacts + nlimits;
  Unilateral& slot = problemFor(ncontacts, nlimits);
  ContactProblem& problem = slot.problem;
  for (int c = 0; c < ncontacts; ++c) problem.setFriction(c, contacts[static_cast<std::size_t>(c)].friction);

  // J_l = s e_iv per limit row, below the contact rows; X_u = J_u F⁻ᵀ.
  const int first_limit = m_eq + 3 * ncontacts;
  auto J_l = J_.middleRows(first_limit, nlimits);
  J_l.setZero();
  for (int r = 0; r < nlimits; ++r) {
    const ActiveRow& row = active_[static_cast<std::size_t>(r)];
    J_l(r, dofs_[static_cast<std::size_t>(row.dof)].iv) = row.side;
  }
  auto X_u = X_.middleRows(m_eq, rows);
  X_u = J_.middleRows(m_eq, rows);
  factor_.whitenRows(X_u);
  // G_red = X_⊥ᵀ X_⊥ (the equality rows eliminated), X_⊥ = X_uᵀ − X_eᵀ C.
  auto X_perp = X_perp_.leftCols(rows);
  X_perp = X_u.transpose();
  if (m_eq > 0) {
    equality_basis_.coefficients(X_perp, C_.leftCols(rows));
    equality_basis_.removeRange(X_perp);
  }
  problem.G().noalias() = X_perp.transpose() * X_perp;
  // g: a contact's rows are J_c v_eq + β; a limit row is s v_eq + β (joint_limits.hpp);
  // the equality rows hold what v_eq satisfies.
  if (ncontacts > 0) {
    problem.g().head(3 * ncontacts).noalias() = J_.middleRows(m_eq, 3 * ncontacts) * v_eq_;
    problem.g().head(3 * ncontacts) += contact_g_.head(3 * ncontacts);
  }
  for (int r = 0; r < nlimits; ++r) {
    const ActiveRow& row = active_[static_cast<std::size_t>(r)];
    problem.g()[3 * ncontacts + r] = row.side * v_eq_[dofs_[static_cast<std::size_t>(row.dof)].iv] +
                                     limitRowBias(distance(row, q), dt, settings_.slop, time_constant);
  }
  // Warm start: a persisting contact starts from its previous impulse, the rest from 0.
  auto lambda = lambda_.head(rows);
  lambda.setZero();
  for (int c = 0; c < ncontacts; ++c) {
    const std::uint64_t id = contacts[static_cast<std::size_t>(c)].id;
    const auto found = std::find(previous_ids_.begin(), previous_ids_.end(), id);
    if (found != previous_ids_.end()) {
      lambda.segment<3>(3 * c) = contact_impulse_.segment<3>(3 * (found - previous_ids_.begin()));
    }
  }
  result.solve = solver_kind_ == ContactSolverKind::admm ? slot.admm.solve(problem, lambda)
                                                         : slot.pgs.solve(problem, lambda);
  result.contacts = ncontacts;
  result.active_rows = nlimits;
  // v⁺ − v_eq = M̃⁻¹ (J_eᵀ λ_e + J_uᵀ λ_u) = F⁻ᵀ X_⊥ λ_u, with λ_e = −C λ_u.
  impulse_.noalias() = X_perp * lambda;
  factor_.unwhiten(impulse_);
  if (m_eq > 0) lambda_e_.noalias() = -C_.leftCols(rows) * lambda;
}

}  // namespace loopsim
