#pragma once
// Rigid transform aMb: the placement of frame b in frame a.
// Applied as rotation + translation (never a dense 6x6 product):
//   point:  p_a = R p_b + t
//   act:    coordinates in b  ->  coordinates in a
//   actInv: coordinates in a  ->  coordinates in b
#include <loopsim/spatial/motion.hpp>

namespace loopsim {

struct SE3 {
  Matrix3 R = Matrix3::Identity();
  Vector3 t = Vector3::Zero();

  SE3() = default;
  SE3(const Matrix3& rotation, const Vector3& translation) : R(rotation), t(translation) {}
  static SE3 Identity() { return {}; }

  SE3 operator*(const SE3& bMc) const { return {R * bMc.R, R * bMc.t + t}; }
  /// *this = aMb * bMc written in place (neither argument may be *this). In
  /// hot loops `x = a * b` built the product in a stack temporary with narrow
  /// stores and copied it with wide loads, which wait for those stores.
  void setProduct(const SE3& aMb, const SE3& bMc) {
    R.noalias() = aMb.R * bMc.R;
    t.noalias() = aMb.R * bMc.t;
    t += aMb.t;
  }
  SE3 inverse() const { return {R.transpose(), -(R.transpose() * t)}; }
  /// *this = aMb⁻¹ aMc in place (neither argument may be *this), for the reason of setProduct.
  void setInverseTimes(const SE3& aMb, const SE3& aMc) {
    t.noalias() = aMb.R.transpose() * (aMc.t - aMb.t);
    R.noalias() = aMb.R.transpose() * aMc.R;
  }
  /// *this = aMb⁻¹ in place (aMb may not be *this), for the reason of setProduct.
  /// t first: computed after R, it was read back from R's narrow stores.
  void setInverse(const SE3& aMb) {
    t.noalias() = -(aMb.R.transpose() * aMb.t);
    R = aMb.R.transpose();
  }

  Vector3 actPoint(const Vector3& p) const { return R * p + t; }
  Vector3 actInvPoint(const Vector3& p) const { return R.transpose() * (p - t); }

  Motion act(const Motion& m) const {
    const Vector3 w = R * m.w;
    return {w, R * m.v + t.cross(w)};
  }
  Motion actInv(const Motion& m) const {
    return {R.transpose() * m.w, R.transpose() * (m.v - t.cross(m.w))};
  }
  Force act(const Force& x) const {
    const Vector3 f = R * x.f;
    return {R * x.n + t.cross(f), f};
  }
  Force actInv(const Force& x) const {
    return {R.transpose() * x.n - R.transpose() * t.cross(x.f), R.transpose() * x.f};
  }

  /// 6x6 motion transform matrix (b coordinates -> a coordinates).
  Matrix6 actionMatrix() const {
    Matrix6 X;
    X.topLeftCorner<3, 3>() = R;
    X.topRightCorner<3, 3>().setZero();
    X.bottomLeftCorner<3, 3>() = skew(t) * R;
    X.bottomRightCorner<3, 3>() = R;
    return X;
  }

  bool isApprox(const SE3& o, double prec = 1e-12) const { return R.isApprox(o.R, prec) && t.isApprox(o.t, prec); }
};

/// I_a += X* I_b X^-1: a symmetric 6x6 motion->force map (an inertia or
/// articulated inertia) given in b coordinates, moved into a coordinates and
/// accumulated blockwise (the recursions' step from a child to its parent).
/// I_b's lower-left block is not read (taken as the upper-right's transpose).
/// Accumulating in place, not returning the matrix: a returned 6x6 is stored
/// in 3-row pieces and read back in 4-wide loads by the caller's +=, a
/// store-forwarding stall in the recursions' backward step (docs/performance.md).
void addTransformedInertia(const SE3& aMb, const Matrix6& I_b, Matrix6& I_a);

/// Exponential map of a spatial velocity (body frame) integrated over unit time.
SE3 exp6(const Motion& nu);
/// Logarithm: the body-frame twist that moves identity to M in unit time.
Motion log6(const SE3& M);
/// Rodrigues rotation exp([w]x).
Matrix3 exp3(const Vector3& w);
/// Rotation logarithm (axis * angle).
Vector3 log3(const Matrix3& R);

}  // namespace loopsim
