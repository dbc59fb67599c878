#pragma once
// Internal to engine/delassus: one factory per algorithm file.
#include <memory>
#include <vector>

#include <loopsim/delassus/delassus.hpp>

namespace loopsim::detail {

std::unique_ptr<DelassusAlgorithm> makeDenseDelassus(const ConstraintSet& set);
std::unique_ptr<DelassusAlgorithm> makeLtlOsim(const ConstraintSet& set);
std::unique_ptr<DelassusAlgorithm> makePvOsim(const ConstraintSet& set);
std::unique_ptr<DelassusAlgorithm> makeEfpa(const ConstraintSet& set);
std::unique_ptr<DelassusAlgorithm> makePvOsimr(const ConstraintSet& set);
std::unique_ptr<DelassusAlgorithm> makeDenseClosedDelassus(const ConstraintSet& set);
std::unique_ptr<DelassusAlgorithm> makeClusterEfpa(const ConstraintSet& set, const std::vector<int>& independent_dofs);
std::unique_ptr<DelassusAlgorithm> makeProjectionDelassus(const ConstraintSet& set,
                                                          const std::vector<int>& independent_dofs);

}  // namespace loopsim::detail
