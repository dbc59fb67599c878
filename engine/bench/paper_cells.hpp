#pragma once
// The pieces every paper's experiments share (paper_000.cpp ... paper_004.cpp):
// bench rows as cells, generated mechanisms as bench cases, the paper's
// figures beside ours, ratios to another column, growth exponents.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <loopsim/bench/paper_reproduction.hpp>
#include <loopsim/bench/solver_benchmark.hpp>
#include <loopsim/scene/generators.hpp>
#include <loopsim/scene/scene.hpp>

namespace loopsim {

/// States, rounds and warm-up of a timing: the defaults of `bench`, or a few
/// of each with options.quick.
BenchOptions paperTimingOptions(const PaperBenchOptions& options);

/// Appends one cell per bench row (skipped columns are left out) of `case_name`
/// at abscissa x; a column is named like bench's tables ("lcaba 1 iter").
/// The ratio is the row's ratio to ABA; a solver is `exact` when it is neither
/// soft nor stopped at a fixed iteration count.
void appendCells(PaperExperiment& experiment, const std::string& case_name, double x, int nv, int constraint_dim,
                 const std::vector<BenchResult>& rows);

/// Times each scene (benchmarkScene) as a table row of `experiment`, its case
/// named after the scene, reporting progress before each.
void timeTableRows(PaperExperiment& experiment, const std::vector<Scene>& cases, const BenchOptions& bench,
                   const PaperBenchOptions& options);

/// A new experiment of `paper` with its id, title and unit.
PaperExperiment paperExperiment(const std::string& paper, const std::string& id, const std::string& title,
                                const std::string& unit);

/// A generated mechanism as a bench case at its reference pose, at rest, with
/// mu: auto (as the loop-scaling cases); `independent` names the joints that
/// coordinate its clusters (cluster-aba), empty for none.
Scene mechanismScene(const std::string& name, GeneratedMechanism mechanism,
                     const std::vector<std::string>& independent = {});

/// A robot scene's transmissions alone (its couplings, no feet), coordinated
/// by the joints its rotors drive (its internal-loops view of `independent`):
/// paper 004's case for its robots.
Scene transmissionsOnly(const Scene& full, const std::string& name);

/// Re-expresses every cell's ratio against `reference` in the same case and at
/// the same x (the ratio of their ratios to ABA) and sets the experiment's
/// reference column; cells whose case has no such column get ratio 0.
void rereference(PaperExperiment& experiment, const std::string& reference);

/// The paper's figure for (case, column): table[case][column].
using PaperTable = std::map<std::string, std::map<std::string, double>>;
void setPaperFigures(PaperExperiment& experiment, const PaperTable& table);

/// One fit per (case, column) of a scaling experiment over its `fit_sizes`
/// largest x with a positive time; `paper` gives the stated exponents per
/// (case, column) with their basis.
using PaperExponents = std::map<std::pair<std::string, std::string>, std::pair<double, std::string>>;
void fitExponents(PaperExperiment& experiment, int fit_sizes, const PaperExponents& paper = {});

/// Reports progress through options.progress when it is set.
void reportProgress(const PaperBenchOptions& options, const std::string& what);

}  // namespace loopsim
