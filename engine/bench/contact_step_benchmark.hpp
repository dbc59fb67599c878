#pragma once
// `loopsim bench --contact`: a full simulation step of scenes on contacts,
// loopsim against MuJoCo's mj_step on the same model, contact geometry, PD and
// feed-forward (mujoco_scene.hpp), in one process. Both run the scene from its
// start for `settle` seconds (landing), then rounds of `steps` steps each are
// timed interleaved: loopsim with the scene's contact solver (admm unless the
// scene says), MuJoCo, loopsim with the other contact solver, and admm with the
// dense factor of M̃ forced (the factor the step chose, against it). The
// order rotates per round; ratios are taken within a round and reported as the
// median with the quartiles over the rounds, which a noisy shared machine
// cannot skew. Both keep stepping their own trajectory: the report gives the
// contact counts and the base heights, so that unlike states show.
#include <functional>
#include <string>
#include <vector>

#include <loopsim/scene/scene.hpp>

namespace loopsim {

struct ContactBenchOptions {
  int rounds = 31;       // timed rounds (after the settle)
  int steps = 20;        // steps per round and column
  double settle = 1.0;   // seconds stepped before timing (lands and settles)
};

struct RatioSpread {
  double median = 0.0, lower_quartile = 0.0, upper_quartile = 0.0;
};

struct ContactBenchRow {
  std::string scene;             // the scene's name
  int nv = 0;
  std::string factorization;     // of M̃, as the step chose it ("dense" or "ltl")
  double loopsim_contacts = 0.0, mujoco_contacts = 0.0;  // mean per timed step
  double loopsim_height = 0.0, mujoco_height = 0.0;      // first free joint's z at the end
  double admm_us = 0.0, pgs_us = 0.0, mujoco_us = 0.0;   // medians over the rounds
  int admm_iterations = 0, pgs_iterations = 0;           // the most in a timed step
  RatioSpread admm_to_mujoco, pgs_to_mujoco, chosen_to_dense;
  double real_time_factor = 0.0;  // dt / the admm step's median
  std::string mujoco_warning;     // MuJoCo's first warning in the run ("" when none)
};

/// Throws ModelError when a scene cannot be given to MuJoCo (mujoco_scene.hpp).
/// `progress` (may be empty) is told the scene before it runs.
std::vector<ContactBenchRow> runContactStepBenchmark(const std::vector<Scene>& scenes,
                                                     const ContactBenchOptions& options,
                                                     const std::function<void(const Scene&)>& progress = {});

/// One row per scene: step medians, the ratios' median [quartiles], contacts
/// and heights of both, iterations; the options and the reading under it.
std::string formatContactBenchTable(const std::vector<ContactBenchRow>& rows, const ContactBenchOptions& options);
std::string formatContactBenchCsv(const std::vector<ContactBenchRow>& rows);

}  // namespace loopsim
