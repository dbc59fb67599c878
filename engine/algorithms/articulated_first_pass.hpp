#pragma once
// Pass 1 of the articulated-body recursions (ABA, the constrained recursions
// of papers 000 and 001, the loop and cluster solvers): one implementation.
#include <span>
#include <vector>

#include <loopsim/model/data.hpp>
#include <loopsim/model/model.hpp>

namespace loopsim {

// Where pass 1 puts gravity. InWorldAcceleration: ABA's a_gf[0] = -g, so
// a_gf = a - X g. AsBiasForce: pa_i += I_i X_{i←0} (0, -g) and a_gf[0] = 0,
// so a_gf is the true acceleration; the same solution, for the penalty
// solvers (lcaba, constrained-aba), whose μ-sized terms multiply
// accelerations. With gravity in a_gf a robot at rest has a_gf ≈ g at every
// link, and μ KᵀK a_gf cancelled μ Kᵀk at ~μ g: lcaba was 9.3e-8 off kkt in
// v̇ over Digit standing's first 50 steps, 1.6e-9 with gravity as force.
enum class FirstPassGravity { InWorldAcceleration, AsBiasForce };

/// Pass 1 of ABA-style recursions in body frames (paper 000 Alg. 1 lines 1-5,
/// paper 001 §IV-C1): placements liMi / oMi, S, velocities v_i, c_i = v_i ×
/// S_i q̇_i, data.a = the velocity-product accelerations (v̇ = 0, what the
/// constraint terms need), Ia = H_i, pa = v ×* H v - f_ext (ABA's sign),
/// a_gf[0] = -g and u = τ. Without `with_accelerations` no data.a (the
/// solvers that read only the link targets, evaluateLinkTargets). With
/// `rigid_inertias` (rigidInertiaMatrices, computed at bind time) Ia is
/// copied from it.
/// Shared by ABA, TreeRecursion and the loop solvers. No allocation.
/// With FirstPassGravity::AsBiasForce, gravity goes into pa and a_gf[0] = 0 (above).
void articulatedFirstPass(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                          const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                          std::span<const Force> fext, bool with_accelerations = true,
                          const AlignedVector<Matrix6>* rigid_inertias = nullptr,
                          FirstPassGravity gravity = FirstPassGravity::InWorldAcceleration);

/// Inertia::matrix() of every body (a zero block for the world): the first
/// pass's constant input, formed once at bind time.
AlignedVector<Matrix6> rigidInertiaMatrices(const Model& model);

}  // namespace loopsim
