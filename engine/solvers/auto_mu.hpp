#pragma once
// Automatic proximal / augmented-Lagrangian parameter μ (issue 12).
// Paper 001 §VI-D: an effective μ must exceed 10³ times the largest eigenvalue
// of the joint-space inertia matrix, which "can be estimated using power
// iteration ... using RNEA-based sweeps"; the paper leaves the automatic
// choice as future work. Here: power iteration on M + diag(d) (d: the added
// inertia of implicit damping, solver.hpp setAddedInertia) with M x from
// massMatrixTimesAtKinematics (no dense M, O(n) per sweep), then
// μ = c · λ_max with c by solver family (below).
//
// λ_max(M) depends on q: the estimate is made once, where the solver is bound
// (Simulation: the consistent initial state), and μ stays fixed for the run so
// that a run is deterministic and a record replays bit for bit.
#include <loopsim/model/data.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

// The factors c = μ / λ_max, from `loopsim bench --mu-sweep --mu-relative
// --mu-tolerance 1e-12` on 14 scenes (robots and loop mechanisms, 20 states
// each; README "mu: auto" has the table). Iterations to tolerance fall as c
// grows for every solver (median 6-22 at c = 1e1, 3-6 at 1e3, 2-3 at 1e6).
//  - lcaba and constrained-aba carry μ KᵀK inside the articulated inertias:
//    their v̇ error vs kkt grows ~10x per decade of c (worst over the scenes:
//    1.1e-10 at c = 1e2, 1.4e-9 at 1e3, 2.9e-8 at 1e4, 2.5e-4 at 1e6). c = 1e3,
//    the paper's "> 10³ λ_max" threshold, keeps them ≤ 1.4e-9 (≤ 1.2e-10 on the
//    Digit scenes) at 3-6 iterations;
//  - the dual proximal solvers (prox-ltl, prox-pv, prox-bbo) only see μ⁻¹ as a
//    damping of the Delassus matrix: their error stays ≤ 2e-12 up to c = 1e7
//    (paper 001 Fig. 11: stable to μ = 1e11), so c = 1e6 buys the fewest
//    iterations (2-4) with a decade of margin below the largest c measured.
inline constexpr double kAutoMuFactorPenalty = 1e3;
inline constexpr double kAutoMuFactorProximal = 1e6;

/// c for a solver: kAutoMuFactorPenalty when μ enters its inertias, else kAutoMuFactorProximal.
inline double autoMuFactor(const SolverCapabilities& caps) {
  return caps.penalty_in_inertia ? kAutoMuFactorPenalty : kAutoMuFactorProximal;
}

struct AutoMuEstimate {
  double lambda_max = 0.0;  // Rayleigh-quotient estimate of λ_max(M + diag(d)) (a lower bound)
  int sweeps = 0;           // power-iteration sweeps, one M x product each
  double factor = 0.0;      // c (set by resolveAutoMu)
  double mu = 0.0;          // c · lambda_max (set by resolveAutoMu)
};

/// Power iteration for λ_max(M(q) + diag(d)); preallocated, estimate() never allocates.
class InertiaEigenEstimator {
 public:
  explicit InertiaEigenEstimator(const Model& model);
  /// Sweeps until the Rayleigh quotient changes by less than `relative_change`
  /// between sweeps (at least 2, at most max_sweeps). d empty = no added inertia.
  AutoMuEstimate estimate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& added_inertia,
                          double relative_change = 1e-3, int max_sweeps = 50);

 private:
  const Model& model_;
  Data data_;
  VectorX x_, y_;
};

/// One-shot λ_max estimate (allocates its workspace).
AutoMuEstimate estimateInertiaEigenvalue(const Model& model, const Eigen::Ref<const VectorX>& q,
                                         const Eigen::Ref<const VectorX>& added_inertia);

/// `settings` with mu_auto resolved for a solver with `caps`: mu = c·λ_max,
/// mu_auto = false (unchanged when mu_auto is off). `estimate` receives c and μ.
/// No dofs or a massless model (λ_max = 0): the default μ.
SolverSettings resolveAutoMu(const SolverSettings& settings, const SolverCapabilities& caps, AutoMuEstimate& estimate);

/// Estimate at (q, d) and resolve, for callers without a Simulation (bench, eval).
SolverSettings resolveAutoMu(const SolverSettings& settings, const SolverCapabilities& caps, const Model& model,
                             const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& added_inertia);

}  // namespace loopsim
