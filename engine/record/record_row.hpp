#pragma once
// One row of a record, built the same way by the recorder and by replay (so
// replay --verify can compare every column). Column groups, in order:
//   t (always) | q | v | tau | vdot | lambda | perturbation | stats | timing
// perturbation: the external wrench the step applied (the GUI's mouse; 0 in a
// run nothing pushed), perturbation:body (0: none) and
// perturbation:nx ny nz fx fy fz (body frame, about its origin); replay
// applies it again.
// stats: the state's constraint violations and energy terms, and the step's
// solver iterations and residual; timing: wall-clock columns (timing:solve_us),
// the only ones replay cannot reproduce. Row k holds state k (before step k)
// and what step k computed from it; the final row holds the final state
// (t = T), its step columns nan since no step follows it.
#include <span>
#include <string>
#include <vector>

namespace loopsim {

class Simulation;

/// The column groups, in record order ("t" is always written).
const std::vector<std::string>& recordColumnGroups();
/// The groups of a record when none are asked for: all of them (run and gui alike).
const std::vector<std::string>& defaultRecordGroups();
/// The perturbation group's columns.
const std::vector<std::string>& perturbationColumns();

/// Checks group names (ModelError naming `option` and suggesting the nearest);
/// empty means the default set. Returns them in record order, deduplicated.
std::vector<std::string> normalizedRecordGroups(const std::vector<std::string>& groups, const std::string& option);

class RecordRowBuilder {
 public:
  RecordRowBuilder(const Simulation& simulation, const std::vector<std::string>& groups);

  const std::vector<std::string>& columns() const { return columns_; }
  /// True for wall-clock columns (not reproducible).
  bool isTimingColumn(std::size_t column) const { return column >= first_timing_; }

  /// Before a step: the state part. No allocation.
  void beforeStep(const Simulation& simulation);
  /// After that step: what it computed. No allocation.
  void afterStep(const Simulation& simulation);
  /// The final state (after the last step): state part, step part nan.
  void finalState(const Simulation& simulation);

  std::span<const double> row() const { return row_; }

 private:
  void select();

  std::vector<std::string> columns_;
  std::vector<int> selected_;   // indices into full_ of the written columns
  std::vector<double> full_, row_;
  std::size_t first_timing_ = 0;  // in columns_
  std::size_t step_begin_ = 0, step_stats_begin_ = 0;  // offsets in full_
};

}  // namespace loopsim
