// The kernels of engine/linalg/kernels/ against their reference
// implementations (namespace kernels::reference) on random inputs: equal
// bit for bit where the kernel performs the reference's operations in its
// order, else within a stated bound of a few units of round-off of the
// terms' magnitudes. Built in both flavours (AVX-512 and portable), so each
// pins the paths its flavour takes. Last, the revolute joints' placements
// through the sine-cosine lanes against libm's.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/linalg/kernels/block_products.hpp>
#include <loopsim/linalg/kernels/column_fills.hpp>
#include <loopsim/linalg/kernels/frame_products.hpp>
#include <loopsim/linalg/kernels/mirror_triangle.hpp>
#include <loopsim/linalg/kernels/row_segments.hpp>
#include <loopsim/linalg/kernels/sincos_lanes.hpp>
#include <loopsim/model/joint_motion.hpp>

#include "test_models.hpp"

namespace loopsim {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

#if defined(__AVX512F__)
constexpr bool kLanes = true;
#else
constexpr bool kLanes = false;
#endif
// Where the target has FMA (the native flavour), GCC fuses a product into the
// sum it feeds wherever it chooses, so two spellings of one sum (a loop and
// the same sum written out) may fuse different products: equal to round-off,
// not bit for bit.
#if defined(__FMA__)
constexpr bool kFused = true;
#else
constexpr bool kFused = false;
#endif

std::vector<double> randomVector(std::mt19937_64& rng, int n) {
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (double& v : x) v = value(rng);
  return x;
}

// Bitwise equality (+0 and −0 apart).
bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// ---------------------------------------------------------------------------
// row_segments.hpp: the LTDL factorisation's sums and axpys.

// Segment lengths 0-40 (a limb's 0-3, a floating base's 20-35, both sides of
// the lanes' threshold) at a few offsets.
constexpr int kMaxLength = 40;

TEST(Kernels, MinusWeightedSquaresEqualsTheOrderedSum) {
  // Portable, and with AVX-512 below 16 entries: the reference's operations
  // in its order, bit for bit. With AVX-512 from 16 entries: eight lane sums
  // and a horizontal sum, so the two differ by at most the two orders'
  // summation errors, 2 (L + 1) ε (|m| + Σ |u_k d_k u_k|).
  std::mt19937_64 rng(11);
  for (int length = 0; length <= kMaxLength; ++length) {
    for (int begin : {0, 1, 5}) {
      const int end = begin + length, room = end + kernels::kRowSegmentPadding;
      const std::vector<double> u = randomVector(rng, room), d = randomVector(rng, room);
      const double m = 3.0 + randomVector(rng, 1)[0];
      std::vector<double> scaled(static_cast<std::size_t>(room), 7.0), expected_scaled(scaled);
      const double got = kernels::minusWeightedSquares(m, u.data(), d.data(), begin, end, scaled.data());
      const double expected =
          kernels::reference::minusWeightedSquares(m, u.data(), d.data(), begin, end, expected_scaled.data());
      for (int k = begin; k < end; ++k) EXPECT_TRUE(sameBits(scaled[k], expected_scaled[k])) << length << " " << k;
      double magnitude = std::abs(m);
      for (int k = begin; k < end; ++k) magnitude += std::abs(u[k] * expected_scaled[k]);
      if (!kLanes || length < 16) {
        EXPECT_TRUE(sameBits(got, expected)) << "length " << length << ": " << got << " vs " << expected;
      } else {
        EXPECT_LE(std::abs(got - expected), 2.0 * (length + 1) * kEps * magnitude) << "length " << length;
        // Zeros from end to the last eight-wide vector's end.
        for (int k = end; k < begin + (length + 7) / 8 * 8; ++k) EXPECT_EQ(scaled[k], 0.0) << "past end";
      }
    }
  }
}

TEST(Kernels, ForEachRowDotGivesEachRowsOrderedDot) {
  // Rows of a row-major matrix picked by an index list of 0-9 rows (the
  // blocks of four and the remainder), in the list's order. Portable:
  // reference::rowDot bit for bit. With AVX-512 from 16 entries (lane sums),
  // or FMA (kFused), within the two orders' summation errors,
  // 2 max(L, 2) ε Σ |a_ik x_k|.
  std::mt19937_64 rng(12);
  const int rows_total = 12;
  for (int length = 0; length <= kMaxLength; ++length) {
    for (int begin : {0, 3}) {
      const int end = begin + length, ld = end + kernels::kRowSegmentPadding + 2;
      const std::vector<double> a = randomVector(rng, rows_total * ld);
      std::vector<double> x = randomVector(rng, end + kernels::kRowSegmentPadding);
      for (int count = 0; count <= 9; ++count) {
        std::vector<int> rows;
        for (int r = 0; r < count; ++r) rows.push_back(static_cast<int>((7 * r + length) % rows_total));
        std::vector<int> visited;
        kernels::forEachRowDot(a.data(), ld, rows.data(), count, x.data(), begin, end, [&](int i, double sum) {
          visited.push_back(i);
          const double* row = a.data() + i * ld;
          const double expected = kernels::reference::rowDot(row, x.data(), begin, end);
          if (!kFused && (!kLanes || length < 16)) {
            EXPECT_TRUE(sameBits(sum, expected)) << "length " << length << " row " << i;
          } else {
            double magnitude = 0.0;
            for (int k = begin; k < end; ++k) magnitude += std::abs(row[k] * x[k]);
            EXPECT_LE(std::abs(sum - expected), 2.0 * std::max(length, 2) * kEps * magnitude) << "length " << length;
          }
        });
        EXPECT_EQ(visited, rows);
      }
    }
  }
}

TEST(Kernels, SubtractMultipleEqualsTheElementwiseAxpy) {
  // Each entry is one x_k − a r_k in both paths (written out, and Eigen's
  // vector loop from three entries): bit for bit.
  std::mt19937_64 rng(13);
  for (int length = 0; length <= kMaxLength; ++length) {
    for (int begin : {0, 1, 6}) {
      const int end = begin + length;
      const std::vector<double> r = randomVector(rng, end + 3);
      std::vector<double> x = randomVector(rng, end + 3), expected = x;
      const double a = randomVector(rng, 1)[0];
      kernels::subtractMultiple(x.data(), a, r.data(), begin, end);
      kernels::reference::subtractMultiple(expected.data(), a, r.data(), begin, end);
      for (std::size_t k = 0; k < x.size(); ++k) EXPECT_TRUE(sameBits(x[k], expected[k])) << length << " " << k;
    }
  }
}

// ---------------------------------------------------------------------------
// column_fills.hpp and mirror_triangle.hpp: CRBA's column sweep and upper fill.

TEST(Kernels, CombineSixRowsEqualsTheSumOverRows) {
  // Portable: the reference itself. With AVX-512: s_0 f_0 and five FMAs in
  // the order of r, where the reference's contraction may fuse other pairs:
  // within 2 · 6 ε Σ_r |s_r f_r[k]|.
  std::mt19937_64 rng(14);
  const std::vector<double> s = randomVector(rng, 6);
  for (int length = 0; length <= kMaxLength; ++length) {
    for (int begin : {0, 2, 9}) {
      const int end = begin + length, stride = end + 5;
      const std::vector<double> f = randomVector(rng, 6 * stride);
      std::vector<double> out(static_cast<std::size_t>(end + 8), 5.0), expected(out);
      kernels::combineSixRows(s.data(), f.data(), stride, begin, end, out.data());
      kernels::reference::combineSixRows(s.data(), f.data(), stride, begin, end, expected.data());
      for (std::size_t k = 0; k < out.size(); ++k) {
        const int kk = static_cast<int>(k);
        if (kk < begin || kk >= end) {
          EXPECT_EQ(out[k], 5.0) << "outside the segment";
          continue;
        }
        double magnitude = 0.0;
        for (int row = 0; row < 6; ++row) magnitude += std::abs(s[row] * f[row * stride + kk]);
        if (kLanes) {
          EXPECT_LE(std::abs(out[k] - expected[k]), 12.0 * kEps * magnitude) << length << " " << k;
        } else {
          EXPECT_TRUE(sameBits(out[k], expected[k])) << length << " " << k;
        }
      }
    }
  }
}

TEST(Kernels, SetZeroClearsTheSegmentOnly) {
  for (int length = 0; length <= kMaxLength; ++length) {
    std::vector<double> x(static_cast<std::size_t>(length + 20), 2.5), expected(x);
    kernels::setZero(x.data(), 3, 3 + length);
    kernels::reference::setZero(expected.data(), 3, 3 + length);
    EXPECT_EQ(x, expected) << length;
  }
}

TEST(Kernels, MirrorLowerTriangleCopiesExactly) {
  // Copies only: bit for bit, tiles and partial tiles (n up to 40, ld > n).
  std::mt19937_64 rng(15);
  for (int n = 0; n <= kMaxLength; ++n) {
    for (int extra : {0, 3}) {
      const int ld = n + extra;
      std::vector<double> a = randomVector(rng, std::max(ld * n, 1)), expected = a;
      kernels::mirrorLowerTriangle(a.data(), n, ld);
      kernels::reference::mirrorLowerTriangle(expected.data(), n, ld);
      for (std::size_t k = 0; k < a.size(); ++k) EXPECT_TRUE(sameBits(a[k], expected[k])) << n << " " << k;
      for (int j = 0; j < n; ++j)
        for (int i = j + 1; i < n; ++i) EXPECT_EQ(a[i * ld + j], a[j * ld + i]);
    }
  }
}

// ---------------------------------------------------------------------------
// frame_products.hpp and block_products.hpp: the recursions' written-out
// rotations, frame changes and block products. Not bit for bit (the same
// products summed, or fused into FMAs, in another order): within
// 8 ε times the terms' magnitudes, the reference evaluated on |·|.

Matrix3 randomRotation(std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  return Quaternion(g(rng), g(rng), g(rng), g(rng)).normalized().toRotationMatrix();
}

Vector3 random3(std::mt19937_64& rng) { return Eigen::Map<const Vector3>(randomVector(rng, 3).data()); }

template <class A, class B, class Scale>
void expectClose(const A& got, const B& expected, const Scale& magnitude, const char* what) {
  const auto error = (got - expected).array().abs();
  EXPECT_TRUE((error <= 8.0 * kEps * magnitude.array()).all())
      << what << ": error " << error.transpose() << " vs magnitude " << magnitude.transpose();
}

Vector3 absCross(const Vector3& a, const Vector3& b) {
  const Vector3 x = a.cwiseAbs(), y = b.cwiseAbs();
  return {x[1] * y[2] + x[2] * y[1], x[2] * y[0] + x[0] * y[2], x[0] * y[1] + x[1] * y[0]};
}

TEST(Kernels, UnitAxisRotationsEqualRodrigues) {
  std::mt19937_64 rng(16);
  for (int sample = 0; sample < 200; ++sample) {
    const double angle = 8.0 * randomVector(rng, 1)[0];
    const double c = std::cos(angle), s = std::sin(angle);
    const Matrix3 pR = randomRotation(rng);
    for (int k = 0; k < 3; ++k) {
      Matrix3 R, oR;
      kernels::setUnitAxisRotation(k, c, s, R);
      const Matrix3 expected = kernels::reference::unitAxisRotation(k, c, s);
      EXPECT_TRUE((R.array() == expected.array()).all()) << "axis " << k;  // 0s, 1s, ±c and ±s
      switch (k) {
        case 0: kernels::setTimesUnitAxisRotation<0>(pR, c, s, oR); break;
        case 1: kernels::setTimesUnitAxisRotation<1>(pR, c, s, oR); break;
        default: kernels::setTimesUnitAxisRotation<2>(pR, c, s, oR); break;
      }
      expectClose(oR, Matrix3(pR * expected), Matrix3(pR.cwiseAbs() * expected.cwiseAbs()), "pR · rotation");
    }
  }
}

TEST(Kernels, FrameChangesEqualSe3) {
  std::mt19937_64 rng(17);
  for (int sample = 0; sample < 500; ++sample) {
    const SE3 X(randomRotation(rng), 2.0 * random3(rng));
    const Motion m(random3(rng), random3(rng));
    const Vector3 n = random3(rng), f = random3(rng);
    const Matrix3 absRt = X.R.transpose().cwiseAbs();
    expectClose(kernels::rotationTransposeTimes(X.R, m.w), kernels::reference::rotationTransposeTimes(X.R, m.w),
                Vector3(absRt * m.w.cwiseAbs()), "Rᵀ x");
    Vector3 cross, cross_ref;
    kernels::setCross(X.t, m.w, cross);
    kernels::reference::setCross(X.t, m.w, cross_ref);
    expectClose(cross, cross_ref, absCross(X.t, m.w), "a × b");
    const Motion child = kernels::toChildFrame(X, m), child_ref = kernels::reference::toChildFrame(X, m);
    expectClose(child.w, child_ref.w, Vector3(absRt * m.w.cwiseAbs()), "child ω");
    expectClose(child.v, child_ref.v, Vector3(absRt * (m.v.cwiseAbs() + absCross(X.t, m.w))), "child v");
    const Force parent = kernels::toParentFrame(X, n, f), parent_ref = kernels::reference::toParentFrame(X, n, f);
    const Vector3 abs_f = X.R.cwiseAbs() * f.cwiseAbs();
    expectClose(parent.f, parent_ref.f, abs_f, "parent f");
    expectClose(parent.n, parent_ref.n, Vector3(X.R.cwiseAbs() * n.cwiseAbs() + absCross(X.t, abs_f)), "parent n");
    Vector6 nf;
    nf << n, f;
    const Force parent6 = kernels::toParentFrame(X, nf);
    expectClose(parent6.f, parent_ref.f, abs_f, "parent f from a 6-vector");
    expectClose(parent6.n, parent_ref.n, Vector3(X.R.cwiseAbs() * n.cwiseAbs() + absCross(X.t, abs_f)),
                "parent n from a 6-vector");
  }
}

template <int NV>
void checkBlockProducts(std::mt19937_64& rng) {
  using Block = Eigen::Matrix<double, 6, NV>;
  using VectorNV = Eigen::Matrix<double, NV, 1>;
  for (int sample = 0; sample < 200; ++sample) {
    const Block B = Eigen::Map<const Block>(randomVector(rng, 6 * NV).data());
    const Matrix6 A = Eigen::Map<const Matrix6>(randomVector(rng, 36).data());
    const VectorNV x = Eigen::Map<const VectorNV>(randomVector(rng, NV).data());
    const Motion m(random3(rng), random3(rng));
    const Force f(random3(rng), random3(rng));
    const Vector6 abs_m = m.toVector().cwiseAbs(), abs_f = f.toVector().cwiseAbs();
    expectClose(kernels::blockTransposeTimes<NV>(B, m), kernels::reference::blockTransposeTimes<NV>(B, m),
                VectorNV(B.cwiseAbs().transpose() * abs_m), "Bᵀ a");
    expectClose(kernels::plusMatrixTimes(f, A, m).toVector(), kernels::reference::plusMatrixTimes(f, A, m).toVector(),
                Vector6(abs_f + A.cwiseAbs() * abs_m), "f + A m");
    expectClose(kernels::plusBlockTimes<NV>(f, B, x).toVector(),
                kernels::reference::plusBlockTimes<NV>(f, B, x).toVector(),
                Vector6(abs_f + B.cwiseAbs() * x.cwiseAbs()), "f + B x");
  }
}

TEST(Kernels, BlockProductsEqualTheSixVectorProducts) {
  std::mt19937_64 rng(18);
  checkBlockProducts<1>(rng);
  checkBlockProducts<3>(rng);
  checkBlockProducts<6>(rng);
}

// ---------------------------------------------------------------------------
// sincos_lanes.hpp: a polynomial against libm (the reference), so within
// stated ulp rather than bit for bit.

// |a − b| in units of the spacing of doubles at |b| (1 ulp).
double ulpDistance(double a, double b) {
  const double spacing = std::nextafter(std::abs(b), std::numeric_limits<double>::infinity()) - std::abs(b);
  return std::abs(a - b) / std::max(spacing, DBL_TRUE_MIN);
}

struct WorstUlp {
  double sin = 0.0, cos = 0.0;
};

WorstUlp worstOver(double lo, double hi, int samples, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> angle(lo, hi);
  WorstUlp worst;
  constexpr int lanes = kernels::kSinCosLanes;
  for (int n = 0; n < samples; n += lanes) {
    double x[lanes], s[lanes], c[lanes], s_ref[lanes], c_ref[lanes];
    for (double& value : x) value = angle(rng);
    kernels::sinCosLanes(x, s, c);
    kernels::reference::sinCosLanes(x, s_ref, c_ref);
    for (int j = 0; j < lanes; ++j) {
      worst.sin = std::max(worst.sin, ulpDistance(s[j], s_ref[j]));
      worst.cos = std::max(worst.cos, ulpDistance(c[j], c_ref[j]));
    }
  }
  return worst;
}

TEST(Kernels, SinCosLanesWithinOneUlpOfLibmOnJointAnglesAndTwoUlpUpTo1e5) {
  // A minimax polynomial after a three-part reduction: < 1 ulp on the
  // reduced range, 2 ulp once the reduction loses bits at large |x|.
  const WorstUlp joint_range = worstOver(-4.0, 4.0, 400000, 1);
  EXPECT_LE(joint_range.sin, 1.0);
  EXPECT_LE(joint_range.cos, 1.0);
  const WorstUlp wide = worstOver(-kernels::kSinCosLaneRange, kernels::kSinCosLaneRange, 400000, 2);
  EXPECT_LE(wide.sin, 2.0);
  EXPECT_LE(wide.cos, 2.0);
  std::printf("[sincos lanes] worst ulp on [-4, 4]: sin %.0f cos %.0f; on [-1e5, 1e5]: sin %.0f cos %.0f\n",
              joint_range.sin, joint_range.cos, wide.sin, wide.cos);
}

TEST(Kernels, SinCosLanesQuadrantBoundariesAndOutOfRangeLanesMatchLibm) {
  const double pi = std::acos(-1.0);
  const double inf = std::numeric_limits<double>::infinity();
  // Every quadrant's sign and swap, the exact multiples of π/2 as doubles,
  // and lanes beyond the reduction's range (libm's, bit for bit).
  constexpr int lanes = kernels::kSinCosLanes;
  double x[lanes] = {0.0, pi / 2, pi, 3 * pi / 2, -pi / 2, 2e5, -1e300, 7.0 * pi / 4};
  double s[lanes], c[lanes], s_ref[lanes], c_ref[lanes];
  kernels::sinCosLanes(x, s, c);
  kernels::reference::sinCosLanes(x, s_ref, c_ref);
  for (int j = 0; j < lanes; ++j) {
    EXPECT_LE(ulpDistance(s[j], s_ref[j]), 1.0) << "sin at " << x[j];
    EXPECT_LE(ulpDistance(c[j], c_ref[j]), 1.0) << "cos at " << x[j];
  }
  EXPECT_TRUE(sameBits(s[5], s_ref[5]) && sameBits(c[5], c_ref[5]));
  EXPECT_TRUE(sameBits(s[6], s_ref[6]) && sameBits(c[6], c_ref[6]));
  double special[lanes] = {inf, -inf, std::nan(""), 1.0, 2.0, 3.0, 4.0, 5.0};
  kernels::sinCosLanes(special, s, c);
  for (int j = 0; j < 3; ++j) EXPECT_TRUE(std::isnan(s[j]) && std::isnan(c[j])) << j;
}

TEST(SinCosLanes, JointPlacementsWithLanesEqualTheLibmPlacementsToRoundOff) {
  // Every joint of a humanoid-sized tree (a free flyer and 31 revolute
  // joints: four lane batches, the free flyer's lane unused) through the trig
  // batches, against the placements from libm's sin and cos.
  const Model model = test::floatingHumanoid();
  std::mt19937 rng(3);
  double worst = 0.0;
  for (int sample = 0; sample < 20; ++sample) {
    const VectorX q = randomConfiguration(model, rng);
    detail::RevoluteTrig trig;
    for (int i = 1; i < model.nbodies(); ++i) {
      SE3 lanes, libm;
      detail::setJointPlacement(model, i, q, lanes, &trig);
      detail::setJointPlacement(model, i, q, libm);
      worst = std::max({worst, (lanes.R - libm.R).cwiseAbs().maxCoeff(), (lanes.t - libm.t).cwiseAbs().maxCoeff()});
    }
  }
  EXPECT_LE(worst, 4.5e-16);
  EXPECT_GT(model.nbodies(), 2 * kernels::kSinCosLanes);
}

}  // namespace
}  // namespace loopsim
