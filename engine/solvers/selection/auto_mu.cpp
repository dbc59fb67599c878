#include <loopsim/solvers/selection/auto_mu.hpp>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/constraints/constraint_data.hpp>

namespace loopsim {

InertiaEigenEstimator::InertiaEigenEstimator(const Model& model)
    : model_(model), data_(model), x_(model.nv), y_(model.nv) {}

AutoMuEstimate InertiaEigenEstimator::estimate(const Eigen::Ref<const VectorX>& q,
                                               const Eigen::Ref<const VectorX>& added_inertia,
                                               double relative_change, int max_sweeps) {
  AutoMuEstimate out;
  if (model_.nv == 0) return out;
  forwardKinematics(model_, data_, q);
  // A fixed start vector with no symmetry (an all-ones start is orthogonal to
  // the top eigenvector of a left-right symmetric pose more often than not).
  for (int i = 0; i < model_.nv; ++i) x_[i] = 1.0 + 0.5 * std::sin(1.0 + 2.3 * i);
  x_.normalize();
  const bool added = added_inertia.size() == model_.nv;
  double rayleigh = 0.0;
  for (int k = 1; k <= max_sweeps; ++k) {
    massMatrixTimesAtKinematics(model_, data_, x_, y_);
    if (added) y_ += added_inertia.cwiseProduct(x_);
    const double previous = rayleigh;
    rayleigh = x_.dot(y_);  // xᵀ(M + D)x with ‖x‖ = 1
    out.sweeps = k;
    const double norm = y_.norm();
    if (!(norm > 0.0) || !std::isfinite(norm)) break;
    x_ = y_ / norm;
    if (k >= 2 && std::abs(rayleigh - previous) <= relative_change * rayleigh) break;
  }
  out.lambda_max = rayleigh;
  return out;
}

AutoMuEstimate estimateInertiaEigenvalue(const Model& model, const Eigen::Ref<const VectorX>& q,
                                         const Eigen::Ref<const VectorX>& added_inertia) {
  InertiaEigenEstimator estimator(model);
  return estimator.estimate(q, added_inertia);
}

double estimateConstraintInertia(const ConstraintSet& set, const Eigen::Ref<const VectorX>& q,
                                 const Eigen::Ref<const VectorX>& added_inertia) {
  const Model& model = set.model();
  if (set.dimension() == 0 || model.nv == 0) return 0.0;
  Data data(model);
  MatrixX M = crba(model, data, q);
  if (added_inertia.size() == model.nv) M.diagonal() += added_inertia;
  ConstraintData cdata(set);
  computeConstraintTerms(set, data, q, VectorX::Zero(model.nv), cdata, kConstraintErrors | kConstraintJacobian);
  const Eigen::LLT<MatrixX> llt(M);
  if (llt.info() != Eigen::Success) return 0.0;
  const MatrixX L_inv_Jt = llt.matrixL().solve(cdata.J.transpose());  // D = (L⁻¹Jᵀ)ᵀ(L⁻¹Jᵀ)
  const MatrixX delassus = L_inv_Jt.transpose() * L_inv_Jt;
  const Eigen::SelfAdjointEigenSolver<MatrixX> eig(delassus, Eigen::EigenvaluesOnly);
  const VectorX& sigma = eig.eigenvalues();  // ascending
  const double floor = 1e-9 * sigma[sigma.size() - 1];
  for (int i = 0; i < sigma.size(); ++i) {
    if (sigma[i] > floor) return 1.0 / sigma[i];
  }
  return 0.0;
}

void resolvePenaltyMu(AutoMuEstimate& estimate, double cap) {
  estimate.capped = estimate.constraint_inertia > 0.0 &&
                    kAutoMuFactorConstraintInertia * estimate.constraint_inertia >= cap * estimate.lambda_max;
  if (estimate.constraint_inertia > 0.0 && !estimate.capped) {
    estimate.factor = kAutoMuFactorConstraintInertia;
    estimate.mu = estimate.factor * estimate.constraint_inertia;
  } else {
    estimate.factor = cap;
    estimate.mu = estimate.factor * estimate.lambda_max;
  }
}

bool resolvesAutoMu(const SolverSettings& settings, const SolverCapabilities& caps) {
  return settings.mu_auto || (!settings.mu && caps.penalty_in_inertia);
}

SolverSettings resolveAutoMu(const SolverSettings& settings, const SolverCapabilities& caps, AutoMuEstimate& estimate) {
  SolverSettings out = settings;
  out.mu_auto = false;
  if (!resolvesAutoMu(settings, caps)) {
    out.mu = settings.muValue();
    return out;
  }
  if (caps.penalty_in_inertia) {
    resolvePenaltyMu(estimate);
  } else {
    estimate.factor = kAutoMuFactorProximal;
    estimate.mu = estimate.factor * estimate.lambda_max;
    estimate.capped = false;
  }
  if (!(estimate.mu > 0.0) || !std::isfinite(estimate.mu)) estimate.mu = kDefaultMu;
  out.mu = estimate.mu;
  return out;
}

SolverSettings resolveAutoMu(const SolverSettings& settings, const SolverCapabilities& caps,
                             const ConstraintSet& constraints, const Eigen::Ref<const VectorX>& q,
                             const Eigen::Ref<const VectorX>& added_inertia) {
  AutoMuEstimate estimate;
  if (!resolvesAutoMu(settings, caps)) return resolveAutoMu(settings, caps, estimate);
  estimate = estimateInertiaEigenvalue(constraints.model(), q, added_inertia);
  if (caps.penalty_in_inertia) estimate.constraint_inertia = estimateConstraintInertia(constraints, q, added_inertia);
  return resolveAutoMu(settings, caps, estimate);
}

std::string explicitMuWarning(std::string_view solver, double mu, double auto_mu) {
  if (!(auto_mu > 0.0) || !(mu > kExplicitMuWarningRatio * auto_mu)) return {};
  // ~10-100x per decade of μ above auto (mu-sweep; Digit at q0: 2.7e-9 at
  // auto, 6.1e-3 at 1e8, 3.0 decades up: 2.3e6), rounded outwards to powers of ten.
  const double decades = std::log10(mu / auto_mu);
  const double low = std::pow(10.0, std::floor(decades)), high = std::pow(10.0, std::ceil(2.0 * decades));
  char line[400];
  std::snprintf(line, sizeof line,
                "solver '%.*s': mu %.3g is %.0f x what mu: auto chooses here (%.3g); %.*s puts mu K^T K inside the "
                "articulated inertias, where round-off grows ~10-100x per decade of mu (v̇ vs kkt on Digit: 3e-9 at "
                "auto, 6e-3 at 1e8): expect a v̇ error ~%.0e-%.0e x auto's; drop mu or set mu: auto",
                static_cast<int>(solver.size()), solver.data(), mu, mu / auto_mu, auto_mu,
                static_cast<int>(solver.size()), solver.data(), low, high);
  return line;
}

}  // namespace loopsim
