#pragma once
// Reads a numeric CSV (header of column names, then rows of numbers), as
// written by CsvWriter or by users for `loopsim eval`.
#include <filesystem>
#include <string>
#include <vector>

namespace loopsim {

struct CsvTable {
  std::string file;
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  std::vector<int> line_numbers;  // the file line of each row (blank lines are skipped)

  /// Column index; -1 when absent.
  int column(const std::string& name) const;
  /// Column index or a ModelError naming the file and the column.
  int requireColumn(const std::string& name) const;
};

/// Errors name the file, the line and the offending text. With threads > 1
/// the rows are parsed in contiguous parts on that many threads; the table
/// and the error (the first bad line in file order) are the same.
/// With parts > 1 only the rows of chunkOf(0, rows, parts, part) are parsed
/// (an MPI rank's shard); the others are left empty, line_numbers is whole.
CsvTable readCsv(const std::filesystem::path& path, int threads = 1, int part = 0, int parts = 1);

}  // namespace loopsim
