#pragma once
// The numerical rank of a constraint set at a configuration, naming the rows
// that depend on earlier ones: exact solvers need independent rows.
#include <string_view>
#include <vector>

#include <loopsim/constraints/constraint.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/model.hpp>

namespace loopsim {

/// Numerical rank of the constraint Jacobian at (q, v = 0), by column-pivoted
/// QR of Jᵀ; dependent_rows are the global rows that depend on earlier ones.
struct ConstraintRank {
  int dimension = 0;
  int rank = 0;
  std::vector<int> dependent_rows;
};
ConstraintRank constraintRank(const Model& model, const std::vector<Constraint>& constraints, const VectorX& q);

/// The dense rank check costs about nv·m² flops (Householder QR of the
/// nv x m matrix Jᵀ); above this budget (~10 s) it is not run at load.
inline constexpr double kRankCheckMaxFlops = 2e10;
/// Whether constraintRank fits the budget for a set of `rows` rows on this model.
bool rankCheckAffordable(const Model& model, int rows);

/// Error path of exact solvers (allocates): ranks the rows of J by a
/// column-pivoting QR of Jᵀ and throws a ModelError naming the dependent rows
/// and suggesting a proximal solver.
[[noreturn]] void throwRankDeficient(const ConstraintSet& set, const MatrixX& J, std::string_view solver);

}  // namespace loopsim
