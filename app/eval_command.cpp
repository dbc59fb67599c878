// `loopsim eval SCENE --states IN.csv [--solver NAME] [--no-stabilization] --out OUT.csv`
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

#include "record/state_evaluation.hpp"
#include "record_commands.hpp"
#include "scene/scene_loader.hpp"

namespace loopsim::app {

Command registerEvalCommand(CLI::App& parent) {
  struct Options {
    std::string scene, states, out, solver;
    bool no_stabilization = false;
    bool overwrite = false;
    std::string tau_default;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = parent.add_subcommand(
      "eval", "Evaluate the constrained dynamics (v̇, λ) at given states without stepping");
  sub->add_option("SCENE", options->scene, "Scene YAML file")->required();
  sub->add_option("--states", options->states, "CSV with q:…, v:… (and optional tau:…, t) columns")->required();
  sub->add_option("--out", options->out, "Output CSV: t, vdot:…, lambda:…")->required();
  sub->add_option("--solver", options->solver, "Solver (default: the scene's)");
  sub->add_flag("--no-stabilization", options->no_stabilization, "Baumgarte gains 0: J v̇ = -J̇ v");
  sub->add_option("--tau-default", options->tau_default,
                  "'zero': actuated joints without a tau: column get tau = 0 (else that is an error)")
      ->check(CLI::IsMember({"zero"}));
  sub->add_flag("--overwrite", options->overwrite, "Allow OUT to replace an existing regular file");
  return {sub, [options] {
            Scene scene = loadScene(options->scene);
            if (!options->solver.empty()) checkSolverForScene(scene, options->solver);
            EvalOptions eval;
            eval.solver = options->solver;
            eval.stabilization = !options->no_stabilization;
            eval.overwrite = options->overwrite;
            eval.tau_default_zero = options->tau_default == "zero";
            for (const std::string& w : scene.warnings) spdlog::warn("{}", w);
            const long rows = evaluateStates(scene, options->states, options->out, eval);
            std::printf("evaluated %ld states -> %s\n", rows, options->out.c_str());
            return 0;
          }};
}

}  // namespace loopsim::app
