#pragma once
// The JSON summary that accompanies a CSV record: the scene text, hashes of
// the model files, solver and settings, version, platform and the run's
// summary figures. `replay` rebuilds the run from it.
#include <filesystem>
#include <string>
#include <vector>

#include <loopsim/scene/scene.hpp>
#include <loopsim/sim/limit_excursions.hpp>

namespace loopsim {

class Simulation;

/// A live change of the stabilisation (Simulation::setStabilization, the
/// GUI's panel), in effect from step `step` on.
struct StabilizationChange {
  long step = 0;
  double time_constant = 0.0;
  bool projection = false;
};

/// How the CSV was written (recorder.hpp RecordOptions, plus the row count).
struct RecordLayout {
  long every = 1;
  std::vector<std::string> groups;  // column groups written (record_row.hpp)
  long rows = 0;
  std::string stopped_by;  // why the run stopped early when the simulation itself did not diverge (energy watch)
  // The stabilisation at the record's first step and its later changes
  // (summary keys time_constant, projection and stabilization_changes).
  double time_constant = 0.0;
  bool projection = false;
  std::vector<StabilizationChange> stabilization_changes;
};

/// `limits`: what the run's limit monitors saw (key "limits": the joints that
/// left their position range or exceeded their velocity limit); null when the
/// caller did not watch them (the key is then absent).
void writeRecordSummary(const std::filesystem::path& path, const Simulation& simulation,
                        const std::filesystem::path& csv_path, const std::string& command_line, bool overwrite,
                        const RecordLayout& layout, const LimitExcursions* limits = nullptr);

struct RecordedModelFile {
  std::string path;
  std::string sha256;
};

/// What replay needs from a summary.
struct RecordSummary {
  std::string file;
  std::string scene_text;
  std::string scene_source;  // original scene path (relative paths resolve from its folder)
  std::vector<RecordedModelFile> model_files;
  std::string solver;
  SolverSettings solver_settings;
  double dt = 0.0, duration = 0.0, time_constant = 0.0;
  bool projection = false;
  long steps = 0;
  RecordLayout layout;
  std::string csv;  // path of the CSV record
};

/// Reads a summary; errors name the file and the missing key.
RecordSummary readRecordSummary(const std::filesystem::path& path);

/// The scene the record was made with: its embedded text loaded again, with
/// the solver, settings, dt, duration and stabilisation the run used (they may
/// differ from the text's own after CLI overrides or `auto` resolution).
Scene recordedScene(const RecordSummary& summary);

}  // namespace loopsim
