#pragma once
// Internal to engine/delassus: one factory per algorithm file.
#include <memory>

#include <loopsim/delassus/delassus.hpp>

namespace loopsim::detail {

std::unique_ptr<DelassusAlgorithm> makeDenseDelassus(const ConstraintSet& set);
std::unique_ptr<DelassusAlgorithm> makeLtlOsim(const ConstraintSet& set);
std::unique_ptr<DelassusAlgorithm> makePvOsim(const ConstraintSet& set);
std::unique_ptr<DelassusAlgorithm> makeEfpa(const ConstraintSet& set);
std::unique_ptr<DelassusAlgorithm> makePvOsimr(const ConstraintSet& set);

}  // namespace loopsim::detail
