#pragma once
// The text layout shared by the bench tables: one row per case, one column
// per solver (or algorithm), cells padded to their column.
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace loopsim {

struct CaseGrid {
  std::vector<std::string> cases, columns;  // in first-seen order
  std::map<std::pair<std::string, std::string>, std::string> cells;  // (case, column) -> text

  /// Sets a cell, adding its case and column when new.
  void set(const std::string& case_name, const std::string& column, std::string text);
  /// Header row, then one row per case ("-" for a missing cell), each line ending in '\n'.
  std::string format() const;
};

}  // namespace loopsim
