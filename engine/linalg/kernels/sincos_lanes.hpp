#pragma once
// Sine and cosine of eight angles at once. The recursions' first pass needs
// sin and cos of every revolute joint's angle, and one libm sincos call costs
// about as much as eight lanes of the polynomial below. Branch-free so that
// GCC vectorises the lane loops (in every flavour: no intrinsics).
//
// Method (the classic one, e.g. fdlibm's): k = nearest integer to x·2/π,
// r = x − k·π/2 with π/2 split in three parts (Cody-Waite),
// then minimax polynomials for sin and cos on [−π/4, π/4] (fdlibm's
// __kernel_sin / __kernel_cos coefficients, < 1 ulp there) and the quadrant
// k mod 4. Within 1 ulp of std::sin / std::cos (namespace reference) on
// [−4, 4] and 2 ulp for |x| ≤ kSinCosLaneRange (tests/unit/test_kernels.cpp);
// larger or non-finite lanes go to libm.
#include <cmath>

namespace loopsim::kernels {

inline constexpr int kSinCosLanes = 8;
inline constexpr double kSinCosLaneRange = 1e5;  // |x| beyond: libm (the two-part reduction loses bits)

namespace reference {

/// s[j] = sin x[j], c[j] = cos x[j] for the eight lanes, from libm.
inline void sinCosLanes(const double* x, double* s, double* c) {
  for (int j = 0; j < kSinCosLanes; ++j) {
    s[j] = std::sin(x[j]);
    c[j] = std::cos(x[j]);
  }
}

}  // namespace reference

/// s[j] ≈ sin x[j], c[j] ≈ cos x[j] for the eight lanes (see above).
inline void sinCosLanes(const double* x, double* s, double* c) {
  constexpr double two_over_pi = 6.36619772367581382433e-01;
  // π/2 = pio2_1 + pio2_2 + pio2_2t, the first two with 33 significant bits
  // so that k·pio2_1 and k·pio2_2 are exact for |k| < 2^20 (no FMA needed;
  // fdlibm's constants for its medium range).
  constexpr double pio2_1 = 1.57079632673412561417e+00;
  constexpr double pio2_2 = 6.07710050630396597660e-11;
  constexpr double pio2_2t = 2.02226624879595063154e-21;
  // Adding and subtracting 1.5·2^52 rounds to the nearest integer (ties to
  // even) in the default rounding mode: plain arithmetic that every x86-64
  // level vectorises, where std::nearbyint is a libm call below SSE4.1.
  constexpr double round_shift = 6755399441055744.0;
  constexpr double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                   S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                   S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  constexpr double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                   C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                   C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  bool out_of_range = false;
  for (int j = 0; j < kSinCosLanes; ++j) out_of_range |= !(std::abs(x[j]) <= kSinCosLaneRange);  // NaN too
  // Selections as exact arithmetic on {0, 1} and ±1 (GCC vectorises these
  // lanes, not the equivalent branches); lanes out of range compute garbage
  // here and are overwritten below.
  for (int j = 0; j < kSinCosLanes; ++j) {
    const double k = (x[j] * two_over_pi + round_shift) - round_shift;
    const double r = ((x[j] - k * pio2_1) - k * pio2_2) - k * pio2_2t;
    const double z = r * r;
    const double sin_r = r + (r * z) * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
    // cos r = 1 − z/2 + z² P(z), the 1 − z/2 split as in fdlibm for < 1 ulp.
    const double hz = 0.5 * z, w = 1.0 - hz;
    const double cos_r = w + (((1.0 - w) - hz) + z * (z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))))));
    // The quadrant k mod 4 as m = k − 4·round(k/4) in {−2, −1, 0, 1, 2} (std::floor
    // would not vectorise), then 0/1 flags from |m| = a: odd quadrants swap
    // sin and cos; sin is negative for m in {−2, −1, 2}, cos for m in {−2, 1, 2}.
    const double m = k - 4.0 * ((0.25 * k + round_shift) - round_shift);
    const double a = std::abs(m);
    const double odd = a * (2.0 - a);
    const double half_turn = 0.5 * a * (a - 1.0);  // |m| = 2
    const double sin_sign = 1.0 - 2.0 * (half_turn + 0.5 * odd * (1.0 - m));
    const double cos_sign = 1.0 - 2.0 * (half_turn + 0.5 * odd * (1.0 + m));
    s[j] = sin_sign * (odd * cos_r + (1.0 - odd) * sin_r);
    c[j] = cos_sign * (odd * sin_r + (1.0 - odd) * cos_r);
  }
  if (out_of_range) {
    for (int j = 0; j < kSinCosLanes; ++j) {
      if (!(std::abs(x[j]) <= kSinCosLaneRange)) {
        s[j] = std::sin(x[j]);
        c[j] = std::cos(x[j]);
      }
    }
  }
}

}  // namespace loopsim::kernels
