#include <loopsim/model/name_suggestion.hpp>

#include <algorithm>

namespace loopsim {

int editDistance(const std::string& a, const std::string& b) {
  std::vector<int> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    int diag = row[0];
    row[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string didYouMean(const std::string& name, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  int best_distance = 1 << 30;
  for (const auto& c : candidates) {
    const int d = editDistance(name, c);
    if (d < best_distance) best_distance = d, best = &c;
  }
  const int allowed = std::max(2, static_cast<int>(name.size()) / 3);
  if (best != nullptr && best_distance <= allowed) return " (did you mean '" + *best + "'?)";
  // A name missing its prefix or suffix ("crank" for "crank_joint", "knee" for "left_knee").
  if (name.size() >= 3) {
    for (const auto& c : candidates) {
      if (c.find(name) != std::string::npos) return " (did you mean '" + c + "'?)";
    }
  }
  return {};
}

}  // namespace loopsim
