#pragma once
// The Coulomb friction cone of one point contact and its dual, in the
// contact's frame with the rows ordered [t1, t2, n] (the normal LAST):
//   K_μ  = {λ : ‖λ_t‖ ≤ μ λ_n}              the exact second-order cone, not a pyramid
//   K_μ* = {v : μ ‖v_t‖ ≤ v_n} = K_{1/μ}     its dual; the polar cone is K_μ° = −K_μ*
// μ = 0: K is the normal ray {λ_t = 0, λ_n ≥ 0} and K* the half-space v_n ≥ 0;
// μ = ∞: K is the half-space λ_n ≥ 0 and K* the ray (no slip: v_t = 0).
//
// The projections are the closed form of the Euclidean projection onto a
// second-order cone: inside, x itself; in the polar cone, 0; otherwise the
// projection onto the boundary ray through x's tangential direction,
//   P(x) = α (μ x_t / ‖x_t‖, 1),  α = (μ ‖x_t‖ + x_n) / (1 + μ²).
// For μ > 1 the projection goes through the dual cone (Moreau's
// decomposition x = P_K(x) − P_{K*}(−x)), so 1 + μ² never overflows.
//
// De Saxcé's correction: with ṽ = v + μ ‖v_t‖ e_n, Coulomb's law for one
// contact (separation, sticking, or sliding against λ_t on the cone's
// boundary, with v_n ≥ 0 and λ_n v_n = 0) is the conic complementarity
// K_μ ∋ λ ⟂ ṽ ∈ K_μ* (De Saxcé and Feng; Carpentier et al. 2024).
// For μ = ∞ the correction is taken as 0: the dual cone forces v_t = 0 at a
// solution, where μ ‖v_t‖ would be ∞·0.
// Inline and allocation-free: they run once per contact per iteration.
#include <algorithm>
#include <cmath>

#include <loopsim/spatial/types.hpp>

namespace loopsim {

namespace detail {

// P_{K_μ}(x) for a finite μ in [0, 1].
inline Vector3 projectOntoSmallCone(double mu, const Vector3& x) {
  const double t = std::sqrt(x[0] * x[0] + x[1] * x[1]);
  const double n = x[2];
  if (n >= 0.0 && t <= mu * n) return x;   // inside K (n ≥ 0 matters for μ = 0)
  if (mu * t <= -n) return Vector3::Zero();  // in the polar cone −K* = {μ ‖x_t‖ ≤ −x_n}
  const double alpha = (mu * t + n) / (1.0 + mu * mu);
  const double scale = mu * alpha / t;  // t > 0 here: t = 0 falls in one of the two cases above
  return Vector3(scale * x[0], scale * x[1], alpha);
}

}  // namespace detail

/// P_{K_μ}(x): the closest point of the Coulomb cone K_μ = {‖x_t‖ ≤ μ x_n}, x = [t1, t2, n], μ in [0, ∞].
inline Vector3 projectOntoCoulombCone(double mu, const Vector3& x) {
  if (std::isinf(mu)) return Vector3(x[0], x[1], std::max(x[2], 0.0));  // the half-space x_n ≥ 0
  if (mu <= 1.0) return detail::projectOntoSmallCone(mu, x);
  return x + detail::projectOntoSmallCone(1.0 / mu, -x);  // Moreau: P_K(x) = x − P_{K*}(−x), K* = K_{1/μ}
}

/// P_{K_μ*}(x): the closest point of the dual cone K_μ* = K_{1/μ} = {μ ‖x_t‖ ≤ x_n}, μ in [0, ∞].
inline Vector3 projectOntoDualCoulombCone(double mu, const Vector3& x) {
  if (mu == 0.0) return Vector3(x[0], x[1], std::max(x[2], 0.0));  // the half-space x_n ≥ 0
  if (std::isinf(mu)) return detail::projectOntoSmallCone(0.0, x);  // the normal ray
  if (mu >= 1.0) return detail::projectOntoSmallCone(1.0 / mu, x);
  return x + detail::projectOntoSmallCone(mu, -x);  // Moreau, through K_μ (μ < 1)
}

/// De Saxcé's corrected velocity ṽ = v + μ ‖v_t‖ e_n (v unchanged for μ = 0 or ∞).
inline Vector3 deSaxceCorrected(double mu, const Vector3& v) {
  if (std::isinf(mu)) return v;
  return Vector3(v[0], v[1], v[2] + mu * std::sqrt(v[0] * v[0] + v[1] * v[1]));
}

}  // namespace loopsim
