#include <loopsim/bench/case_grid.hpp>

#include <algorithm>

namespace loopsim {

void CaseGrid::set(const std::string& case_name, const std::string& column, std::string text) {
  if (std::find(columns.begin(), columns.end(), column) == columns.end()) columns.push_back(column);
  if (std::find(cases.begin(), cases.end(), case_name) == cases.end()) cases.push_back(case_name);
  cells[{case_name, column}] = std::move(text);
}

std::string CaseGrid::format() const {
  auto cell = [&](const std::string& c, const std::string& column) -> std::string {
    const auto it = cells.find({c, column});
    return it == cells.end() ? "-" : it->second;
  };
  auto pad = [](const std::string& x, std::size_t w) { return x + std::string(w > x.size() ? w - x.size() : 0, ' '); };
  std::size_t case_width = 4;
  for (const auto& c : cases) case_width = std::max(case_width, c.size());
  std::vector<std::size_t> widths;
  for (const auto& column : columns) {
    std::size_t w = column.size();
    for (const auto& c : cases) w = std::max(w, cell(c, column).size());
    widths.push_back(w);
  }
  std::string out = pad("case", case_width);
  for (std::size_t k = 0; k < columns.size(); ++k) out += "  " + pad(columns[k], widths[k]);
  out += "\n";
  for (const auto& c : cases) {
    out += pad(c, case_width);
    for (std::size_t k = 0; k < columns.size(); ++k) out += "  " + pad(cell(c, columns[k]), widths[k]);
    out += "\n";
  }
  return out;
}

}  // namespace loopsim
