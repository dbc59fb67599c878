#pragma once
// Kernels that fill a segment [begin, end) of one column: a combination of
// six rows of a 6 x n row-major matrix (CRBA's M(k, l) = F_kᵀ S_l down a
// column, where F is stored by rows so that each row is contiguous in k) and
// a clear. The segments hold 1-35 entries on a humanoid: with AVX-512 each
// eight entries take one masked pass (no scalar remainder, no call to
// memset); elsewhere the plain loops of namespace reference.
#include <algorithm>
#include <cstddef>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace loopsim::kernels {

namespace reference {

/// out[k] = Σ_{r<6} s_r f_r[k] over [begin, end), with row r of f at f + r·stride.
inline void combineSixRows(const double* s, const double* f, std::ptrdiff_t stride, int begin, int end, double* out) {
  const double *f0 = f, *f1 = f + stride, *f2 = f + 2 * stride;
  const double *f3 = f + 3 * stride, *f4 = f + 4 * stride, *f5 = f + 5 * stride;
  for (int k = begin; k < end; ++k)
    out[k] = s[0] * f0[k] + s[1] * f1[k] + s[2] * f2[k] + s[3] * f3[k] + s[4] * f4[k] + s[5] * f5[k];
}

/// x[k] = 0 over [begin, end).
inline void setZero(double* x, int begin, int end) { std::fill(x + begin, x + end, 0.0); }

}  // namespace reference

/// out[k] = Σ_{r<6} s_r f_r[k] over [begin, end), row r of f at f + r·stride.
/// With AVX-512 the sum is s_0 f_0 then five FMAs in the order of r.
inline void combineSixRows(const double* s, const double* f, std::ptrdiff_t stride, int begin, int end, double* out) {
#if defined(__AVX512F__)
  const double *f0 = f, *f1 = f + stride, *f2 = f + 2 * stride;
  const double *f3 = f + 3 * stride, *f4 = f + 4 * stride, *f5 = f + 5 * stride;
  const __m512d s0 = _mm512_set1_pd(s[0]), s1 = _mm512_set1_pd(s[1]), s2 = _mm512_set1_pd(s[2]);
  const __m512d s3 = _mm512_set1_pd(s[3]), s4 = _mm512_set1_pd(s[4]), s5 = _mm512_set1_pd(s[5]);
  for (int k = begin; k < end; k += 8) {
    const __mmask8 lanes = static_cast<__mmask8>((1u << std::min(8, end - k)) - 1u);
    __m512d sum = _mm512_mul_pd(s0, _mm512_maskz_loadu_pd(lanes, f0 + k));
    sum = _mm512_fmadd_pd(s1, _mm512_maskz_loadu_pd(lanes, f1 + k), sum);
    sum = _mm512_fmadd_pd(s2, _mm512_maskz_loadu_pd(lanes, f2 + k), sum);
    sum = _mm512_fmadd_pd(s3, _mm512_maskz_loadu_pd(lanes, f3 + k), sum);
    sum = _mm512_fmadd_pd(s4, _mm512_maskz_loadu_pd(lanes, f4 + k), sum);
    sum = _mm512_fmadd_pd(s5, _mm512_maskz_loadu_pd(lanes, f5 + k), sum);
    _mm512_mask_storeu_pd(out + k, lanes, sum);
  }
#else
  reference::combineSixRows(s, f, stride, begin, end, out);
#endif
}

/// x[k] = 0 over [begin, end).
inline void setZero(double* x, int begin, int end) {
#if defined(__AVX512F__)
  for (int k = begin; k < end; k += 8) {
    const __mmask8 lanes = static_cast<__mmask8>((1u << std::min(8, end - k)) - 1u);
    _mm512_mask_storeu_pd(x + k, lanes, _mm512_setzero_pd());
  }
#else
  reference::setZero(x, begin, end);
#endif
}

}  // namespace loopsim::kernels
