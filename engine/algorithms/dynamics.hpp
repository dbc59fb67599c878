#pragma once
// Rigid-body dynamics of a tree:  M(q) v̇ + h(q, v) = τ + τ_passive + Σ J_iᵀ f_ext,i
// External forces fext (optional, size nbodies) are forces on body i
// expressed in body i's frame about its origin. M includes the armature.
#include <span>

#include <loopsim/model/data.hpp>

namespace loopsim {

/// Recursive Newton-Euler: data.tau = M a + h - Σ Jᵀ fext (passive forces not included).
/// Works in body frames: writes data.liMi, v, c, a_gf, f, S but not data.oMi.
const VectorX& rnea(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                    const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& a,
                    std::span<const Force> fext = {});


// ---- The same recursions on kinematics already in `data` -------------------
// A constrained solve needs h, M and the constraint terms at one (q, v): the
// joint transforms (sin/cos) and placements are computed once
// (forwardKinematics), the world motion subspaces and inertias once
// (worldInertiasAndSubspaces), and these read them instead of recomputing them.

/// Which part of M a CRBA writes: both triangles, or the lower one only (for
/// a consumer that reads nothing else, such as the LTDL factors).
enum class MassMatrixFill { Symmetric, LowerTriangle };

/// Composite rigid-body algorithm: data.M with armature on the diagonal. Full
/// symmetric by default; with LowerTriangle the strictly upper triangle is
/// left as it was (the like-for-like cost of a peer's CRBA that fills one
/// triangle, and all that a Cholesky or LTDL factorisation reads).
const MatrixX& crba(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                    MassMatrixFill fill = MassMatrixFill::Symmetric);

/// From data.oMi: data.oI and data.oS (the bodies' inertias and motion
/// subspaces in the world frame), and data.oYcrb set to the body inertias for
/// the next crbaAtWorldInertias.
void worldInertiasAndSubspaces(const Model& model, Data& data);

/// forwardKinematics(q) (placements) then worldInertiasAndSubspaces: all that
/// biasForcesInWorldFrame and crbaAtWorldInertias read at q.
void placeBodiesInWorld(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q);

/// data.M by CRBA's composite sweep over data.oS and data.oYcrb as
/// worldInertiasAndSubspaces left them (it sums the composites into oYcrb, so
/// call that first again before another sweep). Writes only the entries of M
/// on the tree's ancestor pattern (and the diagonal): every other entry must
/// be zero already, as in a Data whose M is written by nothing else.
const MatrixX& crbaAtWorldInertias(const Model& model, Data& data, MassMatrixFill fill = MassMatrixFill::Symmetric);

/// data.tau = h(q, v) - Σ Jᵀ fext (RNEA at zero acceleration) in the world
/// frame, from data.oMi, data.oS and data.oI (worldInertiasAndSubspaces).
/// Writes data.ov, data.oa_gf and data.of; not data.v, a or f.
const VectorX& biasForcesInWorldFrame(const Model& model, Data& data, const Eigen::Ref<const VectorX>& v,
                                      std::span<const Force> fext = {});

/// data.v[b] and data.a[b] (body frame; a without gravity, at v̇ = 0: what
/// forwardKinematics(q, v, 0) gives) for the given bodies, from
/// biasForcesInWorldFrame's world velocities and accelerations.
void bodyMotionsFromWorldFrame(const Model& model, Data& data, std::span<const int> bodies);

/// out = M x, M with armature, by RNEA's two sweeps at zero velocity and zero
/// gravity (a_i = a_λ(i) + S_i x_i, f_i = I_i a_i, τ = Sᵀf + armature ∘ x)
/// on data.liMi and data.S: O(n), never allocates, never forms M. Writes
/// data.a and data.f. For power iteration on M (solvers/selection/auto_mu.hpp).
void massMatrixTimesAtKinematics(const Model& model, Data& data, const Eigen::Ref<const VectorX>& x,
                                 Eigen::Ref<VectorX> out);

/// data.nle = h(q, v) (Coriolis, centrifugal, gravity).
const VectorX& nonLinearEffects(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                                const Eigen::Ref<const VectorX>& v);

/// Articulated-body algorithm: data.ddq = M⁻¹(τ + Σ Jᵀ fext - h). τ is the total
/// generalised force (add data.passive yourself, or use forwardDynamics).
const VectorX& aba(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                   const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                   std::span<const Force> fext = {});

/// Passive joint forces: data.passive = -damping ∘ v - stiffness ∘ (q ⊖ spring_reference) (1-dof joints).
const VectorX& passiveForces(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                             const Eigen::Ref<const VectorX>& v);

/// Unconstrained forward dynamics with passive forces: ABA(q, v, τ + passive).
const VectorX& forwardDynamics(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                               const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                               std::span<const Force> fext = {});

}  // namespace loopsim
