#pragma once
// Projection of a state onto the constraint manifold {φ(q) = 0, J(q) v = 0}.
//
// Positions: damped Gauss-Newton on φ over the free dofs,
//   δq = -J_fᵀ (J_f J_fᵀ + μ I)⁻¹ φ,   q ← q ⊕ δq   (configuration integrate: quaternions stay unit),
// with a backtracking line search on ‖φ‖. J_f is J with the held joints' columns
// zeroed. The damping μ (relative to the scale of J J_fᵀ) keeps rank-deficient
// (redundant) sets solvable: the step stays minimum-norm. It is applied only
// when the Gram matrix's pivots approach collapse; a well-conditioned set is
// factored undamped (exact Gauss-Newton, and one pass of the velocity solve).
// Velocities: the M-norm projection over the free dofs,
//   v ← v - W⁻¹ J_fᵀ (J_f W⁻¹ J_fᵀ + μ I)⁻¹ J v,   W = M + diag(d) on free dofs (held dofs keep
// their velocity), d the metric diagonal: zero unless set (setMetricDiagonal). A simulation
// sets the step's own added inertia dt·D of implicit damping: the correction is then the
// velocity change a constraint impulse makes in the implicit step (M + dt·D) Δv = Jᵀ p, and
// the solver's next solve at the projected q finds M + dt·D already factored.
//
// Both are dense in the rows: O(m²·depth + m³) per projection.
//
// With an impulse solver (useImpulseSolver: lcaba, prox-bbo) both projections
// are instead the solver's own O(n) recursion on the impulse problem
//   W Δ = Jᵀ p,  J Δ = r,   W = M + diag(d_s), d_s the solver's added inertia
// (ConstrainedSolver::solveImpulse), with no dense matrix:
//   positions:  Gauss-Newton in the W metric, r = -φ(q), q ← q ⊕ Δ, with the
//               same backtracking line search on ‖φ‖ (a different step from
//               the dense path's identity metric, as valid a Gauss-Newton step);
//   velocities: r = -J v, v ← v + Δ: the dense path's W-norm projection, to the
//               solver's tolerance on ‖J Δ - r‖∞.
// The simulation sets d_s = the metric diagonal (both dt·D), so both paths
// project velocities in the same metric.
//
// Two uses: the consistent start of a simulation (makeConsistent: many
// iterations, refuses when it does not converge; always the dense path, held
// joints included) and the optional post-step projection (a few iterations
// every step). Every workspace is sized at construction: project*() never
// allocate (nor does an impulse solve).
#include <Eigen/Cholesky>
#include <memory>
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/linalg/small_cholesky.hpp>
#include <loopsim/solvers/joint_space/ltl_factorization.hpp>

namespace loopsim {

class ConstrainedSolver;
class JointSpaceTerms;
class ProjectionTerms;

struct ProjectionSettings {
  int max_iterations = 50;            // Gauss-Newton iterations on q
  double position_tolerance = 1e-12;  // stop when ‖φ‖∞ <= this
  double relative_damping = 1e-12;    // μ = relative_damping · max(1, max diag(J_f J_fᵀ))
  int max_backtracks = 8;             // halvings of a step that does not reduce ‖φ‖
};

struct ProjectionResult {
  int iterations = 0;
  double position_residual = 0.0;  // ‖φ‖∞ after projection
  double velocity_residual = 0.0;  // ‖J v‖∞ after projection
  double position_correction = 0.0;  // ‖q_out ⊖ q_in‖₂
  double velocity_correction = 0.0;  // ‖v_out - v_in‖₂
  bool converged = false;            // position_residual <= position_tolerance
};

class ConstraintProjector {
 public:
  /// held_joints keep their positions and velocities (consistent start only).
  explicit ConstraintProjector(const ConstraintSet& set, const std::vector<int>& held_joints = {},
                               const ProjectionSettings& settings = {});
  ~ConstraintProjector();

  /// Project velocities on a joint-space solver's terms (same constraint set),
  /// so that the solver's next evaluate at the projected q keeps the
  /// placements, M and J, and also M's factors and Λ when the metric
  /// diagonal (setMetricDiagonal) is its added diagonal (otherwise it
  /// refactors). nullptr: our own terms. The terms must outlive this
  /// projector or be unshared first.
  void shareTerms(ProjectionTerms* terms);

  /// W = M + diag(*d) for the velocity projection without held joints; null:
  /// W = M. *d (size nv) is read at every projection and must outlive this
  /// projector or be reset first.
  void setMetricDiagonal(const VectorX* d);

  /// Projects through solver->solveImpulse() (the solver's own recursion, its
  /// added inertia as the metric; see the top of this file) instead of the
  /// dense Gram matrix; null: the dense path. The solver must be bound to this
  /// projector's constraint set and outlive it or be reset first. Throws
  /// ModelError when it has no impulse solve or another constraint set, and
  /// with held joints (the consistent start keeps its dense path).
  void useImpulseSolver(ConstrainedSolver* solver);

  /// Gauss-Newton on φ(q) = 0, at most max_iterations (<= 0: settings'). No allocation.
  ProjectionResult projectPositions(Eigen::Ref<VectorX> q, int max_iterations = 0);
  /// v ← the M-norm closest velocity with J(q) v = 0. No allocation. With an
  /// impulse solver, velocity_residual is the solver's ‖J Δ - r‖∞ (= ‖J v‖∞
  /// up to round-off), not a second evaluation of J v.
  ProjectionResult projectVelocities(const Eigen::Ref<const VectorX>& q, Eigen::Ref<VectorX> v);
  /// Positions, then velocities at the projected q.
  ProjectionResult project(Eigen::Ref<VectorX> q, Eigen::Ref<VectorX> v, int max_iterations = 0);

  const ProjectionSettings& settings() const { return settings_; }

 private:
  double positionErrorNorm(const Eigen::Ref<const VectorX>& q);  // ‖φ(q)‖∞
  void freeJacobian(const Eigen::Ref<const VectorX>& q);          // J_f into free_jacobian_
  double damping(const MatrixX& gram) const;
  // Gauss-Newton on φ from cdata_.phi = φ(q): direction() writes step_ at q
  // (φ(q) in cdata_.phi), then the backtracking line search on ‖φ‖.
  template <class Direction>
  ProjectionResult gaussNewton(Eigen::Ref<VectorX> q, int max_iterations, Direction&& direction);
  // The velocity projection through impulse_solver_ at the kinematics of q
  // held by cdata_ (φ̇ = J v in cdata_.phidot).
  ProjectionResult projectVelocitiesByImpulse(const Eigen::Ref<const VectorX>& q, Eigen::Ref<VectorX> v,
                                              ProjectionResult result);
  // gram_ + damping(gram_)·I factored once, then solved in place: the small
  // Cholesky, or Eigen's pivoting LDLT when a pivot is not positive (a
  // redundant set whose damping is lost to round-off). gram_ undamped when
  // its pivots allow.
  void factorGram();
  void solveGram(Eigen::Ref<VectorX> x) const;
  // Held joints (consistent start only): W restricted to the free dofs, dense W⁻¹ J_fᵀ.
  ProjectionResult projectVelocitiesHolding(const Eigen::Ref<const VectorX>& q, Eigen::Ref<VectorX> v,
                                            ProjectionResult result);
  // The M-norm velocity projection on the kinematics terms_ holds.
  ProjectionResult projectVelocitiesAtTerms(Eigen::Ref<VectorX> v, ProjectionResult result);
  // Both velocity projections from J_f W⁻¹ J_fᵀ, factored (solveGram): refine
  // v; winv_jt() writes step_ = W⁻¹ J_fᵀ multiplier_.
  template <class WinvJtTimesMultiplier>
  ProjectionResult refineVelocities(const ConstraintData& cd, Eigen::Ref<VectorX> v, ProjectionResult result,
                                    WinvJtTimesMultiplier&& winv_jt);

  const ConstraintSet& set_;
  ProjectionSettings settings_;
  Data data_;
  ConstraintData cdata_;
  VectorX free_mask_;  // 1 on free dofs, 0 on held ones (size nv)
  bool has_held_ = false;

  MatrixX free_jacobian_;  // J_f, m x nv
  MatrixX gram_;           // J_f J_fᵀ + μ I  or  J_f W⁻¹ J_fᵀ + μ I, m x m
  SmallCholesky gram_cholesky_;
  Eigen::LDLT<MatrixX> gram_ldlt_;  // fallback of gram_cholesky_
  bool gram_pivoted_ = false;       // the last factorGram() fell back to gram_ldlt_
  // What solveGram solves with unless pivoted: gram_cholesky_, or the shared
  // terms' own factors of Λ (ProjectionTerms::factoredDelassus).
  const SmallCholesky* gram_factor_ = &gram_cholesky_;
  LtlFactorization mass_ltl_;  // W = Lᵀ D L in O(nv d²): a dense Cholesky is O(nv³) (minutes at 10k dofs)
  MatrixX winv_jt_;        // W⁻¹ J_fᵀ, nv x m
  VectorX multiplier_;     // size m
  VectorX velocity_residual_;  // J v during the velocity refinement, size m
  VectorX round_off_bound_;    // Σ_k |J_ik v_k| per row (atRoundOff), size m
  VectorX step_;           // δq or δv, size nv
  VectorX q_start_, q_trial_;
  VectorX displacement_;   // q_out ⊖ q_in, size nv
  VectorX zero_nv_;
  const VectorX* metric_diagonal_ = &zero_nv_;  // W = M + diag(*metric_diagonal_)
  // Λ = J M⁻¹ Jᵀ over the constraints' supports (the joint-space solvers' terms),
  // for the velocity projection without held joints: our own or a solver's (shareTerms).
  std::unique_ptr<JointSpaceTerms> own_terms_;
  ProjectionTerms* terms_ = nullptr;
  ConstrainedSolver* impulse_solver_ = nullptr;  // useImpulseSolver; null: dense
};

/// Consistent start: projects (q, v) in place with the given held joints,
/// logs the correction (spdlog), and throws ModelError quoting ‖φ‖ and the
/// worst row when ‖φ‖∞ > 1e-10 after max_iterations.
ProjectionResult makeConsistent(const ConstraintSet& set, Eigen::Ref<VectorX> q, Eigen::Ref<VectorX> v,
                                const std::vector<int>& held_joints = {}, const ProjectionSettings& settings = {});

}  // namespace loopsim
