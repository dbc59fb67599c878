#pragma once
// Rigid-body spatial inertia: mass, centre of mass c and rotational inertia
// about the centre of mass, all in the body frame.
#include "spatial/se3.hpp"

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

}  // namespace loopsim
