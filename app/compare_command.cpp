// `loopsim compare SCENE --solvers a,b,c [--reference NAME] [--duration S] [--out DIR]
// [--plot-size WxH] [--overwrite] [--quiet]`: K simulations of one scene in lockstep
// (SolverComparison), the divergence table on the terminal and as CSV, the
// series as CSV and a PNG plot of the divergence (log scale) and the solve
// time over time, drawn in software (render/plot_image: no display needed).
// Exit codes: 0 done; 1 bad input; 3 a solver diverged (named on stderr).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "list_values.hpp"
#include <loopsim/model/errors.hpp>
#include <loopsim/record/csv_writer.hpp>
#include <loopsim/record/output_file.hpp>
#include "render/plot_image.hpp"
#include "render/screenshot.hpp"
#include <loopsim/scene/run_length.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/solver_comparison.hpp>
#include "sim_commands.hpp"
#include "text_table.hpp"

namespace loopsim::app {

namespace fs = std::filesystem;

namespace {

struct CompareOptions {
  std::string scene_file;
  std::vector<std::string> solvers;
  std::string reference;
  std::optional<double> duration;
  std::optional<double> from;  // start from the scene's own run at this time
  std::string out_dir = ".";
  std::string plot_size = "1000x600";
  bool overwrite = false;
  bool quiet = false;
};

// Series samples kept for the CSV and the plot (one per window of steps).
constexpr long kMaxSeriesSamples = 2000;

std::string formatNumber(double x, const char* format = "%.3e") {
  if (std::isnan(x)) return "-";
  char text[48];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

// A file-name-safe version of the scene's name.
std::string fileStem(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out.empty() ? std::string("scene") : out;
}

std::pair<int, int> plotSize(const std::string& text) {
  const auto x = text.find('x');
  int w = 0, h = 0;
  try {
    std::size_t used_w = 0, used_h = 0;
    if (x == std::string::npos) throw std::invalid_argument(text);
    w = std::stoi(text.substr(0, x), &used_w);
    h = std::stoi(text.substr(x + 1), &used_h);
    if (used_w != x || used_h != text.size() - x - 1) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    throw ModelError("", "--plot-size", "'" + text + "' is not WxH (e.g. 1000x600)");
  }
  if (w < render::kMinPlotWidth || h < render::kMinPlotHeight || w > 8192 || h > 8192) {
    throw ModelError("", "--plot-size", "'" + text + "': width from " + std::to_string(render::kMinPlotWidth) +
                                            ", height from " + std::to_string(render::kMinPlotHeight) + ", both at most 8192");
  }
  return {w, h};
}

// Writes `path` under a temporary name, then renames it over the final name
// (the final path checked by requireReplaceableOutput first).
template <class Write>
void writeOutput(const fs::path& path, bool overwrite, const std::vector<fs::path>& inputs, Write write) {
  requireReplaceableOutput(path, overwrite, inputs);
  const fs::path partial = partialPathFor(path, static_cast<long>(::getpid()));
  try {
    write(partial);
    requireReplaceableOutput(path, overwrite, inputs);  // nothing appeared meanwhile
    fs::rename(partial, path);
  } catch (...) {
    std::error_code ec;
    fs::remove(partial, ec);
    throw;
  }
}

std::string statusOf(const ComparedSolver& s) { return s.running() ? "ok" : "DIVERGED"; }

void writeTable(const fs::path& path, const SolverComparison& comparison) {
  std::ofstream out(path);
  if (!out) throw ModelError(path.string(), "", "cannot create the file");
  out << "solver,reference,status,steps,median_solve_us,mean_iterations,max_position_violation,"
         "max_velocity_violation,energy_balance_J,max_divergence,final_divergence,first_exceeded_time_s,stopped_at_s,"
         "reason\n";
  out.precision(17);
  for (std::size_t i = 0; i < comparison.solvers().size(); ++i) {
    const ComparedSolver& s = comparison.solvers()[i];
    const Simulation& sim = *s.simulation;
    const RunSummary summary = sim.summary();
    std::string reason = s.failure;
    std::replace(reason.begin(), reason.end(), '"', '\'');
    out << s.name << ',' << (static_cast<int>(i) == comparison.referenceIndex() ? 1 : 0) << ',' << statusOf(s) << ','
        << summary.steps << ',' << summary.median_solve_us << ',' << summary.mean_iterations << ','
        << summary.max_position_violation << ',' << summary.max_velocity_violation << ',' << summary.energy.balance()
        << ',' << s.max_divergence << ',' << s.divergence << ',' << s.first_exceeded_time << ',' << s.failure_time
        << ",\"" << reason << "\"\n";
  }
  out.close();
  if (!out) throw ModelError(path.string(), "", "cannot write the file");
}

void writeSeries(const fs::path& path, const SolverComparison& comparison, const std::vector<fs::path>& inputs,
                 bool overwrite) {
  std::vector<std::string> columns{"t"};
  for (const ComparedSolver& s : comparison.solvers()) {
    columns.push_back("divergence:" + s.name);
    columns.push_back("solve_us:" + s.name);
  }
  // The rows: every sample time of any solver (a stopped solver's last window ends off the grid).
  std::set<double> times;
  for (const ComparedSolver& s : comparison.solvers()) {
    for (const ComparisonSample& sample : s.series) times.insert(sample.time);
  }
  CsvWriter writer(path, columns, overwrite, inputs);
  std::vector<std::size_t> next(comparison.solvers().size(), 0);
  std::vector<double> row(columns.size());
  for (const double t : times) {
    row[0] = t;
    for (std::size_t i = 0; i < comparison.solvers().size(); ++i) {
      const auto& series = comparison.solvers()[i].series;
      double divergence = std::nan(""), solve = std::nan("");
      if (next[i] < series.size() && series[next[i]].time == t) {
        divergence = series[next[i]].divergence;
        solve = series[next[i]].solve_us;
        ++next[i];
      }
      row[1 + 2 * i] = divergence;
      row[2 + 2 * i] = solve;
    }
    writer.writeRow(row);
  }
  writer.commit();
}

render::RgbImage plotOf(const SolverComparison& comparison, const Scene& scene, int width, int height) {
  render::PlotPanel divergence{"divergence from " + comparison.reference().name + "  |q (-) q_ref|  (log scale, 0 not drawn; dashed: " +
                                   formatNumber(comparison.options().divergence_threshold, "%.0e") + ")",
                               true, {}, comparison.options().divergence_threshold};
  render::PlotPanel solve{"solve time (us, mean per sample window, log scale)", true, {}, std::nullopt};
  for (std::size_t i = 0; i < comparison.solvers().size(); ++i) {
    const ComparedSolver& s = comparison.solvers()[i];
    const bool is_reference = static_cast<int>(i) == comparison.referenceIndex();
    render::PlotSeries d{s.name + (is_reference ? " (reference)" : "") + (s.running() ? "" : " DIVERGED"),
                         render::seriesColour(static_cast<int>(i)), {}, {}};
    render::PlotSeries t{d.label, d.rgb, {}, {}};
    for (const ComparisonSample& sample : s.series) {
      if (!is_reference) {
        d.x.push_back(sample.time);
        d.y.push_back(sample.divergence);
      }
      t.x.push_back(sample.time);
      t.y.push_back(sample.solve_us);
    }
    divergence.series.push_back(std::move(d));
    solve.series.push_back(std::move(t));
  }
  char title[256];
  std::snprintf(title, sizeof title, "loopsim compare: %s, %zu solvers, %.6g s (dt %g s)", scene.name.c_str(),
                comparison.solvers().size(), comparison.time(), scene.dt);
  return render::drawPlot(width, height, title, "simulated time (s)", {divergence, solve});
}

void printTable(const SolverComparison& comparison, const Scene& scene, long start_steps, std::ostream& out) {
  out << "\n Comparison: " << scene.name << ", " << comparison.solvers().size() << " solvers in lockstep, ";
  if (start_steps > 0) out << "from t = " << static_cast<double>(start_steps) * scene.dt << " s, ";
  out << comparison.time() - static_cast<double>(start_steps) * scene.dt << " s (" << comparison.stepCount() - start_steps
      << " steps of " << scene.dt << " s), reference "
      << comparison.reference().name << "\n divergence = |q (-) q_ref|_2, the configuration difference to the "
      << "reference at the same time\n\n";
  TextTable table({"solver", "status", "median solve us", "iterations", "max closure err", "energy bal. J",
                   "max divergence", "last divergence", "> " + formatNumber(comparison.options().divergence_threshold, "%.0e") + " at s"});
  for (std::size_t i = 0; i < comparison.solvers().size(); ++i) {
    const ComparedSolver& s = comparison.solvers()[i];
    const RunSummary summary = s.simulation->summary();
    const bool is_reference = static_cast<int>(i) == comparison.referenceIndex();
    table.addRow({s.name + (is_reference ? " (ref)" : ""), statusOf(s), formatNumber(summary.median_solve_us, "%.2f"),
                  formatNumber(summary.mean_iterations, "%.2f"), formatNumber(summary.max_position_violation),
                  formatNumber(summary.energy.balance()), is_reference ? "-" : formatNumber(s.max_divergence),
                  is_reference ? "-" : formatNumber(s.divergence),
                  is_reference ? "-" : (std::isnan(s.first_exceeded_time) ? "never" : formatNumber(s.first_exceeded_time, "%.6g"))});
  }
  table.print(out);
  for (const ComparedSolver& s : comparison.solvers()) {
    if (!s.running()) out << "\n " << s.name << ": " << s.failure;
  }
  if (!std::isnan(comparison.referenceStopTime())) {
    out << "\n divergences stop at t = " << comparison.referenceStopTime() << " s, where the reference stopped";
  }
  out << "\n";
}

int runCompare(CompareOptions o) {
  o.solvers = splitListValues(o.solvers);
  if (o.quiet) spdlog::set_level(spdlog::level::warn);
  const auto [plot_width, plot_height] = plotSize(o.plot_size);
  Scene scene = loadScene(o.scene_file);
  for (const std::string& w : scene.warnings) spdlog::warn("{}", w);
  if (o.duration) scene.duration = *o.duration;
  validateRunLength(scene.dt, scene.duration, o.duration ? "" : o.scene_file, "dt", o.duration ? "--duration" : "duration");
  const long steps = runStepCount(scene.dt, scene.duration);
  ComparisonOptions options;
  options.reference = o.reference;
  options.sample_every = std::max(1L, (steps + kMaxSeriesSamples - 1) / kMaxSeriesSamples);

  // Outputs: checked before the run (a refusal costs nothing), written after it.
  const fs::path dir = o.out_dir;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw ModelError(dir.string(), "--out", "is not a directory");
  const std::string stem = fileStem(scene.name) + "-compare";
  const fs::path table_csv = dir / (stem + ".csv"), series_csv = dir / (stem + "-series.csv"), plot_png = dir / (stem + ".png");
  std::vector<fs::path> inputs{o.scene_file};
  for (const std::string& f : scene.model_files) inputs.emplace_back(f);
  for (const fs::path& p : {table_csv, series_csv, plot_png}) requireReplaceableOutput(p, o.overwrite, inputs);

  SolverComparison comparison(scene, o.solvers, options);
  long start_steps = 0;
  if (o.from) {
    // Every solver from the state the scene's own run (its solver) reaches at --from, as the GUI's "compare from here".
    start_steps = scheduledStep(*o.from, scene.dt, "--from");
    if (static_cast<double>(start_steps) + static_cast<double>(steps) > kMaxRunSteps) {
      throw ModelError("", "--duration", fmt::format("--from {} s and the comparison's {} steps make more than 1e9 "
                                                     "steps at dt {} s (as `run`, at most 1e9)",
                                                     *o.from, steps, scene.dt));
    }
    Simulation lead(scene);
    while (lead.stepCount() < start_steps && lead.step()) {
    }
    if (lead.diverged()) {
      throw ModelError(o.scene_file, "--from", "the scene's run (" + scene.solver + ") diverged before t = " +
                                                   std::to_string(*o.from) + " s: " + lead.divergence()->message());
    }
    SimulationSnapshot start;
    lead.snapshot(start);
    comparison.restore(std::span(&start, 1));
    spdlog::info("compare: from t = {} s (step {}) of the scene's run with {}", comparison.time(), start_steps, scene.solver);
  }
  comparison.advanceTo(start_steps + steps);
  for (ComparedSolver& s : comparison.solvers()) s.simulation->checkState();  // book the final states

  printTable(comparison, scene, start_steps, std::cout);
  std::cout.flush();

  if (!fs::exists(dir, ec)) fs::create_directories(dir);
  writeOutput(table_csv, o.overwrite, inputs, [&](const fs::path& p) { writeTable(p, comparison); });
  writeSeries(series_csv, comparison, inputs, o.overwrite);
  writeOutput(plot_png, o.overwrite, inputs, [&](const fs::path& p) {
    try {
      render::writePngExclusive(p, plotOf(comparison, scene, plot_width, plot_height));
    } catch (const std::runtime_error& e) {
      throw ModelError(plot_png.string(), "", e.what());
    }
  });
  std::printf("\n table  %s\n series %s\n plot   %s (%dx%d)\n", table_csv.string().c_str(), series_csv.string().c_str(),
              plot_png.string().c_str(), plot_width, plot_height);

  std::string diverged;
  for (const ComparedSolver& s : comparison.solvers()) {
    if (!s.running()) diverged += (diverged.empty() ? "" : "; ") + s.name + " (" + s.failure + ")";
  }
  if (!diverged.empty()) {
    std::fflush(stdout);
    std::fprintf(stderr, "loopsim: compare: diverged: %s\n", diverged.c_str());
    return kExitDiverged;
  }
  return kExitOk;
}

}  // namespace

Command registerCompareCommand(CLI::App& parent) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* sub = parent.add_subcommand(
      "compare", "Run 2 to 6 solvers on one scene in lockstep: divergence table (terminal, CSV) and a PNG plot");
  sub->footer(
      "Every solver starts from the same state and steps the same dt; divergence = |q_i (-) q_ref|_2 (the "
      "configuration difference to the reference at the same time). Writes into --out: SCENE-compare.csv (the "
      "table), SCENE-compare-series.csv (t, divergence and solve time per solver) and SCENE-compare.png (drawn in "
      "software, no display needed); an existing file is replaced only with --overwrite. A solver that diverges "
      "stops alone; the others go on. Exit codes: 0 done; 1 invalid scene or options; 3 a solver diverged (named on "
      "stderr; the outputs are still written).");
  sub->add_option("scene", o->scene_file, "Scene file (.yaml)")->required();
  // One value per --solvers (commas inside it): the scene may follow, e.g. `--solvers kkt,ltl SCENE`.
  sub->add_option("--solvers", o->solvers, "2 to 6 solvers, separated by commas (see `loopsim solvers`)")
      ->required()
      ->allow_extra_args(false);
  sub->add_option("--reference", o->reference,
                  "The solver the others are compared to; default kkt when listed, else the first exact one");
  sub->add_option("--duration", o->duration, "Simulated time in seconds; default: the scene's");
  sub->add_option("--from", o->from,
                  "Start every solver from the state the scene's own run (its solver) reaches at this time (s), "
                  "then compare for --duration");
  sub->add_option("--out", o->out_dir, "Directory for the CSV and PNG outputs (created if missing)")->capture_default_str();
  sub->add_option("--plot-size", o->plot_size, "PNG size WxH in pixels")->capture_default_str();
  sub->add_flag("--overwrite", o->overwrite, "Allow replacing existing outputs (regular files only)");
  sub->add_flag("--quiet", o->quiet, "No info logs (the table is still printed)");
  return {sub, [o] { return runCompare(*o); }};
}

}  // namespace loopsim::app
