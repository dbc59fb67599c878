#pragma once
// What `loopsim bench --paper N` writes of its experiments: one CSV per table
// or figure and one Markdown page per paper, each table beside the paper's
// figures and each figure's growth exponents beside the paper's.
#include <string>
#include <vector>

#include <loopsim/bench/paper_reproduction.hpp>

namespace loopsim {

/// One row per cell, then "# fit" rows with the exponents.
std::string paperExperimentCsv(const PaperExperiment& experiment);

struct PaperPageInfo {
  std::string machine;  // CPU model and cores
  std::string date;     // of the run
  std::string command;  // that regenerates the page
  bool quick = false;
  // File names of the CSV and plot of each experiment, by experiment id
  // (empty: not written, not linked).
  std::string (*csv_name)(const PaperExperiment&) = nullptr;
  std::string (*plot_name)(const PaperExperiment&) = nullptr;
};

/// The page of one paper: a section per experiment (its unit, where our
/// cases differ, the table or the exponents, the worst deviation of its
/// exact columns from the reference).
std::string paperPageMarkdown(const std::string& paper, const std::vector<PaperExperiment>& experiments,
                              const PaperPageInfo& info);

/// The largest error of the experiment's exact columns (-1 when none is measured).
double worstExactError(const PaperExperiment& experiment);

}  // namespace loopsim
