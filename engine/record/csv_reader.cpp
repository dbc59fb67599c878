#include "record/csv_reader.hpp"

#include <charconv>
#include <fstream>
#include <unordered_map>

#include "model/errors.hpp"

namespace loopsim {

int CsvTable::column(const std::string& name) const {
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (columns[c] == name) return static_cast<int>(c);
  }
  return -1;
}

int CsvTable::requireColumn(const std::string& name) const {
  const int c = column(name);
  if (c < 0) throw ModelError(file, "column '" + name + "'", "missing from the header");
  return c;
}

namespace {
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    out.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (auto& cell : out) {
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
  }
  return out;
}
}  // namespace

CsvTable readCsv(const std::filesystem::path& path) {
  CsvTable table;
  table.file = path.string();
  std::ifstream in(path);
  if (!in) throw ModelError(table.file, "", "cannot open file");
  std::string line;
  if (!std::getline(in, line)) throw ModelError(table.file, "line 1", "empty file (expected a header of column names)");
  // A UTF-8 byte order mark (spreadsheets write one) is not part of the first column's name.
  if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
  table.columns = split(line);
  std::unordered_map<std::string, std::size_t> first_column;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    const std::string& name = table.columns[c];
    if (name.empty()) throw ModelError(table.file, "line 1, column " + std::to_string(c + 1), "empty column name");
    const auto [it, inserted] = first_column.emplace(name, c);
    if (!inserted) {
      throw ModelError(table.file, "line 1, column " + std::to_string(c + 1) + " '" + name + "'",
                       "duplicate column (also column " + std::to_string(it->second + 1) + "); give each column once");
    }
  }
  int line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line == "\r") continue;
    const auto cells = split(line);
    const std::string where = "line " + std::to_string(line_number);
    if (cells.size() != table.columns.size()) {
      throw ModelError(table.file, where, "has " + std::to_string(cells.size()) + " values, the header has " +
                                              std::to_string(table.columns.size()));
    }
    std::vector<double> row(cells.size());
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string& cell = cells[c];
      const char* first = cell.data();
      if (!cell.empty() && cell[0] == '+') ++first;
      const auto [ptr, ec] = std::from_chars(first, cell.data() + cell.size(), row[c]);
      if (ec != std::errc() || ptr != cell.data() + cell.size() || cell.empty()) {
        throw ModelError(table.file, where + ", column '" + table.columns[c] + "'", "not a number: '" + cell + "'");
      }
    }
    table.rows.push_back(std::move(row));
    table.line_numbers.push_back(line_number);
  }
  return table;
}

}  // namespace loopsim
