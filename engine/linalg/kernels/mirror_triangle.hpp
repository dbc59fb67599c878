#pragma once
// A symmetric matrix's strictly upper triangle from its lower one (column
// major, a(i, j) at a + j·ld + i). Element by element the upper triangle is
// stored a row at a time, a stride of ld apart, one double per store; with
// AVX-512 the lower triangle is read in 8 x 8 tiles of column segments,
// transposed in registers and stored as column segments of the mirrored tile.
// Copies only: the result is the reference's bit for bit.
#include <algorithm>
#include <cstddef>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace loopsim::kernels {

namespace reference {

/// a(j, i) = a(i, j) for every i > j.
inline void mirrorLowerTriangle(double* a, int n, std::ptrdiff_t ld) {
  for (int j = 0; j < n; ++j)
    for (int i = j + 1; i < n; ++i) a[i * ld + j] = a[j * ld + i];
}

}  // namespace reference

#if defined(__AVX512F__)
/// True where mirrorLowerTriangle transposes register tiles: then mirroring
/// the whole lower triangle is cheaper than copying a sparse pattern of it.
inline constexpr bool kMirrorsInTiles = true;

/// a(j, i) = a(i, j) for every i > j.
inline void mirrorLowerTriangle(double* a, int n, std::ptrdiff_t ld) {
  const __m512i pair_lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
  const __m512i pair_hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  for (int j0 = 0; j0 < n; j0 += 8) {
    const int cols = std::min(8, n - j0);
    for (int i0 = j0; i0 < n; i0 += 8) {
      const int rows = std::min(8, n - i0);
      const __mmask8 row_lanes = static_cast<__mmask8>((1u << rows) - 1u);
      __m512d v[8];
      for (int k = 0; k < 8; ++k) {
        v[k] = k < cols ? _mm512_maskz_loadu_pd(row_lanes, a + static_cast<std::ptrdiff_t>(j0 + k) * ld + i0)
                        : _mm512_setzero_pd();
      }
      // v[k][r] = a(i0 + r, j0 + k); out[c][k] = v[k][c].
      __m512d t[8], q[8];
      for (int k = 0; k < 8; k += 2) {
        t[k] = _mm512_unpacklo_pd(v[k], v[k + 1]);
        t[k + 1] = _mm512_unpackhi_pd(v[k], v[k + 1]);
      }
      q[0] = _mm512_permutex2var_pd(t[0], pair_lo, t[2]);  // r = 0, 4
      q[1] = _mm512_permutex2var_pd(t[0], pair_hi, t[2]);  // r = 2, 6
      q[2] = _mm512_permutex2var_pd(t[1], pair_lo, t[3]);  // r = 1, 5
      q[3] = _mm512_permutex2var_pd(t[1], pair_hi, t[3]);  // r = 3, 7
      q[4] = _mm512_permutex2var_pd(t[4], pair_lo, t[6]);
      q[5] = _mm512_permutex2var_pd(t[4], pair_hi, t[6]);
      q[6] = _mm512_permutex2var_pd(t[5], pair_lo, t[7]);
      q[7] = _mm512_permutex2var_pd(t[5], pair_hi, t[7]);
      const __m512d out[8] = {
          _mm512_shuffle_f64x2(q[0], q[4], 0x44), _mm512_shuffle_f64x2(q[2], q[6], 0x44),
          _mm512_shuffle_f64x2(q[1], q[5], 0x44), _mm512_shuffle_f64x2(q[3], q[7], 0x44),
          _mm512_shuffle_f64x2(q[0], q[4], 0xEE), _mm512_shuffle_f64x2(q[2], q[6], 0xEE),
          _mm512_shuffle_f64x2(q[1], q[5], 0xEE), _mm512_shuffle_f64x2(q[3], q[7], 0xEE)};
      const unsigned col_lanes = (1u << cols) - 1u;
      for (int c = 0; c < rows; ++c) {
        // Row i0 + c of the tile into column i0 + c above the diagonal: on a
        // diagonal tile only its first c entries are strictly upper.
        const unsigned lanes = i0 == j0 ? col_lanes & ((1u << c) - 1u) : col_lanes;
        _mm512_mask_storeu_pd(a + static_cast<std::ptrdiff_t>(i0 + c) * ld + j0, static_cast<__mmask8>(lanes), out[c]);
      }
    }
  }
}
#else
inline constexpr bool kMirrorsInTiles = false;

/// a(j, i) = a(i, j) for every i > j.
inline void mirrorLowerTriangle(double* a, int n, std::ptrdiff_t ld) { reference::mirrorLowerTriangle(a, n, ld); }
#endif

}  // namespace loopsim::kernels
