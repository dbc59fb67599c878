#include "record/replay.hpp"

#include <bit>
#include <cstdio>

#include "model/errors.hpp"
#include "record/csv_reader.hpp"
#include "record/file_hash.hpp"
#include "record/record_summary.hpp"
#include "record/recorder.hpp"
#include "record/state_columns.hpp"
#include "scene/scene_loader.hpp"
#include "sim/simulation.hpp"

namespace loopsim {

namespace {

std::filesystem::path summaryOf(const std::filesystem::path& record) {
  if (record.extension() == ".json") return record;
  return summaryPathFor(record);
}

std::string formatDouble(double x) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

}  // namespace

ReplayReport replayRecord(const std::filesystem::path& record, bool verify) {
  const std::filesystem::path summary_path = summaryOf(record);
  const RecordSummary summary = readRecordSummary(summary_path);
  ReplayReport report;
  for (const auto& f : summary.model_files) {
    const std::string now = std::filesystem::exists(f.path) ? sha256File(f.path) : std::string("missing");
    if (now != f.sha256) {
      const std::string what = "model file " + f.path + " changed since the recording (sha256 " + f.sha256.substr(0, 12) +
                               "… now " + now.substr(0, 12) + "…)";
      if (verify) throw ModelError(summary.file, "model_files", what);
      report.warnings.push_back(what);
    }
  }
  const std::filesystem::path base_dir =
      summary.scene_source.empty() ? std::filesystem::path{} : std::filesystem::path(summary.scene_source).parent_path();
  Scene scene = loadSceneString(summary.scene_text, summary.scene_source.empty() ? summary.file : summary.scene_source,
                                base_dir);
  scene.source_file = summary.scene_source;
  scene.solver = summary.solver;
  scene.solver_settings = summary.solver_settings;
  scene.dt = summary.dt;
  scene.duration = summary.duration;
  scene.time_constant = summary.time_constant;
  scene.projection = summary.projection;
  Simulation sim(scene);

  CsvTable table;
  std::vector<int> q_cols, v_cols;
  if (verify) {
    const std::filesystem::path csv = record.extension() == ".json" ? std::filesystem::path(summary.csv) : record;
    table = readCsv(csv);
    for (const auto& name : configurationColumns(sim.model())) q_cols.push_back(table.requireColumn(name));
    for (const auto& name : velocityColumns(sim.model(), "v")) v_cols.push_back(table.requireColumn(name));
    if (static_cast<long>(table.rows.size()) != summary.steps) {
      throw ModelError(table.file, "", "has " + std::to_string(table.rows.size()) + " rows, the summary says " +
                                           std::to_string(summary.steps) + " steps");
    }
  }
  report.verified = verify;
  for (long row = 0; row < summary.steps; ++row) {
    if (verify) {
      const auto& recorded = table.rows[static_cast<std::size_t>(row)];
      auto compare = [&](const VectorX& x, const std::vector<int>& cols) {
        for (std::size_t k = 0; k < cols.size(); ++k) {
          const double r = recorded[static_cast<std::size_t>(cols[k])];
          if (std::bit_cast<std::uint64_t>(r) != std::bit_cast<std::uint64_t>(x[static_cast<Eigen::Index>(k)])) {
            report.verified = false;
            report.first_mismatch_row = row;
            report.mismatch = "row " + std::to_string(row) + " (t = " + formatDouble(sim.time()) + "): " +
                              table.columns[static_cast<std::size_t>(cols[k])] + " recorded " + formatDouble(r) +
                              " replayed " + formatDouble(x[static_cast<Eigen::Index>(k)]);
            return false;
          }
        }
        return true;
      };
      if (!compare(sim.q(), q_cols) || !compare(sim.v(), v_cols)) return report;
      ++report.rows_compared;
    }
    if (!sim.step()) {
      ++report.steps;
      break;
    }
    ++report.steps;
  }
  return report;
}

}  // namespace loopsim
