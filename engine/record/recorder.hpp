#pragma once
// Records a Simulation step by step: a streaming CSV (one row per step) plus a
// JSON summary written when the run completes (record_summary.hpp).
//
// Row k holds the state (t, q, v) at the start of step k, the constraint
// violation of that state, the energy terms of that state, and what step k
// computed from it: τ (applied by the controller), v̇, λ, iterations and the
// solve time (timing:solve_us). The last row is the final state (t = T).
// `eval` on (q, v, τ) of a row reproduces its v̇. The layout is in record_row.hpp.
#include <filesystem>
#include <memory>

#include <loopsim/record/csv_writer.hpp>
#include <loopsim/record/record_row.hpp>
#include <loopsim/record/record_summary.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim {

/// What a record holds: every Nth step's row (and always the final state),
/// and which column groups (record_row.hpp; empty = all).
struct RecordOptions {
  long every = 1;
  std::vector<std::string> groups;
};

class SimulationRecorder {
 public:
  /// Opens OUT (temporary name until finish()); refuses to overwrite unless `overwrite`.
  SimulationRecorder(const Simulation& simulation, const std::filesystem::path& csv_path, bool overwrite,
                     const RecordOptions& options = {});

  /// Steps the simulation once and writes the row (every Nth step). Returns
  /// Simulation::step()'s result. A stabilisation change since the last step
  /// is noted for the summary (it allocates only then).
  bool step(Simulation& simulation);
  /// Writes the final state's row, commits the CSV under its final name and
  /// writes the JSON summary beside it. `stopped_by`: why the caller stopped
  /// the run early (e.g. the energy watch), recorded as its divergence.
  /// `limits`: what the caller's limit monitors saw (summary key "limits").
  void finish(const Simulation& simulation, const std::string& command_line, const std::string& stopped_by = "",
              const LimitExcursions* limits = nullptr);

  const std::filesystem::path& csvPath() const { return writer_->finalPath(); }
  std::filesystem::path summaryPath() const;
  const std::vector<std::string>& columns() const { return rows_.columns(); }

 private:
  RecordRowBuilder rows_;
  std::unique_ptr<CsvWriter> writer_;
  std::filesystem::path summary_path_;
  bool overwrite_;
  RecordOptions options_;
  long steps_seen_ = 0;
  long rows_written_ = 0;
  // The stabilisation at the first step and its changes since (noted before the step they apply to).
  double start_time_constant_ = 0.0, time_constant_ = 0.0;
  bool start_projection_ = false, projection_ = false;
  std::vector<StabilizationChange> stabilization_changes_;
};

/// Bytes of one row and of the whole record of `steps` steps, estimated from
/// the column count (17 significant digits each).
double estimatedRecordBytes(std::size_t columns, long steps, long every);

/// The JSON summary's path for a CSV record: OUT.csv -> OUT.json, else OUT + ".json".
std::filesystem::path summaryPathFor(const std::filesystem::path& csv_path);

/// The files a scene was read from (the YAML file and its models): outputs must not be one of them.
std::vector<std::filesystem::path> sceneInputFiles(const Scene& scene);

/// The statistics and timing columns that end a full record row.
std::vector<std::string> recordStatisticsColumns();

/// Columns of a full record for this simulation (t, q…, v…, tau…, vdot…, lambda…, statistics, timing).
std::vector<std::string> recordColumns(const Simulation& simulation);

}  // namespace loopsim
