#pragma once
// Rigid-body spatial inertia: mass, centre of mass c and rotational inertia
// about the centre of mass, all in the body frame.
#include <loopsim/spatial/se3.hpp>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

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
  /// `body` (body frame) expressed in frame a, given aMb:
  /// I_o = R I_c Rᵀ + m (|c|² 1 - c cᵀ), h = m c with c = R c_b + t. Once per
  /// body in CRBA's first pass; by columns where AVX2 and FMA are compiled
  /// in, else by entries.
  /// Written in place: returning a new object and assigning it built it on
  /// the stack and copied it back with wide loads of narrow stores (a
  /// store-forwarding stall, ~5 % of CRBA).
  void assign(const Inertia& body, const SE3& aMb) {
#if defined(__AVX2__) && defined(__FMA__)
    assignByColumns(body, aMb);
#else
    assignByEntries(body, aMb);
#endif
  }
#if defined(__AVX2__) && defined(__FMA__)
  /// The same by columns in 4-lane registers (lane 3 unused): R I_c as three
  /// columns of three broadcast FMAs each, then (R I_c) Rᵀ the same way, 18
  /// vector FMAs where the entry form takes 45 scalar ones (perf on Go1: the
  /// entry form held the hottest lines of CRBA's first pass; scene CRBA
  /// 0.96-0.97x with this). Round-off differs from the entry form, and the
  /// two off-diagonal halves may differ by an ulp.
  void assignByColumns(const Inertia& body, const SE3& aMb) {
    const Matrix3& R = aMb.R;
    const double* r = R.data();  // column-major: R(i, k) = r[3k + i]
    // Columns of R as 4 lanes: the fourth reads the next column's first entry
    // (for column 2, t[0], still inside the SE3) and is never used.
    const __m256d r0 = _mm256_loadu_pd(r), r1 = _mm256_loadu_pd(r + 3), r2 = _mm256_loadu_pd(r + 6);
    const double* ic = body.inertia_com.data();
    auto times = [&](const double* column) {  // R · column (3 entries)
      return _mm256_fmadd_pd(r2, _mm256_set1_pd(column[2]),
                             _mm256_fmadd_pd(r1, _mm256_set1_pd(column[1]), _mm256_mul_pd(r0, _mm256_set1_pd(column[0]))));
    };
    const __m256d a0 = times(ic), a1 = times(ic + 3), a2 = times(ic + 6);  // columns of R I_c
    const Vector3& p = body.com;
    const double c0 = R(0, 0) * p[0] + R(0, 1) * p[1] + R(0, 2) * p[2] + aMb.t[0];
    const double c1 = R(1, 0) * p[0] + R(1, 1) * p[1] + R(1, 2) * p[2] + aMb.t[1];
    const double c2 = R(2, 0) * p[0] + R(2, 1) * p[1] + R(2, 2) * p[2] + aMb.t[2];
    const double m = body.mass;
    const double h0 = m * c0, h1 = m * c1, h2 = m * c2;
    const double hc = h0 * c0 + h1 * c1 + h2 * c2;  // m |c|²
    const __m256d hv = _mm256_set_pd(0.0, h2, h1, h0);
    // Column j of I_o: (R I_c) (row j of R)ᵀ + m |c|² e_j - h c_j.
    auto column = [&](int j, double cj) {
      __m256d o = _mm256_fmadd_pd(a2, _mm256_set1_pd(r[6 + j]),
                                  _mm256_fmadd_pd(a1, _mm256_set1_pd(r[3 + j]), _mm256_mul_pd(a0, _mm256_set1_pd(r[j]))));
      o = _mm256_fnmadd_pd(hv, _mm256_set1_pd(cj), o);
      alignas(32) static constexpr double kUnit[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
      return _mm256_fmadd_pd(_mm256_set1_pd(hc), _mm256_load_pd(kUnit[j]), o);
    };
    const __m256d o0 = column(0, c0), o1 = column(1, c1), o2 = column(2, c2);
    mass = m;
    h[0] = h0;
    h[1] = h1;
    h[2] = h2;
    // Column 0 and 1 as whole registers (each fourth lane is overwritten by
    // the next column's store), column 2 as two plus one: I_o ends the object.
    double* out = I_o.data();
    _mm256_storeu_pd(out, o0);
    _mm256_storeu_pd(out + 3, o1);
    _mm_storeu_pd(out + 6, _mm256_castpd256_pd128(o2));
    _mm_store_sd(out + 8, _mm256_extractf128_pd(o2, 1));
  }
#endif
  /// I_o is symmetric: its six distinct entries are formed once (45
  /// multiply-adds for R I_c Rᵀ instead of two full 3x3 products).
  void assignByEntries(const Inertia& body, const SE3& aMb) {
    const Matrix3& R = aMb.R;
    // c as three scalars: as a Vector3, GCC stored it in a 16- and an 8-byte
    // piece and reloaded (c1, c2) as one 16-byte load over both, which cannot
    // be forwarded from the stores (perf: a third of this function).
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
