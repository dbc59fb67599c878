// Paper 004 Fig. 14's experiment (engine/bench/paper_004_accuracy.cpp): the
// exact inverse dynamics of the MIT Humanoid's leg against the ones that
// neglect or approximate its transmissions.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include <loopsim/bench/paper_004_accuracy.hpp>

#include "quiet_log.hpp"

using namespace loopsim;

TEST(Paper004Accuracy, ReflectedInertiaBringsEveryLegJointCloserToTheExactTorque) {
  const test::QuietLog quiet;
  PaperBenchOptions options;
  options.quick = true;
  const PaperExperiment e =
      paper004Fig14(std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes", options);
  std::map<std::string, std::map<std::string, double>> value;
  for (const PaperCell& c : e.cells) {
    value[c.case_name][c.column] = c.ratio;
    if (c.exact) {
      EXPECT_LT(c.error, 1e-12) << c.case_name << ": cluster-rnea against projected RNEA";
    }
  }
  ASSERT_EQ(value.size(), 5u) << "the five joints of the right leg";
  for (const auto& [joint, columns] : value) {
    const double unconstrained = columns.at("unconstrained"), approximate = columns.at("approximate");
    const double peak = columns.at("cluster-rnea peak torque");
    EXPECT_GT(peak, 1.0) << joint << ": the sinusoid needs torque";
    EXPECT_GT(unconstrained, 0.0) << joint << ": the rotors' spin matters";
    EXPECT_LT(approximate, unconstrained) << joint << ": the reflected inertia brings it closer";
  }
  // The knee carries both belts' rotors (its own and the ankle's, over it):
  // neglecting them costs a third of its torque, the diagonal approximation a tenth.
  EXPECT_GT(value["knee"]["unconstrained"], 0.3 * value["knee"]["cluster-rnea peak torque"]);
  EXPECT_GT(value["knee"]["approximate"], 0.05 * value["knee"]["cluster-rnea peak torque"]);
}
