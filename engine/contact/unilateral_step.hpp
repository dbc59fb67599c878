#pragma once
// Contacts and joint limits in the simulation step. The equality solver gives
// v̇ (the scene's loops, welds and couplings at acceleration level, Baumgarte
// included) and so the end-of-step velocity v_eq = v + dt v̇. When the step has
// contacts, or would carry a limited dof past its bound (joint_limits.hpp), the
// unilateral rows and the equality rows form one velocity-level problem
// (contact_problem.hpp) on the correction impulses λ:
//     v⁺ = v_eq + M̃⁻¹ Jᵀ λ,   M̃ = M + dt·D (the step's inertia with implicit damping),
//     J = [J_eq; J_c; J_lim],  G = J M̃⁻¹ Jᵀ,
//     g = [0; J_c v_eq + β_c; s v_eq,i + β_lim]
// (the equality rows hold what v_eq satisfies: J_eq v⁺ = J_eq v_eq), the
// equality rows bilateral, a contact a frictional block [t1, t2, n] with the
// pair's μ (the exact Coulomb cone), a limit a unilateral row. It is the
// problem the step would pose from the unconstrained v_free with the equality
// rows' velocity targets J_eq v_eq, since v_eq − v_free lies in the range of
// M̃⁻¹ J_eqᵀ. Without a contact and without a limit reached the step is the
// equality solver's, unchanged.
//
// A contact's rows are the velocity of its point on body b relative to body a
// in its frame [t1 t2 n] (n from a to b, so v⁺_n > 0 separates), and its
// normal bias is a limit's: β = d/dt for a gap d ≥ 0 (the surfaces may close it
// within the step, no more), Baumgarte push-back past the slop (limitRowBias).
// Every contact the detection reports (distance below its margin) is in the
// problem; the cone lets a contact with a gap stay inactive.
//
// The bilateral rows are eliminated exactly (G_ee λ_e + G_eu λ_u = 0): the
// unilateral rows see the Delassus matrix with the loops closed,
//     G_red = G_uu − G_ue G_ee⁻¹ G_eu      (paper 004 §II-E; delassus/ dense-closed),
// formed without G_ee⁻¹, whose condition is the square of the rows': with
// X = J F⁻ᵀ (M̃ = F Fᵀ) and Q an orthonormal basis of X_eᵀ's columns
// (linalg/orthonormal_basis.hpp), X_⊥ = (I − Q Qᵀ) X_uᵀ, G_red = X_⊥ᵀ X_⊥, and
// λ_e = −C λ_u with X_eᵀ C = Q Qᵀ X_uᵀ.
//
// Which Delassus algorithm: J M̃⁻¹ Jᵀ through a factor F of M̃ (X = J F⁻ᵀ),
// chosen by the tree (step_inertia_factor.hpp): LTL-OSIM's sparse LTDL on a
// branched robot, the dense Cholesky on a chain or a free body. The scenes'
// contact sets are small (a box: 4 points, a quadruped: 4 feet, a humanoid: 8
// corners) next to the rows of the recursive algorithms' crossover, and G_red
// needs the equality rows eliminated, which a factor of M̃ gives for closed
// loops too.
//
// Active set of the limits: the bounds v_eq would cross (end-of-step distance
// below zero) or is already past; when the corrected v⁺ crosses another bound
// that one joins and the problem is solved again (at most once per limited
// dof). Without contacts, when λ = 0 already solves it (every reached row has
// s v_eq + β ≥ 0 to the solver's tolerance: a dof resting on its bound) the
// step is left as it was, without a solve.
//
// The problem is solved by ADMM (admm_contact_solver.hpp) or PGS
// (pgs_contact_solver.hpp), warm-started, for a contact that persists (same id),
// from its impulse of the previous step. A problem and its solver are kept per
// count of contacts and active limits, so a step allocates only the first time
// it meets a count.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/contact/admm_contact_solver.hpp>
#include <loopsim/contact/contact_problem.hpp>
#include <loopsim/contact/joint_limits.hpp>
#include <loopsim/contact/pgs_contact_solver.hpp>
#include <loopsim/contact/step_inertia_factor.hpp>
#include <loopsim/linalg/orthonormal_basis.hpp>
#include <loopsim/model/data.hpp>

namespace loopsim {

/// A contact as the step needs it (the collision layer's ContactPoint, without
/// the detection's own bookkeeping).
struct ContactRowSource {
  int body_a = 0, body_b = 0;  // 0 = the world
  Vector3 point_in_a = Vector3::Zero(), point_in_b = Vector3::Zero();  // the contact point in each body's frame
  Matrix3 frame = Matrix3::Identity();  // world: columns t1, t2, n (n from a to b)
  double distance = 0.0;                // signed; negative = penetration
  double friction = 0.0;                // the pair's μ
  std::uint64_t id = 0;                 // kept while the contact persists
};

/// The contact solvers a scene may choose (scene key contact.solver).
enum class ContactSolverKind { admm, pgs };
/// "admm", "pgs".
const char* contactSolverName(ContactSolverKind kind);
/// The kind named `name`; false when it is neither.
bool parseContactSolver(std::string_view name, ContactSolverKind& kind);
/// Every kind, in the order `loopsim solvers` lists them.
inline constexpr ContactSolverKind kContactSolverKinds[] = {ContactSolverKind::admm, ContactSolverKind::pgs};
/// One line on what the solver does and what it refuses.
const char* contactSolverDescription(ContactSolverKind kind);

struct UnilateralStepResult {
  int contacts = 0;             // contacts in the last problem
  int active_rows = 0;          // limit rows in the last problem (0 with no contact: the step was left as it was)
  ContactSolverResult solve;    // of the last problem solved
};

/// What the limits did over a run (Simulation::jointLimitTotals()).
struct JointLimitTotals {
  long steps_at_bound = 0;      // steps that reached a bound
  int most_rows = 0;            // the most limits active at once
  int most_iterations = 0;      // the most solver iterations of a step's last problem
  double worst_residual = 0.0;  // the worst of the three residuals (contact_residuals.hpp) over those problems
  long unconverged = 0;         // problems that stopped at the iteration cap

  void add(const UnilateralStepResult& step);
};

/// What the contacts did over a run (Simulation::contactTotals()).
struct ContactTotals {
  long steps_in_contact = 0;    // steps with at least one contact
  int most_contacts = 0;        // the most contacts at once
  int most_iterations = 0;
  double worst_residual = 0.0;
  long unconverged = 0;

  void add(const UnilateralStepResult& step);
};

class UnilateralStep {
 public:
  /// `equality`: the scene's constraint set (its rows become the bilateral block).
  /// `dofs`: the limited dofs (none when the limits are off). `factorization`:
  /// of M̃, chosen by the tree when not given (chooseFactorization).
  UnilateralStep(const ConstraintSet& equality, std::vector<LimitedDof> dofs, const JointLimitSettings& settings,
                 ContactSolverKind solver = ContactSolverKind::admm, const ContactSolverSettings& solver_settings = {},
                 std::optional<StepFactorization> factorization = std::nullopt);

  /// v_next: in v_eq, out v⁺. lambda_eq: in the equality solver's constraint
  /// forces, out plus the bilateral correction impulses / dt. added_inertia:
  /// the diagonal dt·D of M̃ (size nv, zero without implicit damping).
  /// time_constant: the Baumgarte T of the push-back past a bound or a surface.
  /// contacts: this step's contacts (may be empty).
  UnilateralStepResult apply(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v, double dt,
                             const Eigen::Ref<const VectorX>& added_inertia, double time_constant,
                             const std::vector<ContactRowSource>& contacts, Eigen::Ref<VectorX> v_next,
                             Eigen::Ref<VectorX> lambda_eq);

  const std::vector<LimitedDof>& dofs() const { return dofs_; }
  const JointLimitSettings& settings() const { return settings_; }
  ContactSolverKind solverKind() const { return solver_kind_; }
  /// Solves the next problems with `kind`; the impulses of persisting contacts
  /// still warm-start it (both solvers share them).
  void setSolverKind(ContactSolverKind kind) { solver_kind_ = kind; }
  StepFactorization factorization() const { return factor_.kind(); }
  const ContactSolverSettings& solverSettings() const { return solver_settings_; }
  /// The impulse of each limit in the last step (+ at the lower bound, − at the upper; 0 when inactive).
  const VectorX& limitImpulses() const { return limit_impulse_; }
  /// The impulse of each contact of the last step, [t1, t2, n] per contact in its frame (size 3 × contacts).
  Eigen::Ref<const VectorX> contactImpulses() const {
    return contact_impulse_.head(3 * static_cast<Eigen::Index>(previous_ids_.size()));
  }

 private:
  struct ActiveRow {
    int dof;     // index into dofs_
    double side; // +1 lower bound, −1 upper bound
  };
  struct Unilateral {
    ContactProblem problem;
    AdmmContactSolver admm;
    PgsContactSolver pgs;
  };
  double distance(const ActiveRow& row, const Eigen::Ref<const VectorX>& q) const;
  bool addCrossedBounds(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v_next, double dt);
  void ensureCapacity(int contacts);
  Unilateral& problemFor(int contacts, int limits);
  void contactRows(const std::vector<ContactRowSource>& contacts, double dt, double time_constant);
  void solveActive(const Eigen::Ref<const VectorX>& q, double dt, double time_constant,
                   const std::vector<ContactRowSource>& contacts, UnilateralStepResult& result);

  const ConstraintSet* equality_;
  std::vector<LimitedDof> dofs_;
  JointLimitSettings settings_;
  ContactSolverKind solver_kind_;
  ContactSolverSettings solver_settings_;
  Data data_;
  ConstraintData cdata_;
  StepInertiaFactor factor_;  // M̃ = F Fᵀ
  OrthonormalBasis equality_basis_;  // of X_eᵀ's columns
  std::map<std::pair<int, int>, std::unique_ptr<Unilateral>> problems_;  // by (contacts, limits), made on first use
  std::vector<ActiveRow> active_;
  int contact_capacity_ = -1;  // the most contacts the storage has room for
  std::vector<std::uint64_t> previous_ids_;  // the last step's contacts, parallel to contact_impulse_'s blocks
  Matrix6X point_jacobian_;  // of body jacobian_body_ at its origin, world axes
  int jacobian_body_ = -1;
  MatrixX J_, X_, M_, Xe_t_, C_, X_perp_;
  VectorX v_eq_, lambda_, lambda_e_, impulse_, limit_impulse_, contact_impulse_, contact_g_;
};

}  // namespace loopsim
