#include <loopsim/bench/paper_cells.hpp>

#include <algorithm>
#include <memory>

#include <loopsim/bench/power_law_fit.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {

BenchOptions paperTimingOptions(const PaperBenchOptions& options) {
  BenchOptions bench;
  bench.thread_cpu_time = true;  // one core's latency, as the papers time it
  if (options.quick) {
    bench.samples = 4;
    bench.rounds = 3;
    bench.warmup_rounds = 1;
  }
  return bench;
}

void appendCells(PaperExperiment& experiment, const std::string& case_name, double x, int nv, int constraint_dim,
                 const std::vector<BenchResult>& rows) {
  for (const BenchResult& r : rows) {
    if (!r.note.empty() && r.median_us <= 0.0) continue;  // skipped: the solver does not take the case
    PaperCell cell;
    cell.case_name = case_name;
    const bool plain = r.mode == "direct" || r.mode == "unconstrained" || r.mode == "-" || r.mode == "delassus" ||
                       r.mode == "inverse";
    cell.column = plain ? r.solver : r.solver + " " + r.mode;
    cell.x = x;
    cell.nv = nv;
    cell.constraint_dim = constraint_dim;
    cell.median_us = r.median_us;
    cell.ratio = r.solver == "aba" ? 1.0 : r.ratio_to_aba;
    cell.ratio_spread = r.solver == "aba" ? 0.0 : r.ratio_to_aba_spread;
    const SolverInfo* info = findSolver(r.solver);
    if (info != nullptr && info->capabilities.iterative) cell.iterations = r.mean_iterations;
    cell.error = r.max_vdot_deviation;
    const bool fixed_iterations = r.mode.find(" iter") != std::string::npos;
    cell.exact = r.mode == "delassus" || r.mode == "damped" || r.mode == "inverse" ||
                 (info != nullptr && !info->capabilities.soft && !fixed_iterations);
    experiment.cells.push_back(std::move(cell));
  }
}

void timeTableRows(PaperExperiment& experiment, const std::vector<Scene>& cases, const BenchOptions& bench,
                   const PaperBenchOptions& options) {
  for (const Scene& scene : cases) {
    reportProgress(options, experiment.title + ": " + scene.name);
    const ConstraintSet set(*scene.model, scene.constraints);
    appendCells(experiment, scene.name, 0.0, scene.model->nv, set.dimension(), benchmarkScene(scene, bench));
  }
}

PaperExperiment paperExperiment(const std::string& paper, const std::string& id, const std::string& title,
                                const std::string& unit) {
  PaperExperiment e;
  e.paper = paper;
  e.id = id;
  e.title = title;
  e.unit = unit;
  return e;
}

Scene mechanismScene(const std::string& name, GeneratedMechanism mechanism, const std::vector<std::string>& independent) {
  Scene scene;
  scene.name = name;
  scene.description = mechanism.doc;
  scene.constraints = std::move(mechanism.constraints);
  scene.q0 = std::move(mechanism.q0);
  scene.v0 = VectorX::Zero(mechanism.model.nv);
  scene.solver_settings.mu_auto = true;
  for (const std::string& joint : independent) {
    const int j = mechanism.model.jointId(joint);
    if (j < 0) throw ModelError(name, "independent", "no joint '" + joint + "' in the generated mechanism");
    for (int k = 0; k < mechanism.model.joint_nv[static_cast<std::size_t>(j)]; ++k) {
      scene.solver_settings.independent_dofs.push_back(mechanism.model.idx_v[static_cast<std::size_t>(j)] + k);
    }
  }
  scene.solver_settings.independent_dofs_internal_loops = scene.solver_settings.independent_dofs;
  scene.model = std::make_shared<const Model>(std::move(mechanism.model));
  return scene;
}

Scene transmissionsOnly(const Scene& full, const std::string& name) {
  Scene scene = full;
  scene.name = name;
  scene.constraints.clear();
  for (const Constraint& c : full.constraints) {
    if (c.kind == ConstraintKind::Coupling) scene.constraints.push_back(c);
  }
  scene.solver_settings.soft_weights.clear();
  scene.solver_settings.independent_dofs = full.solver_settings.independent_dofs_internal_loops;
  return scene;
}

void rereference(PaperExperiment& experiment, const std::string& reference) {
  std::vector<PaperCell>& cells = experiment.cells;
  std::vector<double> ratios(cells.size(), 0.0);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto ref = std::find_if(cells.begin(), cells.end(), [&](const PaperCell& c) {
      return c.case_name == cells[i].case_name && c.x == cells[i].x && c.column == reference;
    });
    if (ref != cells.end() && ref->ratio > 0.0) ratios[i] = cells[i].ratio / ref->ratio;
  }
  for (std::size_t i = 0; i < cells.size(); ++i) {
    cells[i].ratio = ratios[i];
    cells[i].ratio_spread = 0.0;  // the spread is of the per-round ratio to ABA only
  }
  experiment.reference_column = reference;
}

void setPaperFigures(PaperExperiment& experiment, const PaperTable& table) {
  for (PaperCell& cell : experiment.cells) {
    const auto row = table.find(cell.case_name);
    if (row == table.end()) continue;
    const auto value = row->second.find(cell.column);
    if (value != row->second.end()) cell.paper = value->second;
  }
}

void fitExponents(PaperExperiment& experiment, int fit_sizes, const PaperExponents& paper) {
  std::vector<std::pair<std::string, std::string>> keys;
  for (const PaperCell& c : experiment.cells) {
    const std::pair<std::string, std::string> key{c.case_name, c.column};
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  for (const auto& [family, column] : keys) {
    std::vector<std::pair<double, double>> points;
    for (const PaperCell& c : experiment.cells) {
      if (c.case_name == family && c.column == column && c.median_us > 0.0 && c.x > 0.0) {
        points.emplace_back(c.x, c.median_us);
      }
    }
    std::sort(points.begin(), points.end());
    if (points.size() < 2) continue;
    if (static_cast<int>(points.size()) > fit_sizes) points.erase(points.begin(), points.end() - fit_sizes);
    PaperFit fit;
    fit.family = family;
    fit.column = column;
    fit.exponent = fitPowerLawExponent(points);
    fit.from_x = points.front().first;
    fit.to_x = points.back().first;
    const auto stated = paper.find({family, column});
    if (stated != paper.end()) {
      fit.paper = stated->second.first;
      fit.paper_basis = stated->second.second;
    }
    experiment.fits.push_back(std::move(fit));
  }
}

void reportProgress(const PaperBenchOptions& options, const std::string& what) {
  if (options.progress) options.progress(what);
}

std::vector<std::string> orderedCases(const std::vector<PaperCell>& cells) {
  std::vector<std::string> out;
  for (const PaperCell& c : cells) {
    if (std::find(out.begin(), out.end(), c.case_name) == out.end()) out.push_back(c.case_name);
  }
  return out;
}

std::vector<std::string> orderedColumns(const PaperExperiment& experiment, const std::vector<PaperCell>& cells) {
  std::vector<std::string> seen;
  for (const PaperCell& c : cells) {
    if (std::find(seen.begin(), seen.end(), c.column) == seen.end()) seen.push_back(c.column);
  }
  std::vector<std::string> out;
  for (const std::string& column : experiment.column_order) {
    if (std::find(seen.begin(), seen.end(), column) != seen.end()) out.push_back(column);
  }
  for (const std::string& column : seen) {
    if (std::find(out.begin(), out.end(), column) == out.end()) out.push_back(column);
  }
  return out;
}

const std::vector<std::string>& paperBenchIds() {
  static const std::vector<std::string> ids = {"000", "001", "002", "004"};
  return ids;
}

std::vector<std::string> paperExperimentIds(const std::string& paper) {
  if (paper == "000") return {"table2", "fig2", "fig4"};
  if (paper == "001") return {"table2", "figs6-9", "figs10-11"};
  if (paper == "002") return {"fig3", "fig4a", "fig4b", "fig5", "fig6"};
  if (paper == "004") return {"table2", "table3", "fig11", "table4", "fig13", "fig14"};
  return {};
}

std::vector<PaperExperiment> runPaperBench(const std::string& paper, const std::filesystem::path& scenes_dir,
                                           const PaperBenchOptions& options) {
  if (paper == "000") return runPaper000(scenes_dir, options);
  if (paper == "001") return runPaper001(scenes_dir, options);
  if (paper == "002") return runPaper002(scenes_dir, options);
  if (paper == "004") return runPaper004(scenes_dir, options);
  throw ModelError("", "--paper", "no experiments for paper '" + paper + "' (one of 000, 001, 002, 004; paper 003 is "
                                  "a two-page abstract without experiments)");
}

}  // namespace loopsim
