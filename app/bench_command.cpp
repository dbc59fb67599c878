// `loopsim bench [--scene ...] [--solver ...] [--samples N] [--iterations K] [--threads N] [--trajectory] [--format table|csv|json]`
// `loopsim bench --table2 [--solver ...] [--samples N] [--iterations K] [--format table|csv|json]`
// `loopsim bench --loop-scaling [--family ...] [--max-links N] [--solver ...] [--samples N] [--iterations K] [--format table|csv]`
// `loopsim bench --contact [--scene ...] [--samples N] [--iterations K] [--format table|csv]`
// `loopsim bench --paper 000|001|002|004 [--quick] [--out DIR] [--overwrite]`
// `loopsim bench --mu-sweep [--mu-relative] [--mu-values ...] [--scene ...] [--samples N] [--format table|csv]`
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <loopsim/bench/contact_step_benchmark.hpp>
#include <loopsim/bench/delassus_benchmark.hpp>
#include <loopsim/bench/loop_scaling.hpp>
#include <loopsim/bench/mu_sweep.hpp>
#include <loopsim/bench/paper_reproduction.hpp>
#include <loopsim/bench/paper_table_cases.hpp>
#include <loopsim/bench/scaling_benchmark.hpp>
#include <loopsim/bench/solver_benchmark.hpp>
#include "list_values.hpp"
#include "number_checks.hpp"
#include "paper_bench_command.hpp"
#include <loopsim/model/errors.hpp>
#include "record_commands.hpp"
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/registry.hpp>
#include "thread_option.hpp"

namespace loopsim::app {

namespace {

std::filesystem::path scenesDir() { return std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes"; }

// Default cases: every scene in the repository's scenes/ folder.
std::vector<std::string> defaultScenes() {
  std::vector<std::string> out;
  const std::filesystem::path dir = scenesDir();
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Command registerBenchCommand(CLI::App& parent) {
  struct Options {
    std::vector<std::string> scenes, solvers;
    int samples = 50;
    int rounds = 20;
    std::string format = "table";
    bool delassus = true;
    bool scaling = false;
    bool loop_scaling = false;
    std::vector<std::string> families;
    int max_links = 0;
    bool table2 = false;
    bool dynamics = false;
    bool mu_sweep = false, mu_relative = false, mu_cap = false;
    std::vector<double> mu_values;
    double mu_tolerance = 1e-10;
    int threads = 1;
    bool trajectory = false;
    bool contact = false;
    std::string paper;
    bool quick = false;
    std::string out;
    bool overwrite = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = parent.add_subcommand(
      "bench", "Time (q, v, τ) → (v̇, λ) for every solver on consistent states of scenes (ABA as the floor)");
  sub->add_option("--scene", options->scenes, "Scene YAML files, separated by commas or spaces (default: all of scenes/)");
  sub->add_option("--solver", options->solvers, "Solvers to time, separated by commas or spaces (default: all that support each scene)");
  sub->add_option("--samples", options->samples, "Constraint-consistent states per scene")->capture_default_str();
  sub->add_option("--iterations", options->rounds, "Timed passes over the states; the median is over passes")
      ->capture_default_str();
  sub->add_flag("--scaling", options->scaling,
                "Instead: chains of 8-200 links with a tip weld and the ladder (m ~ n), CSV and fitted growth "
                "exponents (paper 000 Fig. 4)");
  sub->add_flag("--loop-scaling", options->loop_scaling,
                "Instead: paper 001 Figs. 6-9, the loop solvers on cycle, chain_of_loops, coupled_worst_case, "
                "favourable_branching and favourable_branching_grounded (its hub fixed) from ~10 to 200+ links; a "
                "table (or CSV) per family and fitted growth exponents over the 4 largest sizes. lcaba, prox-bbo, "
                "prox-ltl, ltl, kkt unless --solver is given; --samples and --iterations default to 30 and 21 here, "
                "--threads to 1 (then timed by the thread's CPU clock)");
  sub->add_option("--family", options->families,
                  "With --loop-scaling: the families to run, separated by commas or spaces (default: all five)");
  sub->add_option("--max-links", options->max_links,
                  "With --loop-scaling: only the sizes with at most N links (each family keeps at least 2)");
  sub->add_flag("--table2", options->table2,
                "Instead of scenes: paper 000 Table II's cases on Iiwa (no constraint, tool as a 3D point, tool welded), "
                "Atlas (no constraint, F, 2F, 2F+H, 2F+2H, 6D welds) and Go1 (no constraint, 1-4 feet as 3D points), columns pv, pv-early, pv-soft, constrained-aba, "
                "prox-pv, ltl, prox-ltl, soft-ltl, kkt unless --solver is given");
  sub->add_option("--paper", options->paper,
                  "Instead: every table and figure of paper 000, 001, 002 or 004 that has cases here, beside the "
                  "paper's own figures (ratios within a robot, exponents, iterations); prints the page, or with --out "
                  "writes it with a CSV and a PNG plot per table or figure")
      ->check(CLI::IsMember(paperBenchIds()));
  sub->add_flag("--quick", options->quick,
                "With --paper: few states, rounds and sizes (the whole paper in well under two minutes; for checks)");
  sub->add_option("--out", options->out,
                  "With --paper: the directory to write paper-N.md, paper-N-ID.csv and paper-N-ID.png into "
                  "(created if missing)");
  sub->add_flag("--overwrite", options->overwrite,
                "With --out: replace the regular files of an earlier run (never anything else)");
  sub->add_flag("--dynamics", options->dynamics,
                "Solver table: also time RNEA and CRBA (symmetric M; crba-lower: one triangle) as columns beside the ABA floor, interleaved "
                "with it (their ratios to ABA)");
  sub->add_flag("--mu-sweep", options->mu_sweep,
                "Instead: iterations to tolerance (1e-10, cold start) and v̇ error vs kkt of the proximal and "
                "augmented-Lagrangian solvers for mu = 1e2..1e10 (paper 001 Figs. 10-11); --samples states per scene");
  sub->add_flag("--mu-relative", options->mu_relative,
                "With --mu-sweep: the values are factors c, mu = c·λ_max(M(q)) per state (default c = 1e1..1e7; how "
                "mu: auto's factor was chosen)");
  sub->add_flag("--mu-cap", options->mu_cap,
                "With --mu-sweep: the values are caps C on mu: auto's rule for lcaba and constrained-aba, mu = "
                "min(3e3·λ_Λ, C·λ_max(M)) per state (default C = 1e3..1e6; how the cap was chosen)");
  sub->add_option("--mu-values", options->mu_values, "With --mu-sweep: the mu values (or factors), separated by commas or spaces")
      ->delimiter(',');
  sub->add_option("--mu-tolerance", options->mu_tolerance, "With --mu-sweep: the tolerance on |J v̇ - k|inf")
      ->check(positiveNumberCheck())
      ->capture_default_str();
  sub->add_flag("--contact", options->contact,
                "Instead: a full simulation step of scenes on contacts against MuJoCo's mj_step on the same model, "
                "contacts, PD and feed-forward, interleaved in one process (go1_ground, atlas_ground and "
                "digit_ground unless --scene is given; scenes of one URDF/MJCF robot or of free bodies on a "
                "ground); --iterations rounds (default 31 here) of --samples steps (default 20 here) after 1 s of "
                "landing; medians and quartiles of per-round ratios");
  sub->add_flag("--trajectory", options->trajectory,
                "Solver table on each scene's own simulation instead of random states: the first --samples steps "
                "(its solver, controller and dt), in order; iterative solvers get a column warm-started from the "
                "previous state's λ, as a running simulation solves (no Delassus table)");
  sub->add_flag("!--no-delassus", options->delassus, "Skip the Delassus table (J M⁻¹ Jᵀ by each algorithm)");
  addThreadsOption(sub, options->threads,
                   "Solver table: each timed pass's states split over N threads, one solver and workspace each; cells "
                   "are then wall µs per state (1 / throughput) and ratios are taken at the same N. --threads 1 times "
                   "one core's latency (the Delassus table and --scaling always run on one thread)");
  sub->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  return {sub, [options, sub] {
            options->solvers = splitListValues(options->solvers);
            options->scenes = splitListValues(options->scenes);
            for (const auto& name : options->solvers) {
              if (findSolver(name) == nullptr) throw ModelError("", "--solver", unknownSolverMessage(name));
            }
            options->families = splitListValues(options->families);
            if (!options->paper.empty()) {
              for (const char* other : {"--scene", "--solver", "--samples", "--iterations", "--scaling",
                                        "--loop-scaling", "--family", "--max-links", "--table2", "--dynamics",
                                        "--mu-sweep", "--mu-relative", "--mu-cap", "--mu-values", "--mu-tolerance",
                                        "--contact", "--trajectory", "--no-delassus", "--threads", "--format"}) {
                if (sub->count(other) > 0) {
                  throw ModelError("", other, "--paper brings its own cases, solvers and sizes (and --quick); not "
                                              "with " + std::string(other));
                }
              }
              if (options->overwrite && options->out.empty()) throw ModelError("", "--overwrite", "applies to --out");
              return runPaperBench({options->paper, options->quick, options->out, options->overwrite}, scenesDir());
            }
            for (const char* paper_only : {"--quick", "--out", "--overwrite"}) {
              if (sub->count(paper_only) > 0) throw ModelError("", paper_only, "applies to --paper");
            }
            // Counts name their option (the engine's "samples" and "rounds" are --samples and --iterations).
            if (sub->count("--samples") > 0) requireAtLeastOne(options->samples, "--samples");
            if (sub->count("--iterations") > 0) requireAtLeastOne(options->rounds, "--iterations");
            // What a mode would silently ignore is refused, naming the option.
            if (options->mu_sweep && sub->count("--iterations") > 0) {
              throw ModelError("", "--iterations", "--mu-sweep counts solver iterations to tolerance; it times no "
                                                   "passes (give --samples for the states per scene)");
            }
            if ((options->mu_sweep || options->contact) && sub->count("--threads") > 0) {
              throw ModelError("", "--threads", std::string(options->mu_sweep ? "--mu-sweep" : "--contact") +
                                                    " runs on one thread (the solver table and --scaling take --threads)");
            }
            const bool max_links_given = sub->count("--max-links") > 0;
            if (max_links_given && options->max_links < 1) {
              throw ModelError("", "--max-links", "must be a positive number of links, got " +
                                                      std::to_string(options->max_links));
            }
            if (!options->loop_scaling && (!options->families.empty() || max_links_given)) {
              throw ModelError("", options->families.empty() ? "--max-links" : "--family", "applies to --loop-scaling");
            }
            if (options->loop_scaling && (!options->scenes.empty() || options->scaling || options->table2 ||
                                          options->mu_sweep)) {
              throw ModelError("", "--loop-scaling",
                               "brings its own cases: not with --scene, --scaling, --table2 or --mu-sweep");
            }
            if (options->table2 && (!options->scenes.empty() || options->scaling || options->mu_sweep)) {
              throw ModelError("", "--table2", "brings its own cases: not with --scene, --scaling or --mu-sweep");
            }
            if (options->trajectory && (options->table2 || options->scaling || options->loop_scaling ||
                                        options->mu_sweep)) {
              throw ModelError("", "--trajectory",
                               "times the scenes' own simulations: not with --table2, --scaling, --loop-scaling or "
                               "--mu-sweep");
            }
            if (options->contact) {
              if (options->table2 || options->scaling || options->loop_scaling || options->mu_sweep ||
                  options->trajectory || options->dynamics || !options->solvers.empty()) {
                throw ModelError("", "--contact",
                                 "times whole steps with each scene's contact solvers: not with --table2, --scaling, "
                                 "--loop-scaling, --mu-sweep, --trajectory, --dynamics or --solver");
              }
              if (options->format == "json") throw ModelError("", "--format", "--contact writes table or csv");
              ContactBenchOptions contact;
              if (sub->count("--iterations") > 0) contact.rounds = options->rounds;
              if (sub->count("--samples") > 0) contact.steps = options->samples;
              std::vector<Scene> cases;
              if (options->scenes.empty()) {
                for (const char* name : {"go1_ground", "atlas_ground", "digit_ground"}) {
                  cases.push_back(loadScene(scenesDir() / (std::string(name) + ".yaml")));
                }
              } else {
                for (const auto& path : options->scenes) cases.push_back(loadScene(path));
              }
              const auto rows = runContactStepBenchmark(cases, contact, [](const Scene& scene) {
                std::fprintf(stderr, "bench --contact: %s\n", scene.name.c_str());
              });
              const std::string text = options->format == "csv" ? formatContactBenchCsv(rows)
                                                                 : formatContactBenchTable(rows, contact);
              std::fputs(text.c_str(), stdout);
              return 0;
            }
            const auto scenes = options->scenes.empty() ? defaultScenes() : options->scenes;
            BenchOptions bench;
            bench.samples = options->samples;
            bench.rounds = options->rounds;
            bench.solvers = options->solvers;
            if (options->table2 && bench.solvers.empty()) bench.solvers = paperTable2Solvers();
            bench.threads = options->threads;
            bench.dynamics_algorithms = options->dynamics;
            bench.trajectory = options->trajectory;
            if (options->mu_sweep) {
              if (options->format == "json") throw ModelError("", "--format", "--mu-sweep writes table or csv");
              MuSweepOptions sweep;
              sweep.samples = options->samples;
              sweep.solvers = options->solvers;
              if (options->mu_relative && options->mu_cap) throw ModelError("", "--mu-cap", "not with --mu-relative");
              sweep.relative = options->mu_relative;
              sweep.penalty_cap = options->mu_cap;
              sweep.tolerance = options->mu_tolerance;
              if (!options->mu_values.empty()) sweep.values = options->mu_values;
              else if (sweep.relative) sweep.values = {1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7};
              else if (sweep.penalty_cap) sweep.values = {1e3, 1e4, 1e5, 1e6};
              std::vector<MuSweepRow> rows;
              std::string text;
              for (const auto& path : scenes) {
                const Scene scene = loadScene(path);
                std::fprintf(stderr, "bench --mu-sweep: %s\n", scene.name.c_str());
                auto part = muSweep(scene, sweep);
                if (options->format == "table") text += formatMuSweepTable(part, sweep) + "\n";
                rows.insert(rows.end(), part.begin(), part.end());
              }
              if (options->format == "csv") text = formatMuSweepCsv(rows);
              std::fputs(text.c_str(), stdout);
              return 0;
            }
            if (options->mu_relative || options->mu_cap || !options->mu_values.empty()) {
              throw ModelError("", options->mu_relative ? "--mu-relative" : options->mu_cap ? "--mu-cap" : "--mu-values",
                               "applies to --mu-sweep");
            }
            if (options->loop_scaling) {
              if (options->format == "json") throw ModelError("", "--format", "--loop-scaling writes table or csv");
              LoopScalingOptions scaling;
              scaling.bench = bench;
              // Fewer states and rounds than a scene's table: the largest
              // sizes take milliseconds per solve, and the sizes are many
              // (the default run then takes ~40 s on one core).
              if (sub->count("--samples") == 0) scaling.bench.samples = 30;
              if (sub->count("--iterations") == 0) scaling.bench.rounds = 21;
              scaling.bench.fixed_iterations = {1};  // the paper's measure: the first prox/ALM iteration
              // One core's latency, as the paper's figures, unless --threads
              // asks for throughput.
              if (sub->count("--threads") == 0) scaling.bench.threads = 1;
              scaling.families = options->families;
              scaling.max_links = options->max_links;
              const auto points = benchmarkLoopScaling(scaling);
              const auto fits = fitLoopScaling(points, scaling.fit_sizes);
              const std::string text = options->format == "csv" ? formatLoopScalingCsv(points, fits)
                                                                 : formatLoopScalingTable(points, fits);
              std::fputs(text.c_str(), stdout);
              return 0;
            }
            if (options->scaling) {
              const auto points = benchmarkScaling(bench, options->solvers);
              std::fputs(formatScaling(points, fitScaling(points)).c_str(), stdout);
              return 0;
            }
            std::vector<BenchResult> results, delassus;
            std::vector<Scene> cases;
            if (options->table2) {
              cases = paperTable2Cases(scenesDir());
            } else {
              for (const auto& path : scenes) cases.push_back(loadScene(path));
            }
            for (const Scene& scene : cases) {
              std::fprintf(stderr, "bench: %s\n", scene.name.c_str());
              auto part = benchmarkScene(scene, bench);
              results.insert(results.end(), part.begin(), part.end());
              if (options->delassus && !options->trajectory && !scene.constraints.empty()) {
                auto table = benchmarkDelassus(scene, bench);
                delassus.insert(delassus.end(), table.begin(), table.end());
              }
            }
            if (options->format == "table") {
              std::string text = formatBenchTable(results);
              if (!delassus.empty()) text += "\n" + formatDelassusTable(delassus);
              std::fputs(text.c_str(), stdout);
              return 0;
            }
            // csv / json: the Delassus rows follow with mode "delassus".
            results.insert(results.end(), delassus.begin(), delassus.end());
            const std::string text = options->format == "json" ? formatBenchJson(results) : formatBenchCsv(results);
            std::fputs(text.c_str(), stdout);
            return 0;
          }};
}

}  // namespace loopsim::app
