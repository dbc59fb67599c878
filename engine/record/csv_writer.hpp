#pragma once
// Streams a numeric CSV record to disk: one header line of column names, then
// one row per call, numbers with 17 significant digits (round-trip exact).
// The file is written under a temporary name and renamed when committed, so
// an interrupted run never leaves a file under the final name. The final
// path goes through requireReplaceableOutput (output_file.hpp): an existing
// regular file is replaced only with `overwrite`, anything else never.
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loopsim {

class CsvWriter {
 public:
  /// `inputs`: the files the command reads, which the output must not be.
  CsvWriter(std::filesystem::path final_path, const std::vector<std::string>& columns, bool overwrite,
            const std::vector<std::filesystem::path>& inputs = {});
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  /// Appends one row; values.size() must equal the column count. No allocation.
  void writeRow(std::span<const double> values);
  /// Appends rows already formatted by formatRow (batch evaluation formats
  /// its rows on the worker threads and hands them over in order).
  void writeRows(std::string_view rows);
  /// Appends `values` as one CSV line (17 significant digits, '\n'-terminated)
  /// to `out`: the exact text writeRow writes.
  static void formatRow(std::span<const double> values, std::string& out);
  /// Flushes, closes and renames the temporary file to the final path.
  void commit();

  std::size_t columnCount() const { return columns_; }
  const std::filesystem::path& finalPath() const { return final_path_; }
  const std::filesystem::path& temporaryPath() const { return temp_path_; }

 private:
  std::filesystem::path final_path_, temp_path_;
  std::FILE* file_ = nullptr;
  std::size_t columns_ = 0;
  std::vector<char> line_;  // preallocated row buffer
  bool committed_ = false;
};

}  // namespace loopsim
