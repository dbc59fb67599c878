#include <loopsim/solvers/recursive/soft_weights.hpp>

#include <cmath>
#include <string>

#include <loopsim/model/errors.hpp>

namespace loopsim {

VectorX rowWeights(const ConstraintSet& set, const SolverSettings& settings, std::string_view solver) {
  const std::string& file = set.model().source_file;
  const std::string element = "solver '" + std::string(solver) + "'";
  const auto& weights = settings.soft_weights;
  if (!weights.empty() && static_cast<int>(weights.size()) != set.size()) {
    throw ModelError(file, element,
                     "soft_weights has " + std::to_string(weights.size()) + " entries for " +
                         std::to_string(set.size()) + " constraints (one per constraint, or none)");
  }
  VectorX w(set.dimension());
  for (int c = 0; c < set.size(); ++c) {
    const double wc = weights.empty() ? settings.soft_weight : weights[c];
    if (!(wc > 0.0) || !std::isfinite(wc)) {
      throw ModelError(file, element + ", constraint '" + set[c].name + "'",
                       "soft weight must be positive and finite, got " + std::to_string(wc));
    }
    w.segment(set.rowOffset(c), set[c].dimension()).setConstant(wc);
  }
  return w;
}

}  // namespace loopsim
