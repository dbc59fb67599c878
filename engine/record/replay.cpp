#include <loopsim/record/replay.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <loopsim/model/errors.hpp>
#include <loopsim/record/csv_reader.hpp>
#include <loopsim/record/file_hash.hpp>
#include <loopsim/record/record_row.hpp>
#include <loopsim/record/record_summary.hpp>
#include <loopsim/record/recorder.hpp>
#include <loopsim/record/state_columns.hpp>
#include <loopsim/sim/simulation.hpp>

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
  // Name the file the user gave before the summary derived from it.
  std::error_code ec;
  if (!std::filesystem::exists(record, ec)) throw ModelError(record.string(), "", "no such record file");
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
  Scene scene = recordedScene(summary);
  Simulation sim(scene);
  report.verified = verify;
  // A record with the perturbation group (the default) holds the wrench of every step: applied again before it.
  bool perturbed = std::find(summary.layout.groups.begin(), summary.layout.groups.end(), "perturbation") !=
                   summary.layout.groups.end();
  const std::filesystem::path csv = record.extension() == ".json" ? std::filesystem::path(summary.csv) : record;
  const CsvTable table = verify || perturbed ? readCsv(csv) : CsvTable{};
  std::vector<int> perturbation_columns;
  if (perturbed) {
    for (const std::string& name : perturbationColumns()) perturbation_columns.push_back(table.requireColumn(name));
    const std::size_t body = static_cast<std::size_t>(perturbation_columns.front());
    // (The final row's step columns are nan: no step follows it.)
    const bool pushed = std::any_of(table.rows.begin(), table.rows.end(),
                                    [&](const auto& row) { return row[body] != 0.0 && !std::isnan(row[body]); });
    // Rows skipped by --record-every hide the wrench of their steps: only an unperturbed run replays from them.
    if (pushed && summary.layout.every != 1) {
      throw ModelError(summary.file, "perturbation", "a perturbed record needs every step's row to replay (--record-every 1)");
    }
    perturbed = pushed;
  }
  // Live stabilisation changes (the GUI's panel) at the steps they were made.
  std::size_t next_change = 0;
  const auto& changes = summary.layout.stabilization_changes;
  auto applyStepInputs = [&](long k) {
    while (next_change < changes.size() && changes[next_change].step <= k) {
      sim.setStabilization(changes[next_change].time_constant, changes[next_change].projection);
      ++next_change;
    }
    if (!perturbed) return;
    if (k >= static_cast<long>(table.rows.size())) throw ModelError(csv.string(), "perturbation", "the record ends before the run");
    const auto& row = table.rows[static_cast<std::size_t>(k)];
    auto at = [&](std::size_t i) { return row[static_cast<std::size_t>(perturbation_columns[i])]; };
    const int body = static_cast<int>(at(0));
    if (body > 0) sim.setPerturbation(body, Force(Vector3(at(1), at(2), at(3)), Vector3(at(4), at(5), at(6))));
    else sim.clearPerturbation();
  };
  if (!verify) {
    for (long k = 0; k < summary.steps; ++k) {
      ++report.steps;
      applyStepInputs(k);
      if (!sim.step()) break;
    }
    return report;
  }

  RecordRowBuilder rows(sim, summary.layout.groups);
  auto fail = [&](long row, const std::string& what) {
    report.verified = false;
    report.first_mismatch_row = row;
    report.mismatch = what;
    return report;
  };
  // The header must be exactly what this scene and layout produce: a deleted,
  // renamed or reordered column is a difference too.
  const std::vector<std::string>& expected = rows.columns();
  for (std::size_t c = 0; c < std::max(expected.size(), table.columns.size()); ++c) {
    const std::string have = c < table.columns.size() ? table.columns[c] : "(none)";
    const std::string want = c < expected.size() ? expected[c] : "(none)";
    if (have != want) {
      return fail(-1, "header column " + std::to_string(c + 1) + ": recorded '" + have + "', the scene produces '" +
                          want + "'");
    }
  }
  if (static_cast<long>(table.rows.size()) != summary.layout.rows) {
    return fail(-1, "the CSV has " + std::to_string(table.rows.size()) + " rows, the summary says " +
                        std::to_string(summary.layout.rows));
  }

  // Every column but the wall-clock ones, bit for bit (nan equals nan: the
  // final row's step columns).
  std::size_t next_row = 0;
  auto compare = [&]() {
    const auto replayed = rows.row();
    if (next_row >= table.rows.size()) {
      report.verified = false;
      report.first_mismatch_row = static_cast<long>(next_row);
      report.mismatch = "the replay has more rows than the record (" + std::to_string(table.rows.size()) + ")";
      return false;
    }
    const auto& recorded = table.rows[next_row];
    for (std::size_t c = 0; c < replayed.size(); ++c) {
      if (rows.isTimingColumn(c)) continue;
      const double r = recorded[c], x = replayed[c];
      if (std::bit_cast<std::uint64_t>(r) == std::bit_cast<std::uint64_t>(x) || (std::isnan(r) && std::isnan(x))) {
        continue;
      }
      report.verified = false;
      report.first_mismatch_row = static_cast<long>(next_row);
      report.mismatch = "row " + std::to_string(next_row) + " (line " + std::to_string(table.line_numbers[next_row]) +
                        ", t = " + formatDouble(replayed[0]) + "): " + table.columns[c] + " recorded " +
                        formatDouble(r) + " replayed " + formatDouble(x);
      return false;
    }
    ++next_row;
    ++report.rows_compared;
    return true;
  };
  bool running = true;
  for (long k = 0; k < summary.steps && running; ++k) {
    const bool write = k % summary.layout.every == 0;
    if (write) rows.beforeStep(sim);
    applyStepInputs(k);
    running = sim.step();
    ++report.steps;
    if (write) {
      rows.afterStep(sim);
      if (!compare()) return report;
    }
  }
  rows.finalState(sim);
  if (!compare()) return report;
  if (next_row != table.rows.size()) {
    return fail(static_cast<long>(next_row), "the record has " + std::to_string(table.rows.size() - next_row) +
                                                 " more rows than the replay");
  }
  return report;
}

}  // namespace loopsim
