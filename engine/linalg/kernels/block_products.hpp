#pragma once
// Products of a spatial vector with a 6 x NV block (a joint's U_i or S_i, a
// constraint's K) or a 6 x 6 matrix, computed on the vector's angular and
// linear halves apart: through a 6-vector copy (Motion::toVector), the copy's
// 3-wide stores, loaded back 2-wide across the seam right away, fail store
// forwarding. Forced inline: called per joint and per row, a call costs more
// than the body. namespace reference holds the plain 6-vector products they
// equal to a few ulp (the same products, summed in another order).
#include <loopsim/spatial/motion.hpp>

namespace loopsim::kernels {

namespace reference {

/// Bᵀ a.
template <int NV, class Block>
Eigen::Matrix<double, NV, 1> blockTransposeTimes(const Block& B, const Motion& a) {
  return B.transpose() * a.toVector();
}

/// f + A m.
template <class Matrix>
Force plusMatrixTimes(const Force& f, const Matrix& A, const Motion& m) {
  return Force(Vector6(f.toVector() + A * m.toVector()));
}

/// f + B x.
template <int NV, class Block>
Force plusBlockTimes(const Force& f, const Block& B, const Eigen::Matrix<double, NV, 1>& x) {
  return Force(Vector6(f.toVector() + B * x));
}

}  // namespace reference

/// Bᵀ a for a 6 x NV block B and a motion a, as two 3-row products.
template <int NV, class Block>
[[gnu::always_inline]] inline Eigen::Matrix<double, NV, 1> blockTransposeTimes(const Block& B, const Motion& a) {
  return B.template topRows<3>().transpose() * a.w + B.template bottomRows<3>().transpose() * a.v;
}

/// f + A m for a 6 x 6 matrix A (an inertia, or a transposed coupling) and a
/// motion m, by 3 x 3 quadrants.
template <class Matrix>
[[gnu::always_inline]] inline Force plusMatrixTimes(const Force& f, const Matrix& A, const Motion& m) {
  return {Vector3(f.n + A.template topLeftCorner<3, 3>() * m.w + A.template topRightCorner<3, 3>() * m.v),
          Vector3(f.f + A.template bottomLeftCorner<3, 3>() * m.w + A.template bottomRightCorner<3, 3>() * m.v)};
}

/// f + B x for a 6 x NV block B, by halves.
template <int NV, class Block>
[[gnu::always_inline]] inline Force plusBlockTimes(const Force& f, const Block& B,
                                                   const Eigen::Matrix<double, NV, 1>& x) {
  return {Vector3(f.n + B.template topRows<3>() * x), Vector3(f.f + B.template bottomRows<3>() * x)};
}

}  // namespace loopsim::kernels
