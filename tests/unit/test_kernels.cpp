// The joint transforms' vectorised sine and cosine (linalg/kernels/sincos_lanes.hpp)
// against libm, and the recursions that use it against the libm placement.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/model/joint_motion.hpp>

#include "test_models.hpp"

namespace loopsim {
namespace {

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
  for (int n = 0; n < samples; n += detail::kSinCosLanes) {
    double x[detail::kSinCosLanes], s[detail::kSinCosLanes], c[detail::kSinCosLanes];
    for (double& value : x) value = angle(rng);
    detail::sinCosLanes(x, s, c);
    for (int j = 0; j < detail::kSinCosLanes; ++j) {
      worst.sin = std::max(worst.sin, ulpDistance(s[j], std::sin(x[j])));
      worst.cos = std::max(worst.cos, ulpDistance(c[j], std::cos(x[j])));
    }
  }
  return worst;
}

TEST(SinCosLanes, WithinOneUlpOfLibmOnJointAnglesAndTwoUlpUpTo1e5) {
  const WorstUlp joint_range = worstOver(-4.0, 4.0, 400000, 1);
  EXPECT_LE(joint_range.sin, 1.0);
  EXPECT_LE(joint_range.cos, 1.0);
  const WorstUlp wide = worstOver(-detail::kSinCosLaneRange, detail::kSinCosLaneRange, 400000, 2);
  EXPECT_LE(wide.sin, 2.0);
  EXPECT_LE(wide.cos, 2.0);
  std::printf("[sincos lanes] worst ulp on [-4, 4]: sin %.0f cos %.0f; on [-1e5, 1e5]: sin %.0f cos %.0f\n",
              joint_range.sin, joint_range.cos, wide.sin, wide.cos);
}

TEST(SinCosLanes, QuadrantBoundariesAndOutOfRangeLanesMatchLibm) {
  const double pi = std::acos(-1.0);
  const double inf = std::numeric_limits<double>::infinity();
  // Every quadrant's sign and swap, the exact multiples of π/2 as doubles,
  // and lanes beyond the reduction's range (libm's, bit for bit).
  double x[detail::kSinCosLanes] = {0.0, pi / 2, pi, 3 * pi / 2, -pi / 2, 2e5, -1e300, 7.0 * pi / 4};
  double s[detail::kSinCosLanes], c[detail::kSinCosLanes];
  detail::sinCosLanes(x, s, c);
  for (int j = 0; j < detail::kSinCosLanes; ++j) {
    EXPECT_LE(ulpDistance(s[j], std::sin(x[j])), 1.0) << "sin at " << x[j];
    EXPECT_LE(ulpDistance(c[j], std::cos(x[j])), 1.0) << "cos at " << x[j];
  }
  EXPECT_EQ(s[5], std::sin(2e5));
  EXPECT_EQ(c[6], std::cos(-1e300));
  double special[detail::kSinCosLanes] = {inf, -inf, std::nan(""), 1.0, 2.0, 3.0, 4.0, 5.0};
  detail::sinCosLanes(special, s, c);
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
  EXPECT_GT(model.nbodies(), 2 * detail::kSinCosLanes);
}

}  // namespace
}  // namespace loopsim
