#pragma once
// What a post-step velocity projection needs from a solver at the projected q,
// v ← v − W⁻¹ Jᵀ (J W⁻¹ Jᵀ)⁻¹ J v with W = M + diag(d): the kinematics, W's
// factors, J and the Delassus matrix Λ = J W⁻¹ Jᵀ. A joint-space solver that
// evaluates these terms itself hands them to the projector
// (ConstrainedSolver::sharedProjectionTerms) and keeps them for its next solve
// at the same q and d: the projection then costs the step almost nothing
// beyond the solve it would have run anyway.
#include <Eigen/Core>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/linalg/small_cholesky.hpp>

namespace loopsim {

class ProjectionTerms {
 public:
  explicit ProjectionTerms(int dimension) : delassus_cholesky_(dimension) {}
  virtual ~ProjectionTerms() = default;

  /// Placements at q, W = M + diag(added) factored, φ, J, φ̇ = J v and Λ.
  /// No allocation.
  virtual void evaluateDelassus(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                const VectorX& added) = 0;
  /// φ, φ̇ = J v and J of the last evaluateDelassus.
  virtual const ConstraintData& constraintData() const = 0;
  /// Λ = J W⁻¹ Jᵀ of the last evaluateDelassus, full symmetric.
  virtual const MatrixX& delassus() const = 0;
  /// out = W⁻¹ Jᵀ λ. No allocation.
  virtual void inverseMassTimesJt(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> out) const = 0;

  /// Λ's undamped Cholesky, factored at most once per Λ: a step's velocity
  /// projection and the next solve at the projected q (which keeps Λ) share
  /// one factorisation instead of one each. `pivot_ratio` is
  /// SmallCholesky::factorize's (0: a pivot was not positive). No allocation.
  const SmallCholesky& factoredDelassus(double& pivot_ratio) {
    if (!delassus_factored_) {
      delassus_pivot_ratio_ = delassus_cholesky_.factorize(delassus());
      delassus_factored_ = true;
    }
    pivot_ratio = delassus_pivot_ratio_;
    return delassus_cholesky_;
  }

 protected:
  /// Implementations call this wherever they form a new Λ.
  void delassusChanged() { delassus_factored_ = false; }

 private:
  SmallCholesky delassus_cholesky_;
  double delassus_pivot_ratio_ = 0.0;
  bool delassus_factored_ = false;
};

}  // namespace loopsim
