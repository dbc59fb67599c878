#pragma once
// Spatial motion and force vectors, [angular; linear] order (Featherstone).
// A Motion is (omega, v) with v the velocity of the frame origin; a Force is
// (n, f) with n the moment about the frame origin.
#include <loopsim/spatial/types.hpp>

namespace loopsim {

struct Force;

struct Motion {
  Vector3 w = Vector3::Zero();  // angular
  Vector3 v = Vector3::Zero();  // linear (of the frame origin)

  Motion() = default;
  Motion(const Vector3& angular, const Vector3& linear) : w(angular), v(linear) {}
  explicit Motion(const Vector6& m) : w(m.head<3>()), v(m.tail<3>()) {}
  static Motion Zero() { return {}; }

  // Block assignments, not Eigen's comma initializer: the latter stays an
  // out-of-line call in the recursions' inner loops.
  Vector6 toVector() const {
    Vector6 out;
    out.head<3>() = w;
    out.tail<3>() = v;
    return out;
  }
  Motion operator+(const Motion& o) const { return {w + o.w, v + o.v}; }
  Motion operator-(const Motion& o) const { return {w - o.w, v - o.v}; }
  Motion operator-() const { return {-w, -v}; }
  Motion operator*(double s) const { return {w * s, v * s}; }
  Motion& operator+=(const Motion& o) {
    w += o.w;
    v += o.v;
    return *this;
  }
  Motion& operator-=(const Motion& o) {
    w -= o.w;
    v -= o.v;
    return *this;
  }
  void setZero() {
    w.setZero();
    v.setZero();
  }

  /// Spatial cross product for motions: this x m  (Featherstone crm).
  Motion cross(const Motion& m) const { return {w.cross(m.w), w.cross(m.v) + v.cross(m.w)}; }
  /// Dual cross product: this x* f  (Featherstone crf).
  inline Force crossDual(const Force& f) const;
};

struct Force {
  Vector3 n = Vector3::Zero();  // moment about the frame origin
  Vector3 f = Vector3::Zero();  // linear force

  Force() = default;
  Force(const Vector3& moment, const Vector3& linear) : n(moment), f(linear) {}
  explicit Force(const Vector6& x) : n(x.head<3>()), f(x.tail<3>()) {}
  static Force Zero() { return {}; }

  Vector6 toVector() const {  // block assignments, as Motion::toVector
    Vector6 out;
    out.head<3>() = n;
    out.tail<3>() = f;
    return out;
  }
  Force operator+(const Force& o) const { return {n + o.n, f + o.f}; }
  Force operator-(const Force& o) const { return {n - o.n, f - o.f}; }
  Force operator-() const { return {-n, -f}; }
  Force operator*(double s) const { return {n * s, f * s}; }
  Force& operator+=(const Force& o) {
    n += o.n;
    f += o.f;
    return *this;
  }
  Force& operator-=(const Force& o) {
    n -= o.n;
    f -= o.f;
    return *this;
  }
  void setZero() {
    n.setZero();
    f.setZero();
  }
};

inline Force Motion::crossDual(const Force& x) const { return {w.cross(x.n) + v.cross(x.f), w.cross(x.f)}; }

/// Power pairing m . f.
inline double dot(const Motion& m, const Force& f) { return m.w.dot(f.n) + m.v.dot(f.f); }

}  // namespace loopsim
