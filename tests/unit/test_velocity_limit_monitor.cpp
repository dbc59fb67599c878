// VelocityLimitMonitor: every joint whose speed exceeds its velocity limit is
// reported once, with the time it first did and the largest excess (the dof
// of a multi-dof joint named); joints without a limit (or with URDF's 0,
// "unspecified") never; a check never allocates.
#include <gtest/gtest.h>

#include <loopsim/model/model_builder.hpp>
#include <loopsim/sim/velocity_limit_monitor.hpp>

#include "allocation_counter.hpp"

using namespace loopsim;

namespace {

// a: revolute, 2 rad/s; b: revolute, no limit; c: prismatic, 0.5 m/s;
// d: revolute, limit 0 (unspecified); e: spherical, 1 rad/s on each dof.
Model fiveJoints() {
  ModelBuilder b("five");
  const Inertia rod(1.0, Vector3(0, 0, -0.5), Matrix3::Identity() * 0.1);
  JointSpec limited;
  limited.velocity_limit = 2.0;
  JointSpec slide;
  slide.type = JointType::Prismatic;
  slide.velocity_limit = 0.5;
  JointSpec unspecified;
  unspecified.velocity_limit = 0.0;
  JointSpec ball;
  ball.type = JointType::Spherical;
  ball.velocity_limit = 1.0;
  const JointSpec free;  // no limit
  const int a = b.addBody(0, "a", limited, SE3::Identity(), rod, "A");
  const int c = b.addBody(a, "b", free, SE3::Identity(), rod, "B");
  const int d = b.addBody(c, "c", slide, SE3::Identity(), rod, "C");
  const int e = b.addBody(d, "d", unspecified, SE3::Identity(), rod, "D");
  b.addBody(e, "e", ball, SE3::Identity(), rod, "E");
  return std::move(b).build();
}

}  // namespace

TEST(VelocityLimitMonitor, ReportsEveryJointOnceWithTheLargestExcess) {
  const Model m = fiveJoints();
  ASSERT_EQ(m.nv, 7);
  VelocityLimitMonitor monitor(m);
  EXPECT_EQ(monitor.watchedJoints(), 3u);  // a, c, e
  VectorX v(7);
  v << -2.0, 50.0, 0.5, 9.0, 1.0, -1.0, 0.0;  // at the limits (b and d unlimited): nothing
  EXPECT_TRUE(monitor.check(0.0, v).empty());
  v << -2.5, 50.0, -0.6, 9.0, 0.0, 0.0, 1.25;  // a, c and e (its third dof) exceed together
  const auto first = monitor.check(0.1, v);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(m.joint_names[first[0]], "a");
  EXPECT_EQ(m.joint_names[first[1]], "c");
  EXPECT_EQ(m.joint_names[first[2]], "e");
  v << 3.0, 50.0, 0.55, 9.0, -1.5, 0.0, 1.1;  // further on a and on e's first dof: no new report
  EXPECT_TRUE(monitor.check(0.2, v).empty());
  v << 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0;
  EXPECT_TRUE(monitor.check(0.3, v).empty());

  const auto excursions = monitor.excursions();
  ASSERT_EQ(excursions.size(), 3u);
  EXPECT_DOUBLE_EQ(excursions[0].first_time, 0.1);
  EXPECT_DOUBLE_EQ(excursions[0].max_excess, 1.0);
  EXPECT_DOUBLE_EQ(excursions[1].max_excess, 0.1);
  EXPECT_DOUBLE_EQ(excursions[2].max_excess, 0.5);
  EXPECT_EQ(describeExcursion(m, excursions[0]),
            "joint 'a' exceeded its velocity limit 2 rad/s at t = 0.1 s, by up to 1 rad/s");
  EXPECT_EQ(describeExcursion(m, excursions[1]),
            "joint 'c' exceeded its velocity limit 0.5 m/s at t = 0.1 s, by up to 0.1 m/s");
  // The dof named is the one of the largest excess (dof 0 at t = 0.2, not dof 2 at t = 0.1).
  EXPECT_EQ(describeExcursion(m, excursions[2]),
            "joint 'e' exceeded its velocity limit 1 rad/s (dof 0) at t = 0.1 s, by up to 0.5 rad/s");
}

TEST(VelocityLimitMonitor, ACheckNeverAllocates) {
  const Model m = fiveJoints();
  VelocityLimitMonitor monitor(m);
  VectorX v = VectorX::Constant(7, 10.0);  // every watched joint exceeds at once
  const long allocations = loopsim::test::countHeapAllocations([&] {
    for (int k = 0; k < 3; ++k) monitor.check(0.1 * k, v);
  });
  EXPECT_EQ(allocations, 0);
  EXPECT_EQ(monitor.excursions().size(), 3u);
}
