#pragma once
// Rigid-body spatial inertia: mass, centre of mass c and rotational inertia
// about the centre of mass, all in the body frame.
#include <loopsim/spatial/se3.hpp>

namespace loopsim {

struct Inertia {
  double mass = 0.0;
  Vector3 com = Vector3::Zero();
  Matrix3 inertia_com = Matrix3::Zero();  // about the centre of mass

  Inertia() = default;
  Inertia(double m, const Vector3& c, const Matrix3& Ic) : mass(m), com(c), inertia_com(Ic) {}
  static Inertia Zero() { return {}; }

  /// Rotational inertia about the frame origin.
  Matrix3 inertiaAtOrigin() const { return inertia_com + mass * (com.squaredNorm() * Matrix3::Identity() - com * com.transpose()); }

  /// Momentum h = I m.
  Force operator*(const Motion& m) const {
    const Vector3 f = mass * (m.v + m.w.cross(com));  // m * velocity of the com
    return {inertia_com * m.w + com.cross(f), f};
  }

  /// Sum of two inertias in the same frame.
  Inertia operator+(const Inertia& o) const;
  Inertia& operator+=(const Inertia& o) { return *this = *this + o; }

  /// Inertia expressed in frame a, given this one in frame b and aMb.
  Inertia transformed(const SE3& aMb) const {
    return {mass, aMb.actPoint(com), aMb.R * inertia_com * aMb.R.transpose()};
  }

  /// 6x6 matrix, [angular; linear] order.
  Matrix6 matrix() const {
    Matrix6 I;
    const Matrix3 C = skew(com);
    I.topLeftCorner<3, 3>() = inertia_com + mass * C * C.transpose();
    I.topRightCorner<3, 3>() = mass * C;
    I.bottomLeftCorner<3, 3>() = -mass * C;  // = (m C)^T since C^T = -C
    I.bottomRightCorner<3, 3>() = mass * Matrix3::Identity();
    return I;
  }

  /// Kinetic energy 1/2 m^T I m.
  double kineticEnergy(const Motion& m) const { return 0.5 * dot(m, (*this) * m); }
};

/// A spatial inertia about the origin of the frame it is expressed in, in the
/// linear form (m, h = m c, I_o = rotational inertia about the origin): sums of
/// inertias in one frame are plain sums, which is what the world-frame CRBA
/// accumulates (no parallel-axis shift, no division per addition).
struct InertiaAtOrigin {
  double mass = 0.0;
  Vector3 h = Vector3::Zero();       // first moment m c
  Matrix3 I_o = Matrix3::Zero();     // rotational inertia about the origin

  void setZero() {
    mass = 0.0;
    h.setZero();
    I_o.setZero();
  }
  /// `body` (body frame) expressed in frame a, given aMb.
  /// I_o = R I_c Rᵀ + m (|c|² 1 - c cᵀ) is symmetric: its six distinct
  /// entries are formed once (45 multiply-adds for R I_c Rᵀ instead of two
  /// full 3x3 products), which matters in CRBA's per-body pass.
  /// Written in place: returning a new object and assigning it built it on
  /// the stack and copied it back with wide loads of narrow stores (a
  /// store-forwarding stall; docs/performance.md).
  void assign(const Inertia& body, const SE3& aMb) {
    const Matrix3& R = aMb.R;
    // c as three scalars: as a Vector3, GCC stored it in a 16- and an 8-byte
    // piece and reloaded (c1, c2) as one 16-byte load over both, which cannot
    // be forwarded from the stores.
    const Vector3& p = body.com;
    const double c0 = R(0, 0) * p[0] + R(0, 1) * p[1] + R(0, 2) * p[2] + aMb.t[0];
    const double c1 = R(1, 0) * p[0] + R(1, 1) * p[1] + R(1, 2) * p[2] + aMb.t[1];
    const double c2 = R(2, 0) * p[0] + R(2, 1) * p[1] + R(2, 2) * p[2] + aMb.t[2];
    const Matrix3 RI = R * body.inertia_com;
    const double m = body.mass;
    const double h0 = m * c0, h1 = m * c1, h2 = m * c2;
    mass = m;
    h[0] = h0;
    h[1] = h1;
    h[2] = h2;
    // m (|c|² 1 - c cᵀ): the diagonal takes the other two squares.
    I_o(0, 0) = RI.row(0).dot(R.row(0)) + h1 * c1 + h2 * c2;
    I_o(1, 1) = RI.row(1).dot(R.row(1)) + h0 * c0 + h2 * c2;
    I_o(2, 2) = RI.row(2).dot(R.row(2)) + h0 * c0 + h1 * c1;
    I_o(1, 0) = I_o(0, 1) = RI.row(0).dot(R.row(1)) - h0 * c1;
    I_o(2, 0) = I_o(0, 2) = RI.row(0).dot(R.row(2)) - h0 * c2;
    I_o(2, 1) = I_o(1, 2) = RI.row(1).dot(R.row(2)) - h1 * c2;
  }
  /// Momentum I m about the origin: n = I_o ω + h × v, f = m v + ω × h.
  Force operator*(const Motion& m) const { return {I_o * m.w + h.cross(m.v), mass * m.v + m.w.cross(h)}; }
  /// Column by column, as the products with I_o read it: CRBA reads a
  /// composite right after its last child added into it, and a load that
  /// straddles two of the stores cannot be forwarded from them (I_o += o.I_o
  /// as one 72-byte sum stored 16-byte pieces off the columns' boundaries).
  InertiaAtOrigin& operator+=(const InertiaAtOrigin& o) {
    mass += o.mass;
    h += o.h;
    for (int c = 0; c < 3; ++c) I_o.col(c) += o.I_o.col(c);
    return *this;
  }
};

}  // namespace loopsim
