#pragma once
// "did you mean" suggestions for misspelt keys and names.
#include <string>
#include <vector>

namespace loopsim {

/// Levenshtein distance.
int editDistance(const std::string& a, const std::string& b);

/// " (did you mean 'x'?)" for the nearest candidate within a few edits
/// (scaled with the length of the name), else "".
std::string didYouMean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace loopsim
