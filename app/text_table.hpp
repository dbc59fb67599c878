#pragma once
// Left-aligned text columns for terminal reports (info, solvers, bench...).
#include <ostream>
#include <string>
#include <vector>

namespace loopsim::app {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void addRow(std::vector<std::string> cells);  // padded or truncated to the header's width
  /// Writes the header, a rule and the rows, each line prefixed by indent.
  void print(std::ostream& out, const std::string& indent = "  ") const;

 private:
  std::vector<std::vector<std::string>> rows_;  // rows_[0] is the header
};

}  // namespace loopsim::app
