#pragma once
// `pv-early`: PV with early elimination of the multipliers (paper 000 §VIII,
// eqs. 56-68 with the eq. 63 erratum; the sweeps are in pv_early_recursion.hpp).
// O(n + m) while at most 6 rows travel (Remark 9). Rows still travelling at
// the world are dependent: the set is rank deficient (an error naming the rows).
#include <loopsim/solvers/recursive/pv_early_recursion.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

class PvEarlySolver final : public ConstrainedSolver {
 public:
  /// Throws ModelError when the set has internal loops or couplings.
  PvEarlySolver(const ConstraintSet& constraints, const SolverSettings& settings);

  std::string_view name() const override { return "pv-early"; }
  SolverCapabilities capabilities() const override { return staticCapabilities(); }
  static SolverCapabilities staticCapabilities() {
    return {.world_constraints = true};
  }

  /// Throws ModelError naming the dependent rows when the set is rank deficient.
  SolveStats solve(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                   const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext, Eigen::Ref<VectorX> vdot,
                   Eigen::Ref<VectorX> lambda) override;

 private:
  [[noreturn]] void throwRankDeficient(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v) const;

  PvEarlyRecursion early_;  // the sweeps (no compliance)
};

}  // namespace loopsim
