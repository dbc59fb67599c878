#pragma once
// `loopsim bench --paper N`: the tables and figures of one paper re-measured
// on our scenes and generated mechanisms, each as a list of cells beside the
// paper's own figure in the same unit (a ratio within one robot or mechanism,
// which survives a change of machine; iteration counts; growth exponents).
// The experiments per paper live in paper_000.cpp ... paper_004.cpp; the
// files written from them (CSV, Markdown) in paper_report.hpp.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace loopsim {

/// One measured column of one case (a table row, or one size of a figure).
struct PaperCell {
  std::string case_name;  // "atlas (2F)", "cycle n=25"
  std::string column;     // "pv", "lcaba 1 iter", "aba", "pv-osimr"
  double x = 0.0;         // figures: the abscissa (links, or μ); tables: 0
  int nv = 0, constraint_dim = 0;
  double median_us = 0.0;       // 0 for a figure of counts (μ sweep)
  double ratio = 0.0;           // to the experiment's reference column (its `unit`); 0: not a timing
  double ratio_spread = 0.0;    // IQR of the per-round ratio (reference ABA), else 0
  double iterations = 0.0;      // iterative solvers: mean (timings) or median (μ sweep) iterations
  double error = -1.0;          // v̇ against the reference solve (kkt, or prox-ltl on redundant sets); -1: none
  bool exact = false;           // an exact solver solved to convergence: `error` must be at round-off
  double paper = 0.0;           // the paper's figure in the unit of `ratio` (or of the plotted value); 0: none
};

/// A fitted growth exponent of one column of a figure: time ~ x^exponent.
struct PaperFit {
  std::string family, column;
  double exponent = 0.0;
  double from_x = 0.0, to_x = 0.0;  // the sizes the fit used
  double paper = 0.0;               // the exponent the paper states or implies (0: none stated)
  std::string paper_basis;          // where the paper's exponent comes from
};

struct PaperExperiment {
  std::string paper;    // "000"
  std::string id;       // file stem: "table2", "fig4"
  std::string title;    // "Paper 000 Table II: constrained forward dynamics, ..."
  std::string unit;     // what `ratio` is: "time / ABA on the same robot"
  std::string reference_column = "aba";  // the column ratios are taken to
  enum class Kind { Table, Scaling, MuSweep } kind = Kind::Table;
  std::string x_label;  // figures: "links", "stem links", "μ"
  std::vector<std::string> differences;  // where our cases differ from the paper's, and why
  std::vector<std::string> column_order;  // the paper's column order (the rest follow as measured); empty: as measured
  std::vector<PaperCell> cells;
  std::vector<PaperFit> fits;
};

struct PaperBenchOptions {
  bool quick = false;  // fewer states, rounds and sizes: the whole paper in well under two minutes
  // Called before each case is measured ("paper 000 Table II: atlas (2F)").
  std::function<void(const std::string&)> progress;
};

/// The cases of `cells` in the order they first appear.
std::vector<std::string> orderedCases(const std::vector<PaperCell>& cells);

/// The experiment's columns in its column_order, then the others as they first appear.
std::vector<std::string> orderedColumns(const PaperExperiment& experiment, const std::vector<PaperCell>& cells);

/// "000", "001", "002", "004" (paper 003 has no experiments).
const std::vector<std::string>& paperBenchIds();

/// The ids of `paper`'s experiments, in the order runPaperBench returns them
/// (empty for a paper without experiments).
std::vector<std::string> paperExperimentIds(const std::string& paper);

/// Every experiment of `paper`; `scenes_dir` holds the repository's scenes.
/// Throws ModelError (element "--paper") for a paper without experiments.
std::vector<PaperExperiment> runPaperBench(const std::string& paper, const std::filesystem::path& scenes_dir,
                                           const PaperBenchOptions& options);

// One function per paper (paper_000.cpp ...), called by runPaperBench.
std::vector<PaperExperiment> runPaper000(const std::filesystem::path& scenes_dir, const PaperBenchOptions& options);
std::vector<PaperExperiment> runPaper001(const std::filesystem::path& scenes_dir, const PaperBenchOptions& options);
std::vector<PaperExperiment> runPaper002(const std::filesystem::path& scenes_dir, const PaperBenchOptions& options);
std::vector<PaperExperiment> runPaper004(const std::filesystem::path& scenes_dir, const PaperBenchOptions& options);

}  // namespace loopsim
