// PositionRangeMonitor: every joint leaving its range is reported once, with
// the time it first left and how far it went; joints without limits never.
#include <gtest/gtest.h>

#include <string>

#include <loopsim/model/model_builder.hpp>
#include <loopsim/sim/position_range_monitor.hpp>

#include "allocation_counter.hpp"

using namespace loopsim;

namespace {

Model threeJoints() {
  ModelBuilder b("three");
  const Inertia rod(1.0, Vector3(0, 0, -0.5), Matrix3::Identity() * 0.1);
  JointSpec limited;
  limited.lower = -1.0;
  limited.upper = 1.0;
  JointSpec slide = limited;
  slide.type = JointType::Prismatic;
  slide.lower = 0.0;
  slide.upper = 0.5;
  const JointSpec free;  // continuous: no limits
  const int a = b.addBody(0, "a", limited, SE3::Identity(), rod, "A");
  const int c = b.addBody(a, "b", free, SE3::Identity(), rod, "B");
  b.addBody(c, "c", slide, SE3::Identity(), rod, "C");
  return std::move(b).build();
}

}  // namespace

TEST(PositionRangeMonitor, ReportsEveryJointOnceWithTheFurthestExcursion) {
  const Model m = threeJoints();
  PositionRangeMonitor monitor(m);
  VectorX q(3);
  q << 0.5, 10.0, 0.2;  // b has no limits
  EXPECT_TRUE(monitor.check(0.0, q).empty());
  q << 1.25, 10.0, -0.1;  // a and c leave together
  const auto first = monitor.check(0.1, q);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(m.joint_names[first[0]], "a");
  EXPECT_EQ(m.joint_names[first[1]], "c");
  q << 1.5, 10.0, -0.05;  // a goes further: no new report
  EXPECT_TRUE(monitor.check(0.2, q).empty());
  q << 0.0, 10.0, 0.1;
  EXPECT_TRUE(monitor.check(0.3, q).empty());
  const auto excursions = monitor.excursions();
  ASSERT_EQ(excursions.size(), 2u);
  EXPECT_DOUBLE_EQ(excursions[0].first_time, 0.1);
  EXPECT_DOUBLE_EQ(excursions[0].max_excess, 0.5);
  EXPECT_DOUBLE_EQ(excursions[1].max_excess, 0.1);
  EXPECT_EQ(describeExcursion(m, excursions[0]), "joint 'a' left its range [-1, 1] rad at t = 0.1 s, by up to 0.5 rad");
  EXPECT_EQ(describeExcursion(m, excursions[1]), "joint 'c' left its range [0, 0.5] m at t = 0.1 s, by up to 0.1 m");
}

TEST(PositionRangeMonitor, ACheckNeverAllocatesEvenWhenEveryJointLeavesAtOnce) {
  // Enough joints that the watch lists grew several times while being built.
  ModelBuilder b("chain");
  const Inertia rod(1.0, Vector3(0, 0, -0.5), Matrix3::Identity() * 0.1);
  JointSpec limited;
  limited.lower = -1.0;
  limited.upper = 1.0;
  int parent = 0;
  for (int i = 0; i < 37; ++i) {
    // Appended, not "j" + to_string(i): GCC 12 warns falsely (-Wrestrict) on the latter here.
    std::string joint(1, 'j'), body(1, 'b');
    joint += std::to_string(i);
    body += std::to_string(i);
    parent = b.addBody(parent, joint, limited, SE3::Identity(), rod, body);
  }
  const Model m = std::move(b).build();
  PositionRangeMonitor monitor(m);
  const VectorX q = VectorX::Constant(m.nq, 2.0);
  std::size_t reported = 0;
  const long allocations = loopsim::test::countHeapAllocations([&] {
    for (int k = 0; k < 3; ++k) reported += monitor.check(0.1 * k, q).size();
  });
  EXPECT_EQ(allocations, 0);
  EXPECT_EQ(reported, 37u);
}

TEST(PositionRangeMonitor, AJointRestingOnItsLimitIsNotReportedForRoundOff) {
  const Model m = threeJoints();
  PositionRangeMonitor monitor(m);
  VectorX q(3);
  q << -1.0 - 5e-18, 0.0, 0.5 + 1e-12;  // on the limits, crossed by round-off
  EXPECT_TRUE(monitor.check(0.0, q).empty());
  q << -1.0 - 1e-6, 0.0, 0.5;  // a real (small) excursion
  ASSERT_EQ(monitor.check(0.1, q).size(), 1u);
  EXPECT_TRUE(monitor.excursions().size() == 1u);
}
