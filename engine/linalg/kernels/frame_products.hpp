#pragma once
// Rotations and changes of frame written out, for the recursions' per-body
// steps. Each is forced inline and avoids a temporary that GCC would store in
// narrow pieces and reload wide (a store-forwarding stall), or a dense product
// with a rotation's known zeros and ones. namespace reference holds the plain
// SE3 / dense forms they equal: exactly for the unit-axis rotation, to a few
// ulp elsewhere (the same products, summed or contracted in another order).
#include <loopsim/spatial/motion.hpp>
#include <loopsim/spatial/se3.hpp>

namespace loopsim::kernels {

namespace reference {

/// The rotation by θ about e_k from cos θ and sin θ, by Rodrigues' formula
/// R = e eᵀ + cos θ (I − e eᵀ) + sin θ [e]×.
inline Matrix3 unitAxisRotation(int k, double c, double s) {
  const Vector3 e = Vector3::Unit(k);
  Matrix3 skew;
  skew << 0.0, -e[2], e[1], e[2], 0.0, -e[0], -e[1], e[0], 0.0;
  return e * e.transpose() + c * (Matrix3::Identity() - e * e.transpose()) + s * skew;
}

/// Rᵀ x.
inline Vector3 rotationTransposeTimes(const Matrix3& R, const Vector3& x) { return R.transpose() * x; }

/// out = a × b.
inline void setCross(const Vector3& a, const Vector3& b, Vector3& out) { out = a.cross(b); }

/// The motion m in the child frame: liMi⁻¹ m.
inline Motion toChildFrame(const SE3& liMi, const Motion& m) { return liMi.actInv(m); }

/// The force (n, f) in the parent frame: liMi (n, f).
inline Force toParentFrame(const SE3& liMi, const Vector3& n_child, const Vector3& f_child) {
  return liMi.act(Force(n_child, f_child));
}

}  // namespace reference

/// R = the rotation by θ about e_k, from cos θ and sin θ: column k is e_k,
/// and the plane (e_a, e_b), (a, b) = (k + 1, k + 2) mod 3, turns.
inline void setUnitAxisRotation(int k, double c, double s, Matrix3& R) {
  const int a = (k + 1) % 3, b = (k + 2) % 3;
  R.setZero();
  R(k, k) = 1.0;
  R(a, a) = c;
  R(b, b) = c;
  R(b, a) = s;
  R(a, b) = -s;
}

/// oR = pR · (rotation about e_k by θ), from cos θ and sin θ: column k is
/// pR's, the other two mix pR's columns a and b (12 FMAs for the 27 of a
/// dense 3 x 3 product).
template <int k>
[[gnu::always_inline]] inline void setTimesUnitAxisRotation(const Matrix3& pR, double c, double s, Matrix3& oR) {
  constexpr int a = (k + 1) % 3, b = (k + 2) % 3;
  oR.col(k) = pR.col(k);
  oR.col(a) = c * pR.col(a) + s * pR.col(b);
  oR.col(b) = c * pR.col(b) - s * pR.col(a);
}

/// Rᵀ x as a combination of R's rows, not as three dot products: GCC stores
/// those three scalars and reloads them two-wide, which fails store forwarding.
[[gnu::always_inline]] inline Vector3 rotationTransposeTimes(const Matrix3& R, const Vector3& x) {
  return x[0] * R.row(0).transpose() + x[1] * R.row(1).transpose() + x[2] * R.row(2).transpose();
}

/// a × b written into `out` component by component. Eigen's cross() builds
/// its 3-vector from scalar stores, which the next 2-wide read of it loads
/// before they retire: a failed store forward.
[[gnu::always_inline]] inline void setCross(const Vector3& a, const Vector3& b, Vector3& out) {
  const double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  out[0] = x;
  out[1] = y;
  out[2] = z;
}

/// SE3::actInv on a Motion (parent frame to child frame), written out and
/// forced inline: in the recursions' loops the compiler keeps the member
/// call out of line. v − t × w in scalars, then Rᵀ by rows (setCross's reason).
[[gnu::always_inline]] inline Motion toChildFrame(const SE3& liMi, const Motion& m) {
  const Vector3& t = liMi.t;
  const Vector3& w = m.w;
  const double x = m.v[0] - (t[1] * w[2] - t[2] * w[1]);
  const double y = m.v[1] - (t[2] * w[0] - t[0] * w[2]);
  const double z = m.v[2] - (t[0] * w[1] - t[1] * w[0]);
  const Matrix3& R = liMi.R;
  return {rotationTransposeTimes(R, w), Vector3(x * R.row(0).transpose() + y * R.row(1).transpose() + z * R.row(2).transpose())};
}

/// SE3::act on a Force (child frame to parent frame) given as its moment and
/// linear halves, written out and forced inline for the same reason.
[[gnu::always_inline]] inline Force toParentFrame(const SE3& liMi, const Vector3& n_child, const Vector3& f_child) {
  const Vector3 f = liMi.R * f_child;
  return {Vector3(liMi.R * n_child + liMi.t.cross(f)), f};
}

/// The same on a force as a 6-vector (moment on top).
[[gnu::always_inline]] inline Force toParentFrame(const SE3& liMi, const Vector6& f_child) {
  return toParentFrame(liMi, f_child.head<3>(), f_child.tail<3>());
}

}  // namespace loopsim::kernels
