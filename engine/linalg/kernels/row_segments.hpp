#pragma once
// Kernels over one contiguous row segment [begin, end) of a row-major matrix:
// the weighted sum of squares, the dot products of several rows with one
// vector and the axpy that the sparse LTDL factorisation's sweeps are made of
// (a dof's descendants are one such segment). The segments are short on a
// limb (0-3 entries, where a general loop's set-up costs more than its
// products) and long at a floating base (20-35 entries), so each kernel
// picks its path by length. namespace reference holds the plain loops they
// equal: bit for bit in the portable flavour; with AVX-512 the long segments
// are summed in eight lanes and a horizontal sum, a different order, and with
// FMA the written-out short sums may fuse other products than the loop does.
#include <algorithm>
#include <cstddef>

#include <Eigen/Core>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace loopsim::kernels {

namespace reference {

/// m − Σ_k u_k (d_k u_k) over [begin, end), subtracted in the order of k;
/// scaled[k] = d_k u_k.
inline double minusWeightedSquares(double m, const double* u, const double* d, int begin, int end, double* scaled) {
  for (int k = begin; k < end; ++k) {
    scaled[k] = d[k] * u[k];
    m -= u[k] * scaled[k];
  }
  return m;
}

/// Σ_k r_k x_k over [begin, end), added in the order of k.
inline double rowDot(const double* r, const double* x, int begin, int end) {
  double sum = 0.0;
  for (int k = begin; k < end; ++k) sum += r[k] * x[k];
  return sum;
}

/// x_k −= a r_k over [begin, end).
inline void subtractMultiple(double* x, double a, const double* r, int begin, int end) {
  for (int k = begin; k < end; ++k) x[k] -= a * r[k];
}

}  // namespace reference

#if defined(__AVX512F__)
namespace lanes {

// Segments of this many entries or more (a floating base's and a torso's
// dofs) are summed in eight lanes with a masked tail; on shorter ones the
// horizontal sums cost more than the lanes save.
inline constexpr int kMinLength = 16;

inline __mmask8 before(int k, int end) { return static_cast<__mmask8>((1u << std::min(8, end - k)) - 1u); }

inline double minusWeightedSquares(double m, const double* u, const double* d, int begin, int end, double* scaled) {
  __m512d sum = _mm512_setzero_pd();
  for (int k = begin; k < end; k += 8) {
    const __mmask8 mask = before(k, end);
    const __m512d uk = _mm512_maskz_loadu_pd(mask, u + k);
    const __m512d sk = _mm512_mul_pd(uk, _mm512_maskz_loadu_pd(mask, d + k));
    _mm512_storeu_pd(scaled + k, sk);  // full width (zeros past end): rowDots' wide loads are forwarded
    sum = _mm512_fmadd_pd(uk, sk, sum);
  }
  return m - _mm512_reduce_add_pd(sum);
}

// Four rows against one x (loaded once for the four).
inline void rowDots4(const double* r0, const double* r1, const double* r2, const double* r3, const double* x,
                     int begin, int end, double out[4]) {
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  for (int k = begin; k < end; k += 8) {
    const __mmask8 mask = before(k, end);
    const __m512d xk = _mm512_loadu_pd(x + k);
    s0 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(mask, r0 + k), xk, s0);
    s1 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(mask, r1 + k), xk, s1);
    s2 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(mask, r2 + k), xk, s2);
    s3 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(mask, r3 + k), xk, s3);
  }
  out[0] = _mm512_reduce_add_pd(s0);
  out[1] = _mm512_reduce_add_pd(s1);
  out[2] = _mm512_reduce_add_pd(s2);
  out[3] = _mm512_reduce_add_pd(s3);
}

inline double rowDot(const double* r, const double* x, int begin, int end) {
  __m512d sum = _mm512_setzero_pd();
  for (int k = begin; k < end; k += 8)
    sum = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(before(k, end), r + k), _mm512_loadu_pd(x + k), sum);
  return _mm512_reduce_add_pd(sum);
}

}  // namespace lanes

/// Doubles past `end` that a vector x of rowDots (and `scaled` of
/// minusWeightedSquares) must have room for: the lanes read and write whole
/// eight-wide vectors. minusWeightedSquares leaves zeros there.
inline constexpr int kRowSegmentPadding = 8;
#else
inline constexpr int kRowSegmentPadding = 0;
#endif

/// m − Σ_k u_k (d_k u_k) over [begin, end), and scaled[k] = d_k u_k (with
/// zeros up to kRowSegmentPadding past end where the lanes ran).
inline double minusWeightedSquares(double m, const double* u, const double* d, int begin, int end, double* scaled) {
#if defined(__AVX512F__)
  if (end - begin >= lanes::kMinLength) return lanes::minusWeightedSquares(m, u, d, begin, end, scaled);
#endif
  return reference::minusWeightedSquares(m, u, d, begin, end, scaled);
}

/// store(i, Σ_k a(i, k) x_k over [begin, end)) for each row i in rows[0, count)
/// of the row-major a (row i at a + i·ld), in the order of `rows`; x needs
/// kRowSegmentPadding finite entries past end. Each sum is reference::rowDot's
/// (bit for bit in the portable flavour): four rows at a time keep four
/// independent sums in flight where one waits on its own latency.
template <class Store>
[[gnu::always_inline]] inline void forEachRowDot(const double* a, std::ptrdiff_t ld, const int* rows, int count,
                                                 const double* x, int begin, int end, Store&& store) {
  const int* row = rows;
  const int* const rows_end = rows + count;
#if defined(__AVX512F__)
  if (end - begin >= lanes::kMinLength) {
    for (; rows_end - row >= 4; row += 4) {
      double sums[4];
      lanes::rowDots4(a + row[0] * ld, a + row[1] * ld, a + row[2] * ld, a + row[3] * ld, x, begin, end, sums);
      for (int r = 0; r < 4; ++r) store(row[r], sums[r]);
    }
    for (; row != rows_end; ++row) store(*row, lanes::rowDot(a + *row * ld, x, begin, end));
    return;
  }
#endif
  // Up to two entries (a limb's last dofs, the most common rows) written out:
  // the blocked loops' set-up would cost more than the products.
  if (end - begin <= 2) {
    const int length = end - begin;
    for (; row != rows_end; ++row) {
      const double* const r = a + *row * ld;
      double sum = 0.0;
      if (length > 0) sum += r[begin] * x[begin];
      if (length > 1) sum += r[begin + 1] * x[begin + 1];
      store(*row, sum);
    }
    return;
  }
  for (; rows_end - row >= 4; row += 4) {
    const double *r0 = a + row[0] * ld, *r1 = a + row[1] * ld, *r2 = a + row[2] * ld, *r3 = a + row[3] * ld;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (int k = begin; k < end; ++k) {
      const double xk = x[k];
      s0 += r0[k] * xk;
      s1 += r1[k] * xk;
      s2 += r2[k] * xk;
      s3 += r3[k] * xk;
    }
    store(row[0], s0);
    store(row[1], s1);
    store(row[2], s2);
    store(row[3], s3);
  }
  for (; row != rows_end; ++row) store(*row, reference::rowDot(a + *row * ld, x, begin, end));
}

/// x_k −= a r_k over [begin, end): up to two entries (a limb's last dofs)
/// written out, where Eigen's segment set-up cost more than the products;
/// longer ones through Eigen's vector loop.
[[gnu::always_inline]] inline void subtractMultiple(double* x, double a, const double* r, int begin, int end) {
  const int length = end - begin;
  if (length > 2) {
    Eigen::Map<Eigen::VectorXd>(x + begin, length) -= a * Eigen::Map<const Eigen::VectorXd>(r + begin, length);
  } else if (length > 0) {
    x[begin] -= a * r[begin];
    if (length > 1) x[begin + 1] -= a * r[begin + 1];
  }
}

}  // namespace loopsim::kernels
