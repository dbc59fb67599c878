#include "text_table.hpp"

#include <algorithm>

namespace loopsim::app {

TextTable::TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void TextTable::addRow(std::vector<std::string> cells) {
  cells.resize(rows_.front().size());
  rows_.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out, const std::string& indent) const {
  const std::size_t columns = rows_.front().size();
  std::vector<std::size_t> width(columns, 0);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < columns; ++c) width[c] = std::max(width[c], row[c].size());
  }
  auto printRow = [&](const std::vector<std::string>& row) {
    std::string line = indent;
    for (std::size_t c = 0; c < columns; ++c) {
      line += row[c];
      if (c + 1 < columns) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  printRow(rows_.front());
  std::size_t total = 0;
  for (std::size_t c = 0; c < columns; ++c) total += width[c] + (c + 1 < columns ? 2 : 0);
  out << indent << std::string(total, '-') << '\n';
  for (std::size_t r = 1; r < rows_.size(); ++r) printRow(rows_[r]);
}

}  // namespace loopsim::app
