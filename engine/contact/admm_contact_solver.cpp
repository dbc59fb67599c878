#include <loopsim/contact/admm_contact_solver.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <loopsim/contact/coulomb_cone.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

constexpr std::string_view kName = "admm";

// out = P_K(in), block by block (in and out may be the same vector).
void projectOntoCones(const ContactProblem& problem, const VectorX& in, VectorX& out) {
  for (const ContactBlock& b : problem.blocks()) {
    switch (b.kind) {
      case ContactBlockKind::frictional:
        out.segment<3>(b.first) = projectOntoCoulombCone(b.mu, in.segment<3>(b.first));
        break;
      case ContactBlockKind::unilateral:
        out[b.first] = std::max(in[b.first], 0.0);
        break;
      case ContactBlockKind::bilateral:
        out.segment(b.first, b.rows) = in.segment(b.first, b.rows);
        break;
    }
  }
}

// s = the De Saxcé correction of v: μ ‖v_t‖ on each contact's normal row, 0 elsewhere.
void deSaxceCorrection(const ContactProblem& problem, const VectorX& v, VectorX& s) {
  s.setZero();
  for (const ContactBlock& b : problem.blocks()) {
    if (b.kind != ContactBlockKind::frictional || std::isinf(b.mu)) continue;
    s[b.first + 2] = b.mu * v.segment<2>(b.first).norm();
  }
}

}  // namespace

AdmmContactSolver::AdmmContactSolver(const ContactSolverSettings& settings) : settings_(settings) {
  checkContactSolverSettings(settings_, kName);
}

void AdmmContactSolver::setSettings(const ContactSolverSettings& settings) {
  checkContactSolverSettings(settings, kName);
  settings_ = settings;
}

void AdmmContactSolver::resize(int m) {
  if (m < 0) throw ModelError("", "contact solver 'admm'", "size must be >= 0, got " + std::to_string(m));
  for (VectorX* w : {&x_, &z_, &z_previous_, &u_, &v_, &s_, &rhs_, &power_, &power_next_}) w->setZero(m);
  power_.setOnes();
  shifted_.setZero(m, m);
  cholesky_ = DenseCholesky(m);
}

double AdmmContactSolver::estimateLargestEigenvalue(const MatrixX& G) {
  // Power iteration from the last solve's eigenvector (G changes little from
  // step to step); only the order of magnitude matters to the spectral rule.
  double norm = power_.norm();
  if (!(norm > 0.0) || !std::isfinite(norm)) {
    power_.setOnes();
    norm = power_.norm();
  }
  power_ /= norm;
  double estimate = 0.0;
  for (int k = 0; k < settings_.power_iterations; ++k) {
    power_next_.noalias() = G * power_;
    const double next_norm = power_next_.norm();
    if (!(next_norm > 0.0)) break;  // G power_ = 0: restart from ones next time
    estimate = power_.dot(power_next_);  // Rayleigh quotient of the unit vector
    power_ = power_next_ / next_norm;
  }
  return estimate;
}

void AdmmContactSolver::factorize(const MatrixX& G) {
  shifted_ = G;
  shifted_.diagonal().array() += rho_ + settings_.proximal;
  // G ⪰ 0 and ρ + η > 0: positive definite, a zero ratio only from non-finite input.
  if (!(cholesky_.factorize(shifted_) > 0.0)) {
    throw ModelError("", "contact solver 'admm'",
                     "G + (rho + eta) I is not positive definite (G must be symmetric positive semi-definite and finite)");
  }
}

ContactSolverResult AdmmContactSolver::solve(const ContactProblem& problem, Eigen::Ref<VectorX> lambda) {
  const int m = problem.size();
  if (m != size() || lambda.size() != m) {
    throw ModelError("", "contact solver 'admm'",
                     "sized for " + std::to_string(size()) + " rows (resize), the problem has " + std::to_string(m) +
                         " and lambda " + std::to_string(lambda.size()));
  }
  const MatrixX& G = problem.G();
  const VectorX& g = problem.g();
  const double eta = settings_.proximal;
  ContactSolverResult result;

  // Warm start: z = x = P_K(λ), u = the corrected velocity of z.
  x_ = lambda;
  projectOntoCones(problem, x_, z_);
  x_ = z_;
  problem.velocity(z_, v_);
  deSaxceCorrection(problem, v_, s_);
  u_ = v_ + s_;
  result.residuals = contactResiduals(problem, z_, v_);
  if (result.residuals.worst() <= settings_.tolerance) {
    lambda = z_;
    result.converged = true;
    return result;
  }

  // Spectral rule: ρ = √(η L) κ^p, κ = L / η.
  largest_eigenvalue_ = estimateLargestEigenvalue(G);
  const double L = std::max(largest_eigenvalue_, eta);
  const double kappa = L / eta;
  double power = settings_.rho_power;
  rho_ = std::sqrt(eta * L) * std::pow(kappa, power);
  factorize(G);

  for (int k = 1; k <= settings_.max_iterations; ++k) {
    result.iterations = k;
    // (A1)
    rhs_ = u_ - g - s_;
    rhs_ += rho_ * z_;
    rhs_ += eta * x_;
    cholesky_.solveInPlace(rhs_);
    x_ = rhs_;
    // (A2), with rhs_ holding x − u / ρ
    z_previous_ = z_;
    rhs_ = x_ - u_ / rho_;
    projectOntoCones(problem, rhs_, z_);
    // (A3)
    u_ -= rho_ * (x_ - z_);
    // (A4), and the velocity of z for the residuals
    deSaxceCorrection(problem, u_, s_);
    problem.velocity(z_, v_);

    result.residuals = contactResiduals(problem, z_, v_);
    if (result.residuals.worst() <= settings_.tolerance) {
      result.converged = true;
      break;
    }
    // Residual balancing on the spectral power p (ADMM's primal and dual residuals).
    const double primal = (x_ - z_).lpNorm<Eigen::Infinity>();
    const double dual = rho_ * (z_ - z_previous_).lpNorm<Eigen::Infinity>();
    double next_power = power;
    if (primal > settings_.balance_ratio * dual) next_power = std::min(power + settings_.rho_power_step, 1.0);
    else if (dual > settings_.balance_ratio * primal) next_power = std::max(power - settings_.rho_power_step, -1.0);
    if (next_power != power) {
      power = next_power;
      rho_ = std::sqrt(eta * L) * std::pow(kappa, power);
      factorize(G);
    }
  }
  lambda = z_;
  return result;
}

}  // namespace loopsim
