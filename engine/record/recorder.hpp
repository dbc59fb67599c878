#pragma once
// Records a Simulation step by step: a streaming CSV (one row per step) plus a
// JSON summary written when the run completes (record_summary.hpp).
//
// Row k holds the state (t, q, v) at the start of step k, the constraint
// violation of that state, the energy terms of that state, and what step k
// computed from it: τ (applied by the controller), v̇, λ, solve time and
// iterations. `eval` on (q, v, τ) of a row reproduces its v̇.
#include <filesystem>
#include <memory>

#include "record/csv_writer.hpp"
#include "sim/simulation.hpp"

namespace loopsim {

class SimulationRecorder {
 public:
  /// Opens OUT (temporary name until finish()); refuses to overwrite unless `overwrite`.
  SimulationRecorder(const Simulation& simulation, const std::filesystem::path& csv_path, bool overwrite);

  /// Steps the simulation once and writes the row. Returns Simulation::step()'s result.
  bool step(Simulation& simulation);
  /// Commits the CSV under its final name and writes the JSON summary beside it.
  void finish(const Simulation& simulation, const std::string& command_line);

  const std::filesystem::path& csvPath() const { return writer_->finalPath(); }
  std::filesystem::path summaryPath() const;

 private:
  std::unique_ptr<CsvWriter> writer_;
  std::vector<double> row_;
  std::filesystem::path summary_path_;
  bool overwrite_;
};

/// The JSON summary's path for a CSV record: OUT.csv -> OUT.json, else OUT + ".json".
std::filesystem::path summaryPathFor(const std::filesystem::path& csv_path);

/// Columns of a record for this simulation (t, q…, v…, tau…, vdot…, lambda…, then statistics).
std::vector<std::string> recordColumns(const Simulation& simulation);

}  // namespace loopsim
