// `loopsim delassus SCENE [--algorithm NAME] [--damping MU] [--bench] [--samples N] [--iterations K]`:
// prints the Delassus matrix J M⁻¹ Jᵀ of the scene's constraints at its
// consistent start (with --damping: the damped inverse (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹),
// or times the algorithms (engine/delassus; with --damping, the damped
// inverse by each and by pv-osim-fast).
#include <cstdio>
#include <memory>

#include <loopsim/bench/delassus_benchmark.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/delassus/damped_delassus.hpp>
#include <loopsim/delassus/delassus.hpp>
#include <loopsim/model/errors.hpp>
#include "delassus_command.hpp"
#include "list_values.hpp"
#include "number_checks.hpp"
#include <loopsim/scene/scene_loader.hpp>

namespace loopsim::app {

Command registerDelassusCommand(CLI::App& parent) {
  struct Options {
    std::string scene;
    std::vector<std::string> algorithms;
    bool bench = false;
    int samples = 50;
    int rounds = 20;
    double damping = 0.0;  // 0: not given
  };
  auto options = std::make_shared<Options>();
  std::string names;
  for (const auto& info : delassusAlgorithms()) names += (names.empty() ? "" : ", ") + info.name;
  CLI::App* sub = parent.add_subcommand(
      "delassus", "Print the Delassus matrix J M⁻¹ Jᵀ of a scene's constraints at its start, or time the algorithms");
  sub->add_option("scene", options->scene, "Scene YAML file")->required()->check(CLI::ExistingFile);
  sub->add_option("--algorithm", options->algorithms,
                  "Algorithm (" + names + "), with --bench several separated by commas or spaces; default: dense, or all with --bench");
  sub->add_option("--damping", options->damping,
                  "Print the damped inverse (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹ for this mu (paper 001 eq. 13's Λ_μ, inverted); "
                  "--algorithm may then also be pv-osim-fast (paper 000 eq. 55 on L_b^A + μ⁻¹I)");
  sub->add_flag("--bench", options->bench,
                "Time the algorithms instead of printing the matrix (ABA as the floor); with --damping, the damped "
                "inverse by each algorithm and by pv-osim-fast");
  sub->add_option("--samples", options->samples, "Configurations timed (--bench)")->capture_default_str();
  sub->add_option("--iterations", options->rounds, "Timed passes over the configurations (--bench)")
      ->capture_default_str();
  return {sub, [options, sub] {
            options->algorithms = splitListValues(options->algorithms);
            const bool damped = sub->count("--damping") > 0;
            // What printing would silently ignore is refused, naming the option.
            for (const char* timing : {"--samples", "--iterations"}) {
              if (sub->count(timing) > 0 && !options->bench) throw ModelError("", timing, "applies to --bench");
            }
            if (options->bench) {
              requireAtLeastOne(options->samples, "--samples");
              requireAtLeastOne(options->rounds, "--iterations");
            }
            if (!options->bench && options->algorithms.size() > 1) {
              std::string given;
              for (const auto& name : options->algorithms) given += (given.empty() ? "" : ", ") + name;
              throw ModelError("", "--algorithm", "prints one matrix: give one algorithm (got " + given +
                                                      "), or time several with --bench");
            }
            const Scene scene = loadScene(options->scene);
            if (options->bench) {
              BenchOptions bench;
              bench.samples = options->samples;
              bench.rounds = options->rounds;
              const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
              for (const auto& name : options->algorithms) {  // errors before timing
                if (damped) DampedDelassusInverse(set, name, options->damping);
                else makeDelassusAlgorithm(name, set, scene.solver_settings.independent_dofs_internal_loops);
              }
              const auto results = damped ? benchmarkDampedDelassus(scene, bench, options->damping, options->algorithms)
                                          : benchmarkDelassus(scene, bench, options->algorithms);
              std::fputs(formatDelassusTable(results).c_str(), stdout);
              return 0;
            }
            const std::string algorithm = options->algorithms.empty() ? "dense" : options->algorithms.front();
            const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
            VectorX q = scene.q0, v = scene.v0;
            if (set.dimension() > 0) makeConsistent(set, q, v, scene.held_joints);
            if (algorithm == "pv-osim-fast" && !damped) {
              throw ModelError("", "--algorithm", "pv-osim-fast solves with the Delassus matrix without forming it: "
                               "give --damping MU to print (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹");
            }
            bool loops_closed = false;
            for (const auto& info : delassusAlgorithms()) loops_closed |= info.name == algorithm && info.loops_closed;
            const MatrixX delassus =
                damped ? computeDampedDelassusInverse(set, q, algorithm, options->damping)
                       : computeDelassus(set, q, algorithm, scene.solver_settings.independent_dofs_internal_loops);
            if (damped) {
              std::printf("# Damped Delassus inverse (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹, mu %.6g (%d x %d) of '%s' at its consistent "
                          "start, by %s\n",
                          options->damping, set.dimension(), set.dimension(), scene.name.c_str(), algorithm.c_str());
            } else {
              std::printf("# Delassus matrix J M⁻¹ Jᵀ (%d x %d) of '%s' at its consistent start, by %s%s\n",
                          set.dimension(), set.dimension(), scene.name.c_str(), algorithm.c_str(),
                          loops_closed ? " (internal loops closed: their rows are 0)" : "");
            }
            for (int r = 0; r < set.dimension(); ++r) {
              std::printf("%-28s", set.rowDescription(r).c_str());
              for (int c = 0; c < set.dimension(); ++c) std::printf(" % .6e", delassus(r, c));
              std::printf("\n");
            }
            return 0;
          }};
}

}  // namespace loopsim::app
