#include <loopsim/record/recorder.hpp>

#include <algorithm>
#include <cmath>

#include <loopsim/model/errors.hpp>
#include <loopsim/record/output_file.hpp>
#include <loopsim/record/record_summary.hpp>
#include <loopsim/record/state_columns.hpp>

namespace loopsim {

std::filesystem::path summaryPathFor(const std::filesystem::path& csv_path) {
  std::filesystem::path out = csv_path;
  if (out.extension() == ".csv") return out.replace_extension(".json");
  out += ".json";
  return out;
}

std::vector<std::filesystem::path> sceneInputFiles(const Scene& scene) {
  std::vector<std::filesystem::path> out;
  if (!scene.source_file.empty()) out.emplace_back(scene.source_file);
  for (const std::string& f : scene.model_files) out.emplace_back(f);
  return out;
}

std::vector<std::string> recordColumns(const Simulation& simulation) {
  return RecordRowBuilder(simulation, {}).columns();
}

std::vector<std::string> recordStatisticsColumns() {
  return {"position_violation", "velocity_violation", "kinetic_energy", "potential_energy", "applied_work",
          "damping_work", "energy_balance", "iterations", "solver_residual", "timing:solve_us"};
}

double estimatedRecordBytes(std::size_t columns, long steps, long every) {
  constexpr double kBytesPerValue = 23.0;  // 17 digits, sign, point, exponent, separator
  const double rows = std::floor(static_cast<double>(steps - 1) / static_cast<double>(std::max(1L, every))) + 2.0;
  return kBytesPerValue * static_cast<double>(columns) * rows;
}

SimulationRecorder::SimulationRecorder(const Simulation& simulation, const std::filesystem::path& csv_path,
                                       bool overwrite, const RecordOptions& options)
    : rows_(simulation, options.groups),
      summary_path_(summaryPathFor(csv_path)),
      overwrite_(overwrite),
      options_(options) {
  if (options_.every < 1) throw ModelError("", "--record-every", "must be >= 1 (got " + std::to_string(options_.every) + ")");
  options_.groups = normalizedRecordGroups(options_.groups, "--record-columns");
  const auto inputs = sceneInputFiles(simulation.scene());
  requireReplaceableOutput(summary_path_, overwrite, inputs);
  writer_ = std::make_unique<CsvWriter>(csv_path, rows_.columns(), overwrite, inputs);
  start_time_constant_ = time_constant_ = simulation.scene().time_constant;
  start_projection_ = projection_ = simulation.scene().projection;
  stabilization_changes_.reserve(16);
}

std::filesystem::path SimulationRecorder::summaryPath() const { return summary_path_; }

bool SimulationRecorder::step(Simulation& sim) {
  if (sim.scene().time_constant != time_constant_ || sim.scene().projection != projection_) {
    time_constant_ = sim.scene().time_constant;
    projection_ = sim.scene().projection;
    stabilization_changes_.push_back({sim.stepCount(), time_constant_, projection_});
  }
  const bool write = steps_seen_ % options_.every == 0;
  ++steps_seen_;
  if (!write) return sim.step();
  rows_.beforeStep(sim);
  const bool ok = sim.step();
  rows_.afterStep(sim);
  writer_->writeRow(rows_.row());
  ++rows_written_;
  return ok;
}

void SimulationRecorder::finish(const Simulation& simulation, const std::string& command_line,
                                const std::string& stopped_by, const LimitExcursions* limits) {
  rows_.finalState(simulation);
  writer_->writeRow(rows_.row());
  ++rows_written_;
  writer_->commit();
  writeRecordSummary(summary_path_, simulation, writer_->finalPath(), command_line, overwrite_,
                     {options_.every, options_.groups, rows_written_, stopped_by, start_time_constant_, start_projection_,
                      stabilization_changes_},
                     limits);
}

}  // namespace loopsim
