#pragma once
// Re-simulates a recorded run from the scene and settings embedded in its
// JSON summary; optionally verifies the whole record bit for bit (runs are
// deterministic on one machine and build): the header against the columns
// the scene produces, the row count, and every value of every row (the final
// state included) except the wall-clock timing columns.
#include <filesystem>
#include <string>
#include <vector>

namespace loopsim {

struct ReplayReport {
  long steps = 0;                 // steps re-simulated
  long rows_compared = 0;
  bool verified = false;          // every compared value identical
  long first_mismatch_row = -1;   // row index (0-based) of the first difference; -1: header or row count
  std::string mismatch;           // "row 12 (t = 0.012): q:knee recorded 0.1234… replayed 0.1235…"
  std::vector<std::string> warnings;  // e.g. a model file whose hash changed
};

/// `record` is the CSV or its JSON summary. With verify, model files whose
/// hash changed are an error (the comparison would be meaningless).
ReplayReport replayRecord(const std::filesystem::path& record, bool verify);

}  // namespace loopsim
