#pragma once
// "did you mean" suggestions for misspelt keys and names.
#include <string>
#include <vector>

namespace loopsim {

/// Levenshtein distance.
int editDistance(const std::string& a, const std::string& b);

/// " (did you mean 'x'?)" for the nearest candidate within a few edits
/// (scaled with the length of the name), else the first candidate containing
/// the name (a missing prefix or suffix), else "".
std::string didYouMean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace loopsim
