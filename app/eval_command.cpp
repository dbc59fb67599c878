// `loopsim eval SCENE --states IN.csv [--solver NAME] [--no-stabilization] [--threads N] [--mpi] --out OUT.csv`
// `loopsim eval --inverse SCENE --states IN.csv --out OUT.csv`: C-RNEA torques (record/inverse_evaluation.hpp)
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <loopsim/model/errors.hpp>
#include "interrupt_guard.hpp"
#include "mpi_eval.hpp"
#include <loopsim/record/inverse_evaluation.hpp>
#include <loopsim/record/state_evaluation.hpp>
#include "record_commands.hpp"
#include <loopsim/scene/scene_loader.hpp>
#include "thread_option.hpp"

namespace loopsim::app {

Command registerEvalCommand(CLI::App& parent) {
  struct Options {
    std::string scene, states, out, solver;
    bool no_stabilization = false;
    bool overwrite = false;
    bool mpi = false;
    bool inverse = false;
    int threads = 1;
    std::string tau_default;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = parent.add_subcommand(
      "eval", "Evaluate the constrained dynamics (v̇, λ) at given states without stepping");
  sub->add_option("SCENE", options->scene, "Scene YAML file")->required();
  sub->add_option("--states", options->states, "CSV with q:…, v:… (and optional tau:…, t) columns")->required();
  sub->add_option("--out", options->out, "Output CSV: t, vdot:…, lambda:…")->required();
  CLI::Option* solver = sub->add_option("--solver", options->solver, "Solver (default: the scene's)");
  sub->add_flag("--no-stabilization", options->no_stabilization, "Baumgarte gains 0: J v̇ = -J̇ v");
  CLI::Option* tau_default =
      sub->add_option("--tau-default", options->tau_default,
                      "'zero': actuated joints without a tau: column get tau = 0 (else that is an error)")
          ->check(CLI::IsMember({"zero"}));
  CLI::Option* inverse = sub->add_flag(
      "--inverse", options->inverse,
      "Inverse dynamics with loops (cluster-rnea, paper 004 §VI): reads t, q:…, v:… and vdot:… of the independent "
      "coordinates (the scene's `independent` joints or dofs and every joint outside the loops), writes t and tau:… of the "
      "independent coordinates: the torques there that produce those accelerations (passive forces deducted)");
  sub->add_flag("--overwrite", options->overwrite, "Allow OUT to replace an existing regular file");
  CLI::Option* threads = addThreadsOption(
      sub, options->threads,
      "Worker threads, each with its own solver and workspace, taking blocks of consecutive states in turn; the "
      "output is the one-thread output byte for byte");
  CLI::Option* mpi = sub->add_flag("--mpi", options->mpi,
                "Run as one rank of `mpirun -n K loopsim eval ... --mpi`: each rank evaluates a contiguous shard of "
                "the states (with --threads threads, default: its node's cores / ranks on the node) and rank 0 "
                "writes OUT, identical to a single-process run; every rank reads the states file" +
                    std::string(mpiSupported() ? "" : " (not in this build: CMake option LOOPSIM_MPI was OFF)"));
  inverse->excludes(solver)->excludes(tau_default)->excludes(mpi)->excludes(threads);
  sub->footer(
      "Every state is evaluated on its own: iterative solvers start cold (lambda = 0) at each state, so a row's "
      "result never depends on the other rows, the thread count or the MPI split.\n");
  return {sub, [options, threads] {
            if (options->mpi && !mpiSupported()) {
              throw ModelError("", "--mpi", "this loopsim was built without MPI support (CMake option LOOPSIM_MPI "
                                            "is OFF: install libopenmpi-dev and rebuild)");
            }
            Scene scene = loadScene(options->scene);
            // SIGINT/SIGTERM stop the work between blocks of rows: the output's
            // temporary file is removed and what was done is said, as `run` does.
            const InterruptGuard interrupt;
            const auto interrupted = [&interrupt] { return interrupt.received() != 0; };
            const auto reportInterrupt = [&](const std::string& done) {
              std::fprintf(stderr, "loopsim: eval interrupted by %s%s; %s was not written and no partial file is left\n",
                           signalName(interrupt.received()), done.c_str(), options->out.c_str());
              return 128 + interrupt.received();  // the shell's convention, as `run`
            };
            if (options->inverse) {
              for (const std::string& w : scene.warnings) spdlog::warn("{}", w);
              const std::optional<long> rows = evaluateInverseDynamics(
                  scene, options->states, options->out, options->overwrite, !options->no_stabilization, interrupted);
              if (!rows) return reportInterrupt("");
              std::printf("evaluated the inverse dynamics of %ld states -> %s\n", *rows, options->out.c_str());
              return 0;
            }
            if (!options->solver.empty()) requireSolver(scene.solverProblem(), options->solver);
            EvalOptions eval;
            eval.solver = options->solver;
            eval.stabilization = !options->no_stabilization;
            eval.overwrite = options->overwrite;
            eval.tau_default_zero = options->tau_default == "zero";
            eval.threads = options->threads;
            eval.stop_requested = interrupted;
            for (const std::string& w : scene.warnings) spdlog::warn("{}", w);
            if (options->mpi) {
              return evaluateStatesOverMpi(scene, options->states, options->out, eval, threads->count() > 0);
            }
            const EvalRun run = evaluateStates(scene, options->states, options->out, eval);
            if (run.stopped) return reportInterrupt(" after " + std::to_string(run.count) + " states");
            std::printf("evaluated %ld states -> %s\n", run.count, options->out.c_str());
            return 0;
          }};
}

#ifndef LOOPSIM_WITH_MPI
bool mpiSupported() { return false; }
int evaluateStatesOverMpi(const Scene&, const std::filesystem::path&, const std::filesystem::path&, EvalOptions, bool) {
  return 1;  // unreachable: the command refuses --mpi first
}
#endif

}  // namespace loopsim::app
