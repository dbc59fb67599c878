#include <loopsim/sim/projection.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/solvers/joint_space/joint_space_terms.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

namespace {
constexpr int kVelocityRefinementPasses = 3;
// Smallest pivot over the largest diagonal entry above which the Gram matrix
// is factored undamped: a condition number below ~1e8, where the undamped
// solve loses at most ~1e-8 of the (small) correction to round-off.
constexpr double kUndampedPivotRatio = 1e-8;

// True when every row of r = J v is within the round-off of computing it:
// |r_i| <= 8 ε Σ_k |J_ik v_k|. The sums are formed a column at a time into
// `bound` (J is column-major: row by row they were strided dot products;
// docs/performance.md).
bool atRoundOff(const MatrixX& J, const Eigen::Ref<const VectorX>& v, const VectorX& r, VectorX& bound) {
  constexpr double kFloor = 8.0 * std::numeric_limits<double>::epsilon();
  const Eigen::Index m = J.rows();
  double* b = bound.data();
  std::fill(b, b + m, 0.0);
  for (Eigen::Index k = 0; k < J.cols(); ++k) {
    const double a = std::abs(v[k]);
    const double* column = J.data() + k * J.outerStride();
    for (Eigen::Index i = 0; i < m; ++i) b[i] += a * std::abs(column[i]);
  }
  for (Eigen::Index i = 0; i < m; ++i) {
    if (std::abs(r[i]) > kFloor * b[i]) return false;
  }
  return true;
}
}  // namespace

ConstraintProjector::ConstraintProjector(const ConstraintSet& set, const std::vector<int>& held_joints,
                                         const ProjectionSettings& settings)
    : set_(set),
      settings_(settings),
      data_(set.model()),
      cdata_(set),
      free_mask_(VectorX::Ones(set.model().nv)),
      free_jacobian_(MatrixX::Zero(set.dimension(), set.model().nv)),
      gram_(MatrixX::Zero(set.dimension(), set.dimension())),
      gram_cholesky_(set.dimension()),
      gram_ldlt_(set.dimension()),
      mass_ltl_(set.model()),
      winv_jt_(MatrixX::Zero(set.model().nv, set.dimension())),
      multiplier_(VectorX::Zero(set.dimension())),
      velocity_residual_(VectorX::Zero(set.dimension())),
      round_off_bound_(VectorX::Zero(set.dimension())),
      step_(VectorX::Zero(set.model().nv)),
      q_start_(VectorX::Zero(set.model().nq)),
      q_trial_(VectorX::Zero(set.model().nq)),
      displacement_(VectorX::Zero(set.model().nv)),
      zero_nv_(VectorX::Zero(set.model().nv)) {
  const Model& model = set.model();
  if (set.dimension() > 0) {
    own_terms_ = std::make_unique<JointSpaceTerms>(set, zero_nv_);
    terms_ = own_terms_.get();
  }
  for (int j : held_joints) {
    if (j < 1 || j >= model.nbodies()) {
      throw ModelError(model.source_file, "held joints", "joint index " + std::to_string(j) + " out of range");
    }
    free_mask_.segment(model.idx_v[j], model.joint_nv[j]).setZero();
    has_held_ = true;
  }
  if (settings.max_iterations < 0 || settings.max_backtracks < 0 || !(settings.position_tolerance > 0.0) ||
      !(settings.relative_damping >= 0.0)) {
    throw ModelError(model.source_file, "projection settings", "iterations must be >= 0, tolerance > 0, damping >= 0");
  }
}

ConstraintProjector::~ConstraintProjector() = default;

void ConstraintProjector::shareTerms(ProjectionTerms* terms) {
  if (own_terms_) terms_ = terms != nullptr ? terms : own_terms_.get();
}

void ConstraintProjector::setMetricDiagonal(const VectorX* d) {
  if (d != nullptr && d->size() != set_.model().nv) {
    throw ModelError(set_.model().source_file, "projection metric",
                     "diagonal of size " + std::to_string(d->size()) + ", expected nv = " +
                         std::to_string(set_.model().nv));
  }
  metric_diagonal_ = d != nullptr ? d : &zero_nv_;
}

void ConstraintProjector::useImpulseSolver(ConstrainedSolver* solver) {
  if (solver != nullptr) {
    const std::string what = "solver '" + std::string(solver->name()) + "'";
    if (!solver->supportsImpulseSolve()) {
      throw ModelError(set_.model().source_file, "projection", what + " has no impulse solve");
    }
    if (&solver->constraints() != &set_) {
      throw ModelError(set_.model().source_file, "projection", what + " is bound to another constraint set");
    }
    if (has_held_) {
      throw ModelError(set_.model().source_file, "projection",
                       what + ": held joints project on the dense path only");
    }
  }
  impulse_solver_ = solver;
}

double ConstraintProjector::positionErrorNorm(const Eigen::Ref<const VectorX>& q) {
  forwardKinematics(set_.model(), data_, q);
  evaluatePositionErrors(set_, data_, q, cdata_);
  return cdata_.phi.norm();
}

void ConstraintProjector::freeJacobian(const Eigen::Ref<const VectorX>& q) {
  computeConstraintTerms(set_, data_, q, zero_nv_, cdata_, kConstraintErrors | kConstraintJacobian);
  free_jacobian_ = cdata_.J;
  if (has_held_) free_jacobian_.array().rowwise() *= free_mask_.transpose().array();
}

double ConstraintProjector::damping(const MatrixX& gram) const {
  return settings_.relative_damping * std::max(1.0, gram.diagonal().maxCoeff());
}

void ConstraintProjector::factorGram() {
  // Undamped while the pivots stay well away from collapse: then one solve
  // leaves J v (or φ's linearisation) at round-off and the refinement below
  // stops after its first pass. The damping is for redundant and
  // near-redundant sets only, whose pivots collapse.
  gram_factor_ = &gram_cholesky_;
  if (gram_cholesky_.factorize(gram_) > kUndampedPivotRatio) {
    gram_pivoted_ = false;
    return;
  }
  const double mu = damping(gram_);
  gram_pivoted_ = !(gram_cholesky_.factorize(gram_, mu) > 0.0);
  if (gram_pivoted_) {
    gram_.diagonal().array() += mu;
    gram_ldlt_.compute(gram_);
  }
}

void ConstraintProjector::solveGram(Eigen::Ref<VectorX> x) const {
  if (gram_pivoted_) {
    gram_ldlt_.solveInPlace(x);
  } else {
    gram_factor_->solveInPlace(x);
  }
}

template <class Direction>
ProjectionResult ConstraintProjector::gaussNewton(Eigen::Ref<VectorX> q, int max_iterations, Direction&& direction) {
  const Model& model = set_.model();
  if (max_iterations <= 0) max_iterations = settings_.max_iterations;
  ProjectionResult result;
  q_start_ = q;
  if (set_.dimension() == 0) {
    result.converged = true;
    return result;
  }
  double error = positionErrorNorm(q);
  double error_inf = cdata_.phi.lpNorm<Eigen::Infinity>();
  while (error_inf > settings_.position_tolerance && result.iterations < max_iterations) {
    ++result.iterations;
    direction(q);  // step_ at q; cdata_.phi = φ(q)
    // Backtracking: far from the manifold the linearisation can overshoot.
    double alpha = 1.0;
    double trial_error = error;
    for (int b = 0; b <= settings_.max_backtracks; ++b, alpha *= 0.5) {
      integrate(model, q, step_, alpha, q_trial_);
      trial_error = positionErrorNorm(q_trial_);
      if (trial_error < error) break;
    }
    if (!(trial_error < error)) break;  // stalled: no descent along the Gauss-Newton direction
    q = q_trial_;
    error = trial_error;
    error_inf = cdata_.phi.lpNorm<Eigen::Infinity>();  // φ of the accepted q_trial_
  }
  result.position_residual = error_inf;
  result.converged = error_inf <= settings_.position_tolerance;
  difference(model, q_start_, q, displacement_);
  result.position_correction = displacement_.norm();
  return result;
}

ProjectionResult ConstraintProjector::projectPositions(Eigen::Ref<VectorX> q, int max_iterations) {
  if (impulse_solver_ != nullptr) {
    // The W-metric step δq = W⁻¹Jᵀ(J W⁻¹Jᵀ)⁻¹(-φ): the impulse solve with r = -φ(q).
    return gaussNewton(q, max_iterations, [&](const Eigen::Ref<const VectorX>& at) {
      multiplier_ = -cdata_.phi;
      impulse_solver_->solveImpulse(at, multiplier_, step_);
    });
  }
  // The identity-metric step δq = -J_fᵀ(J_f J_fᵀ + μI)⁻¹φ.
  return gaussNewton(q, max_iterations, [&](const Eigen::Ref<const VectorX>& at) {
    freeJacobian(at);  // also refreshes φ(q)
    gram_.noalias() = free_jacobian_ * free_jacobian_.transpose();
    factorGram();
    multiplier_ = cdata_.phi;
    solveGram(multiplier_);
    step_.noalias() = -free_jacobian_.transpose() * multiplier_;
  });
}

ProjectionResult ConstraintProjector::projectVelocities(const Eigen::Ref<const VectorX>& q, Eigen::Ref<VectorX> v) {
  ProjectionResult result;
  result.converged = true;
  if (set_.dimension() == 0) return result;
  if (has_held_) return projectVelocitiesHolding(q, v, result);
  if (impulse_solver_ != nullptr) {
    computeConstraintTerms(set_, data_, q, v, cdata_, kConstraintErrors);  // φ̇ = J v, no dense J
    return projectVelocitiesByImpulse(q, v, result);
  }
  // Λ = J W⁻¹ Jᵀ through M's LTDL factors and the constraints'
  // supports (the joint-space solvers' terms), never a dense M⁻¹ Jᵀ.
  terms_->evaluateDelassus(q, v, *metric_diagonal_);  // W = M + diag(d)
  return projectVelocitiesAtTerms(v, result);
}

ProjectionResult ConstraintProjector::projectVelocitiesByImpulse(const Eigen::Ref<const VectorX>& q,
                                                                 Eigen::Ref<VectorX> v, ProjectionResult result) {
  // Δ with W Δ = Jᵀp and J Δ = -J v: v + Δ is the W-norm closest velocity with J v = 0.
  result.position_residual = cdata_.phi.lpNorm<Eigen::Infinity>();
  velocity_residual_ = -cdata_.phidot;
  const SolveStats stats = impulse_solver_->solveImpulse(q, velocity_residual_, step_);
  v += step_;
  result.velocity_correction = step_.norm();
  result.velocity_residual = stats.residual;  // ‖J Δ - r‖∞ = ‖J (v + Δ)‖∞
  return result;
}

ProjectionResult ConstraintProjector::projectVelocitiesAtTerms(Eigen::Ref<VectorX> v, ProjectionResult result) {
  const ConstraintData& cd = terms_->constraintData();
  result.position_residual = cd.phi.lpNorm<Eigen::Infinity>();
  // Λ's undamped factors are the terms' own when its pivots allow (the next
  // solve at this q then reuses them); else gram_ as in factorGram.
  double pivot_ratio = 0.0;
  const SmallCholesky& delassus_factor = terms_->factoredDelassus(pivot_ratio);
  if (pivot_ratio > kUndampedPivotRatio) {
    gram_factor_ = &delassus_factor;
    gram_pivoted_ = false;
  } else {
    gram_ = terms_->delassus();
    factorGram();
  }
  return refineVelocities(cd, v, result, [&] { terms_->inverseMassTimesJt(multiplier_, step_); });
}

template <class WinvJtTimesMultiplier>
ProjectionResult ConstraintProjector::refineVelocities(const ConstraintData& cd, Eigen::Ref<VectorX> v,
                                                       ProjectionResult result, WinvJtTimesMultiplier&& winv_jt) {
  // The damping μ leaves a residual ~ μ/λ_min(Λ) of J v; iterative refinement
  // with the same factorisation removes it (each pass shrinks it by μ/(λ + μ)).
  // A pass stops the refinement once J v is at the round-off of evaluating it
  // (a few ε·Σ|J_ri v_i| per row): more passes would only move v by round-off.
  velocity_residual_ = cd.phidot;
  double correction2 = 0.0;
  for (int pass = 0; pass < kVelocityRefinementPasses; ++pass) {
    multiplier_ = velocity_residual_;
    solveGram(multiplier_);
    winv_jt();  // step_ = W⁻¹ J_fᵀ multiplier_
    v -= step_;
    correction2 += step_.squaredNorm();
    velocity_residual_.noalias() = cd.J * v;
    if (pass + 1 < kVelocityRefinementPasses && atRoundOff(cd.J, v, velocity_residual_, round_off_bound_)) break;
  }
  result.velocity_correction = std::sqrt(correction2);
  result.velocity_residual = velocity_residual_.lpNorm<Eigen::Infinity>();
  return result;
}

ProjectionResult ConstraintProjector::projectVelocitiesHolding(const Eigen::Ref<const VectorX>& q,
                                                               Eigen::Ref<VectorX> v, ProjectionResult result) {
  const Model& model = set_.model();
  computeConstraintTerms(set_, data_, q, v, cdata_, kConstraintErrors | kConstraintJacobian);
  result.position_residual = cdata_.phi.lpNorm<Eigen::Infinity>();
  free_jacobian_ = cdata_.J;
  // M from the placements computeConstraintTerms has just computed at q. Only
  // M's ancestor pattern is ever written here (the held rows below included),
  // which crbaAtWorldInertias requires.
  worldInertiasAndSubspaces(model, data_);
  crbaAtWorldInertias(model, data_);
  // W: M restricted to the free dofs, identity on held ones (which J_f does not touch).
  free_jacobian_.array().rowwise() *= free_mask_.transpose().array();
  for (int i = 0; i < model.nv; ++i) {
    if (free_mask_[i] != 0.0) continue;
    data_.M.row(i).setZero();
    data_.M.col(i).setZero();
    data_.M(i, i) = 1.0;
  }
  mass_ltl_.factorize(data_.M);  // zeroing held rows and columns keeps the tree pattern
  winv_jt_ = free_jacobian_.transpose();
  for (Eigen::Index k = 0; k < winv_jt_.cols(); ++k) mass_ltl_.solve(winv_jt_.col(k));
  gram_.noalias() = free_jacobian_ * winv_jt_;
  factorGram();
  return refineVelocities(cdata_, v, result, [&] { step_.noalias() = winv_jt_ * multiplier_; });
}

ProjectionResult ConstraintProjector::project(Eigen::Ref<VectorX> q, Eigen::Ref<VectorX> v, int max_iterations) {
  if (impulse_solver_ != nullptr && set_.dimension() > 0) {
    // One kinematics pass gives φ(q) and J v: when q needs no correction (the
    // common case after a stabilised step) it serves the velocity projection.
    computeConstraintTerms(set_, data_, q, v, cdata_, kConstraintErrors);
    ProjectionResult result;
    result.converged = true;
    if (cdata_.phi.lpNorm<Eigen::Infinity>() > settings_.position_tolerance) {
      result = projectPositions(q, max_iterations);
      computeConstraintTerms(set_, data_, q, v, cdata_, kConstraintErrors);
    }
    return projectVelocitiesByImpulse(q, v, result);
  }
  if (terms_ && !has_held_) {
    // The velocity projection's kinematics at q give φ(q) too: when q needs
    // no correction (the common case after a stabilised step), one pass
    // serves both projections.
    terms_->evaluateDelassus(q, v, *metric_diagonal_);  // W = M + diag(d)
    const double error_inf = terms_->constraintData().phi.lpNorm<Eigen::Infinity>();
    if (error_inf <= settings_.position_tolerance) {
      ProjectionResult result;
      result.converged = true;
      result = projectVelocitiesAtTerms(v, result);
      result.position_residual = error_inf;
      return result;
    }
  }
  ProjectionResult result = projectPositions(q, max_iterations);
  const ProjectionResult velocity = projectVelocities(q, v);
  result.velocity_residual = velocity.velocity_residual;
  result.velocity_correction = velocity.velocity_correction;
  return result;
}

namespace {

std::string formatNumber(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", x);
  return buffer;
}

}  // namespace

ProjectionResult makeConsistent(const ConstraintSet& set, Eigen::Ref<VectorX> q, Eigen::Ref<VectorX> v,
                                const std::vector<int>& held_joints, const ProjectionSettings& settings) {
  constexpr double kAcceptedPositionResidual = 1e-10;
  const Model& model = set.model();
  ConstraintProjector projector(set, held_joints, settings);
  const ProjectionResult result = projector.project(q, v);
  if (!(result.position_residual <= kAcceptedPositionResidual)) {
    // Name the worst row at the final configuration.
    Data data(model);
    ConstraintData cdata(set);
    forwardKinematics(model, data, q);
    evaluatePositionErrors(set, data, q, cdata);
    Eigen::Index worst = 0;
    cdata.phi.cwiseAbs().maxCoeff(&worst);
    throw ModelError(model.source_file, "initial state",
                     "consistent start did not converge: |phi|inf = " + formatNumber(result.position_residual) +
                         " (> " + formatNumber(kAcceptedPositionResidual) + ") after " +
                         std::to_string(result.iterations) + " Gauss-Newton iterations; worst row " +
                         set.rowDescription(static_cast<int>(worst)) +
                         ". Check the initial joint positions, the constraint frames and the held joints");
  }
  const double velocity_scale = std::max(1.0, v.lpNorm<Eigen::Infinity>());
  if (!(result.velocity_residual <= 1e-8 * velocity_scale)) {
    throw ModelError(model.source_file, "initial state",
                     "consistent start: the velocity projection leaves |J v|inf = " +
                         formatNumber(result.velocity_residual) +
                         " (the held joints' velocities are incompatible with the constraints)");
  }
  spdlog::info("consistent start: |dq| = {:.3g}, |dv| = {:.3g} ({} Gauss-Newton iterations, |phi|inf = {:.3g}, "
               "|Jv|inf = {:.3g})",
               result.position_correction, result.velocity_correction, result.iterations, result.position_residual,
               result.velocity_residual);
  return result;
}

}  // namespace loopsim
