#pragma once
// The interface every constrained forward-dynamics solver implements.
// A solver is bound to one model and constraint set at construction, where it
// preallocates; solve() never allocates.
//
// Problem (docs/conventions.md):  M v̇ + h = τ + Jᵀλ,  J v̇ = k
// with k the Baumgarte-stabilised desired constraint acceleration and λ the
// force/wrench each constraint applies to its first body, in its frame A.
// The papers' λ is minus this: solvers flip the sign internally, once.
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/spatial/motion.hpp>

namespace loopsim {

struct ConstraintData;
class ProjectionTerms;

/// What a solver can run; every field false unless the solver states it, so a
/// solver's capabilities read as a list: `{.internal_loops = true, .redundant = true}`.
struct SolverCapabilities {
  bool world_constraints = false;  // constraints between a body and the world
  bool internal_loops = false;    // constraints between two moving bodies
  bool couplings = false;         // joint couplings Σ c_j q_j = c_0
  bool redundant = false;         // rank-deficient or singular constraint sets
  bool soft = false;              // constraints are satisfied only approximately
  bool iterative = false;         // iterates to a tolerance
  /// Augmented Lagrangian with the penalty μ KᵀK inside the articulated
  /// inertias (lcaba, constrained-aba): round-off grows with μ (paper 001 §VI-D,
  /// Fig. 11), so mu: auto scales their μ to the constraint-space inertia
  /// rather than λ_max(M) (solvers/selection/auto_mu.hpp).
  bool penalty_in_inertia = false;
  /// Needs the scene's declared independent coordinates (scene key `independent`,
  /// SolverSettings::independent_dofs) to coordinate its loop clusters
  /// (cluster-aba, paper 004): the scene checks build the clusters at load.
  bool needs_independent_joints = false;
};

/// μ of a solver nobody gave one (below) and bound to no state; the
/// proximal solvers' default (accurate there: μ only damps, paper 001 Fig. 11).
inline constexpr double kDefaultMu = 1e8;

/// The largest residual tolerance ‖J v̇ − k‖∞ the scene file and the GUI
/// accept: beyond it an iterative solve stops at once and the constraints
/// drift, so a larger value is taken for a typo (1e300 for 1e-3) rather than
/// silently obeyed. (A library caller may still ask for one, e.g. to stop a
/// solve early on purpose.)
inline constexpr double kMaxResidualTolerance = 1e-2;

/// "" or, for a tolerance above kMaxResidualTolerance, why it is refused.
std::string toleranceHint(double tolerance);

struct SolverSettings {
  /// Proximal parameter, paper 001's convention (large = exact). Empty = not
  /// chosen (no scene `mu`, `--mu` or GUI value): whoever binds the solver to a
  /// state (bindSolver, resolveAutoMu) resolves mu: auto for the solvers with
  /// penalty_in_inertia (kDefaultMu leaves lcaba ~1e-4 off kkt on Digit;
  /// docs/solvers.md, "Default μ") and kDefaultMu for the others; a solver constructed unbound takes kDefaultMu.
  std::optional<double> mu;
  /// μ from the inertia scale instead (solvers/selection/auto_mu.hpp): whoever binds the
  /// solver to a state (Simulation) replaces `mu` by the estimate and clears
  /// this; a solver constructed with it still set refuses to start.
  bool mu_auto = false;
  double muValue() const { return mu.value_or(kDefaultMu); }
  double tolerance = 1e-10;      // on ‖J v̇ - k‖∞ for iterative solvers
  int max_iterations = 100;
  bool warm_start = true;        // start iterative solvers from the previous λ
  double soft_weight = 1e6;      // default constraint weight for soft solvers
  /// Per-constraint weights for soft solvers, indexed like the constraint set;
  /// empty = soft_weight for every constraint.
  std::vector<double> soft_weights;
  /// Dofs (model v indices, increasing) independent inside the loop clusters
  /// (scene key `independent`: whole joints or single dofs; paper 004's y).
  /// Read by the cluster solvers only.
  std::vector<int> independent_dofs;
  /// The same for cluster-efpa's clusters (the internal loops alone, world
  /// constraints as Delassus rows): equal to independent_dofs when the scene
  /// gives one list, its own when it gives one per view
  /// (`independent: {all_constraints: [...], internal_loops: [...]}`).
  std::vector<int> independent_dofs_internal_loops;
};

struct SolveStats {
  int iterations = 0;
  double residual = 0.0;  // ‖J v̇ - k‖∞
  bool converged = true;
  /// Which elimination a solver chose at run time, when it has a choice (e.g.
  /// pv's floating base: "eq. 49" or "eq. 47-48"); empty otherwise.
  std::string_view path;
};

class ConstrainedSolver {
 public:
  ConstrainedSolver(const ConstraintSet& constraints, const SolverSettings& settings)
      : constraints_(constraints), settings_(settings), added_inertia_(VectorX::Zero(constraints.model().nv)) {}
  virtual ~ConstrainedSolver() = default;
  ConstrainedSolver(const ConstrainedSolver&) = delete;
  ConstrainedSolver& operator=(const ConstrainedSolver&) = delete;

  virtual std::string_view name() const = 0;
  virtual SolverCapabilities capabilities() const = 0;

  /// Constrained forward dynamics at (q, v) with total generalised force τ
  /// (applied + passive) and optional external forces (per body, body frame).
  /// Writes v̇ (size nv) and λ (size constraints().dimension()).
  /// Near-singular states: the returned residual ‖J v̇ − k‖∞ (and converged)
  /// show how well the constraints hold. A solver without the `redundant`
  /// capability throws ModelError ("rank deficient", naming the dependent
  /// rows) when the rows are numerically dependent at (q, v) — the only
  /// throw of a solve; solvers with it return a least-squares λ instead.
  virtual SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                           const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                           Eigen::Ref<VectorX> lambda) = 0;

  /// φ and φ̇ = J v evaluated by the last solve at its (q, v), or null when
  /// the solver does not evaluate them (the simulation then evaluates them
  /// itself). Lets a step book the violation of its state without a second
  /// kinematics pass.
  virtual const ConstraintData* solvedConstraintTerms() const { return nullptr; }
  /// The joint-space terms (M's factors, J, Λ) this solver evaluates, for a
  /// velocity projection that leaves them to the next solve at the same q
  /// (ConstraintProjector::shareTerms); null for solvers without them.
  virtual ProjectionTerms* sharedProjectionTerms() { return nullptr; }

  /// Whether solveImpulse() is implemented (the O(n) loop solvers: lcaba,
  /// prox-bbo). The post-step projection then runs on it instead of a dense
  /// Delassus matrix (ConstraintProjector::useImpulseSolver).
  virtual bool supportsImpulseSolve() const { return false; }
  /// The constrained impulse problem at q: Δ (size nv) with
  ///   (M + diag(d)) Δ = Jᵀ p,   J Δ = r      (d: setAddedInertia),
  /// i.e. the minimum-(M + diag(d))-norm Δ with J Δ = r. It is solve()'s
  /// problem at (q, v = 0) with no gravity, τ or external forces and the
  /// target r (size constraints().dimension()) in place of the Baumgarte k.
  /// Uses: the velocity projection (r = -J v, v ← v + Δ) and a Gauss-Newton
  /// step on φ in the (M + diag(d)) metric (r = -φ, q ← q ⊕ Δ). Iterations,
  /// tolerance (on ‖J Δ - r‖∞) and redundant sets as in solve(); the impulse
  /// starts from zero and solve()'s warm start is left untouched (no hidden
  /// state: replays stay bit for bit). Never allocates. Call only when
  /// supportsImpulseSolve(): the default throws std::logic_error.
  virtual SolveStats solveImpulse(const Eigen::Ref<const VectorX>& /*q*/, const Eigen::Ref<const VectorX>& /*r*/,
                                  Eigen::Ref<VectorX> /*delta*/) {
    throw std::logic_error("solver '" + std::string(name()) + "' has no impulse solve");
  }

  /// A per-step diagonal added to the joint-space inertia: every solve then
  /// solves (M + diag(d)) v̇ + h = τ + Jᵀλ. Implicit damping sets d = dt·D
  /// (D: joint damping + the controller's derivative gains), as MuJoCo's Euler
  /// integrator does. Joint-space solvers add d to M's diagonal; recursive
  /// solvers add d_i to joint i's D_i exactly like armature. Size nv, zero
  /// unless set; setting it never allocates.
  void setAddedInertia(const Eigen::Ref<const VectorX>& d) { added_inertia_ = d; }
  const VectorX& addedInertia() const { return added_inertia_; }

  const ConstraintSet& constraints() const { return constraints_; }
  const Model& model() const { return constraints_.model(); }
  const SolverSettings& settings() const { return settings_; }

 protected:
  const ConstraintSet& constraints_;
  SolverSettings settings_;
  VectorX added_inertia_;  // diag(d) added to M, see setAddedInertia
};

/// Throws ModelError naming the solver when μ is not positive and finite, the
/// tolerance negative or max_iterations < 1 (the proximal / augmented-Lagrangian solvers).
void requireProximalSettings(const ConstraintSet& constraints, const SolverSettings& settings,
                             std::string_view solver);

/// "world constraints, internal loops, couplings, exact, direct" style summary.
std::string describeCapabilities(const SolverCapabilities& caps);

}  // namespace loopsim
