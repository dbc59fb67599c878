#pragma once
// The damped Delassus inverse (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹ of a constraint set at q:
// paper 001 §III-E's Λ_μ (eq. 13), the matrix the proximal solvers factor
// (prox-ltl, prox-pv), inverted. μ is paper 001's (large μ = nearly undamped).
//   - the matrix algorithms of delassus.hpp form J M⁻¹ Jᵀ, add μ⁻¹ on the
//     diagonal and invert by Cholesky (positive definite for every set, rank
//     deficient ones included);
//   - `pv-osim-fast` never forms the Delassus matrix: paper 000 eq. 55 on
//     L_b^A + μ⁻¹I (pv_osim_fast.hpp) gives the inverse as matrices, and
//     damped it also takes the sets the undamped lemma refuses (a constraint
//     on the base link, more rows on a branch than it can move).
#include <memory>
#include <string>

#include <loopsim/delassus/delassus.hpp>
#include <loopsim/delassus/pv_osim_fast.hpp>

namespace loopsim {

class DampedDelassusInverse {
 public:
  /// `algorithm`: a name of delassusAlgorithms() or "pv-osim-fast". Throws
  /// ModelError for an unknown name, a set the algorithm cannot take, or a
  /// damping that is not positive and finite (the value named).
  DampedDelassusInverse(const ConstraintSet& set, const std::string& algorithm, double damping);

  /// out (m x m, preallocated) = (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹ at q. No allocation.
  void compute(const Eigen::Ref<const VectorX>& q, Eigen::Ref<MatrixX> out);

 private:
  double inverse_damping_;
  std::unique_ptr<DelassusAlgorithm> matrix_algorithm_;  // set unless pv-osim-fast
  std::unique_ptr<PvOsimFast> fast_;                     // pv-osim-fast
  MatrixX damped_;
  Eigen::LLT<MatrixX> llt_;
};

/// One call: (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹ of `set` at q by `algorithm`.
MatrixX computeDampedDelassusInverse(const ConstraintSet& set, const Eigen::Ref<const VectorX>& q,
                                     const std::string& algorithm, double damping);

}  // namespace loopsim
