#pragma once
// Automatic proximal / augmented-Lagrangian parameter μ (docs/solvers.md, "`mu: auto`").
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
#include <string>
#include <string_view>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

// The factors c = μ / λ_max, from `loopsim bench --mu-sweep --mu-relative
// --mu-tolerance 1e-12` on 14 scenes (robots and loop mechanisms, 20 states
// each; docs/solvers.md "`mu: auto`" has the table). Iterations to tolerance fall as c
// grows for every solver (median 6-22 at c = 1e1, 3-6 at 1e3, 2-3 at 1e6).
//  - the dual proximal solvers (prox-ltl, prox-pv, prox-bbo) only see μ⁻¹ as a
//    damping of the Delassus matrix: their error stays ≤ 2e-12 up to c = 1e7
//    (paper 001 Fig. 11: stable to μ = 1e11), so c = 1e6 buys the fewest
//    iterations (2-4) with a decade of margin below the largest c measured.
//  - lcaba and constrained-aba carry μ KᵀK inside the articulated inertias:
//    their v̇ error vs kkt grows ~10x per decade of μ (round-off of the
//    penalty cancelled against link-sized inertias). λ_max(M) is the wrong
//    scale for them on long loops: it grows ~n⁴ along a chain of n links
//    (cycle: 20 at 20 links, 4.8e3 at 80, 4.9e5 at 256) while what sets their
//    iterations does not, so c = 1e3 left lcaba 2.4e-5 off kkt on a 256-link
//    cycle. Their μ is set from the constraint-space inertia instead (below).
inline constexpr double kAutoMuFactorProximal = 1e6;

// Paper 001 eqs. 7-11: the ALM is the proximal point algorithm on the dual,
// whose Hessian is J M⁻¹ Jᵀ (eq. 9), so the multiplier error contracts by
// (I + μ J M⁻¹ Jᵀ)⁻¹ per iteration: at worst by λ_Λ / (λ_Λ + μ), λ_Λ the
// largest eigenvalue of the constraint-space inertia Λ = (J M⁻¹ Jᵀ)⁺. With
// μ = c_Λ λ_Λ every scene takes about the same iterations for a given c_Λ (at
// tolerance 1e-12: 13 at c_Λ = 1e1, 7 at 1e2, 5 at 1e3, 4 at 1e4 on Digit,
// two Digits, four-bar, cycles of 20-256 links, chains of 3-32 loops), where
// §VI-D's "> 10³ λ_max(M)" is a stand-in for it that fits compact robots
// (Digit: λ_max(M) ≈ 4.3 λ_Λ, so 10³ λ_max(M) ≈ 4.3e3 λ_Λ) and overshoots long
// loops (256-link cycle: λ_max(M) ≈ 2.4e5 λ_Λ). c_Λ = 3e3 (20 states per
// scene, cold, tolerance 1e-12) keeps the median iterations of 10³ λ_max(M)
// on Digit and two Digits (4) and on the other 9 loop scenes (4, was 4-5),
// their v̇ error vs kkt ≤ 7.3e-10 (was ≤ 1.2e-9), and on long loops ≤ 2.4e-8
// at 4-6 median iterations (was 1.0e-6 on an 80-link cycle, 8.7e-5 on a
// 256-link cycle, 9.9e-5 on a 32-loop chain); c_Λ = 1e4 saves no median
// iteration there and takes the 11-loop chain to 8e-8.
inline constexpr double kAutoMuFactorConstraintInertia = 3e3;

// The penalty rule's cap, as a factor of λ_max(M): a nearly singular J M⁻¹ Jᵀ
// makes λ_Λ, and the penalty's round-off with it, large. 1e4 is the largest
// c of the table above (c·λ_max(M) on every scene) whose worst lcaba /
// constrained-aba error stays within 1e-7 of kkt (2.9e-8; 1e5: 2.1e-6, on
// the Digits), the accuracy a default μ must reach (test_default_mu.cpp),
// so wherever it binds μ is one that measured accurate.
// `bench --mu-sweep --mu-cap` (20 states, cold, tolerance 1e-12): against
// the former cap 1e3 (§VI-D's threshold, where the paper says μ only starts
// to be effective), the 16 scenes keep 4 median iterations, or drop from
// 5-6 to 4 (cycle, chain of loops, spatial chain, pendulum), at worst
// 1.7e-9 off kkt (was the same); the grounded favourable branching, where
// λ_Λ / λ_max(M) grows with the branches (110 at 14, 1100 at 42), takes
// 6 / 11.5 median iterations on 14 / 42 branches instead of 10 / 37.5 (v̇
// 1.0e-10 / 7.2e-11 off); an 11-loop chain 4 instead of 5, at 3.3e-8 (was 3.3e-9).
inline constexpr double kAutoMuPenaltyCap = 1e4;

struct AutoMuEstimate {
  double lambda_max = 0.0;  // Rayleigh-quotient estimate of λ_max(M + diag(d)) (a lower bound)
  double constraint_inertia = 0.0;  // λ_Λ = λ_max((J (M + diag(d))⁻¹ Jᵀ)⁺); 0 = not estimated or no rows
  int sweeps = 0;           // power-iteration sweeps, one M x product each
  double factor = 0.0;      // c (set by resolveAutoMu)
  double mu = 0.0;          // c · lambda_max, or c_Λ · constraint_inertia (set by resolveAutoMu)
  bool capped = false;      // the penalty rule's c_Λ · constraint_inertia was above the cap (resolvePenaltyMu)
};

/// The penalty solvers' μ: c_Λ·λ_Λ, at most cap·λ_max(M) (cap·λ_max(M) alone
/// for a set without rows); sets estimate.factor and estimate.mu.
void resolvePenaltyMu(AutoMuEstimate& estimate, double cap = kAutoMuPenaltyCap);

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

/// λ_Λ of `set` at q (AutoMuEstimate::constraint_inertia), once at bind time:
/// dense M (crba) + diag(d), its Cholesky factor and the dense J, so O(nv³)
/// and allocating. Eigenvalues of J M⁻¹ Jᵀ below 1e-9 of its largest are the
/// null directions of a redundant set, which the ALM never needs to converge
/// on (they do not move v̇), and are left out. 0 for a set without rows.
double estimateConstraintInertia(const ConstraintSet& set, const Eigen::Ref<const VectorX>& q,
                                 const Eigen::Ref<const VectorX>& added_inertia);

/// Whether binding `settings` to a solver with `caps` resolves mu: auto: when
/// asked for, and when nobody chose μ for a solver with penalty_in_inertia
/// (kDefaultMu leaves lcaba 6e-3 off kkt on Digit at q0; auto, 3e-9: docs/solvers.md, "Default μ").
/// The proximal solvers keep kDefaultMu: μ⁻¹ only damps their Delassus
/// matrix, they are exact to round-off there and 1e8 costs them no iteration.
bool resolvesAutoMu(const SolverSettings& settings, const SolverCapabilities& caps);

/// `settings` with μ resolved for a solver with `caps` (mu set, mu_auto =
/// false): when resolvesAutoMu, `estimate` receives c and μ; else μ is the
/// chosen one or kDefaultMu. Penalty solvers (caps.penalty_in_inertia):
/// μ = min(c_Λ·constraint_inertia, c·λ_max) (c·λ_max alone for a set without
/// rows); the others μ = c·λ_max. No dofs or a massless model (λ_max = 0): kDefaultMu.
SolverSettings resolveAutoMu(const SolverSettings& settings, const SolverCapabilities& caps, AutoMuEstimate& estimate);

/// Both estimates at (q, d) and resolve, for callers without a Simulation (bench, eval).
SolverSettings resolveAutoMu(const SolverSettings& settings, const SolverCapabilities& caps,
                             const ConstraintSet& constraints, const Eigen::Ref<const VectorX>& q,
                             const Eigen::Ref<const VectorX>& added_inertia);

/// An explicit μ this many times above mu: auto's on a penalty-in-inertia
/// solver is warned about: their v̇ error vs kkt grows ~10-100x per decade of
/// μ (docs/solvers.md "`mu: auto`"; Digit at q0: 2.7e-9 at auto's 9.0e4, 6.1e-3 at 1e8).
inline constexpr double kExplicitMuWarningRatio = 100.0;

/// The warning for `mu` on `solver` when it exceeds kExplicitMuWarningRatio
/// times `auto_mu` (what mu: auto would choose), else empty.
std::string explicitMuWarning(std::string_view solver, double mu, double auto_mu);

}  // namespace loopsim
