#pragma once
// List options accept commas and spaces alike: `--solver kkt,ltl`,
// `--solver "kkt ltl"`, `--solver kkt --solver ltl` and `--solver kkt ltl`
// all give {kkt, ltl}.
#include <string>
#include <vector>

namespace loopsim::app {

/// Splits every value on commas and whitespace; empty pieces are dropped.
inline std::vector<std::string> splitListValues(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& value : values) {
    std::string piece;
    for (char c : value) {
      if (c == ',' || c == ' ' || c == '\t' || c == '\n') {
        if (!piece.empty()) out.push_back(piece);
        piece.clear();
      } else {
        piece += c;
      }
    }
    if (!piece.empty()) out.push_back(piece);
  }
  return out;
}

}  // namespace loopsim::app
