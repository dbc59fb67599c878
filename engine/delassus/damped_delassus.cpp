#include <loopsim/delassus/damped_delassus.hpp>

#include <cmath>

#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

double checkedInverseDamping(const ConstraintSet& set, double damping) {
  if (!(damping > 0.0) || !std::isfinite(damping)) {
    throw ModelError(set.model().source_file, "delassus damping",
                     "mu must be positive and finite, got " + std::to_string(damping));
  }
  return 1.0 / damping;
}

}  // namespace

DampedDelassusInverse::DampedDelassusInverse(const ConstraintSet& set, const std::string& algorithm, double damping)
    : inverse_damping_(checkedInverseDamping(set, damping)),
      damped_(MatrixX::Zero(set.dimension(), set.dimension())),
      llt_(set.dimension()) {
  for (const auto& info : delassusAlgorithms()) {
    if (info.name == algorithm && info.loops_closed) {
      // Their loop rows are 0 by definition: μ⁻¹I there would invent entries.
      throw ModelError(set.model().source_file, "algorithm '" + algorithm + "'",
                       "the damped inverse is defined for J M⁻¹ Jᵀ of the tree; '" + algorithm +
                           "' closes the internal loops (use dense, ltl-osim, pv-osim, efpa or pv-osimr)");
    }
  }
  if (algorithm == "pv-osim-fast") fast_ = std::make_unique<PvOsimFast>(set, damping);
  else matrix_algorithm_ = makeDelassusAlgorithm(algorithm, set);
}

void DampedDelassusInverse::compute(const Eigen::Ref<const VectorX>& q, Eigen::Ref<MatrixX> out) {
  if (fast_) {
    // Eq. 55 with L_b^A + μ⁻¹I, as matrices.
    fast_->factor(q);
    fast_->inverse(out);
    return;
  }
  out.setIdentity();
  matrix_algorithm_->compute(q, damped_);
  damped_.diagonal().array() += inverse_damping_;
  llt_.compute(damped_);  // J M⁻¹ Jᵀ ⪰ 0, so Λ_μ ≻ 0
  llt_.solveInPlace(out);
}

MatrixX computeDampedDelassusInverse(const ConstraintSet& set, const Eigen::Ref<const VectorX>& q,
                                     const std::string& algorithm, double damping) {
  DampedDelassusInverse inverse(set, algorithm, damping);
  MatrixX out = MatrixX::Zero(set.dimension(), set.dimension());
  inverse.compute(q, out);
  return out;
}

}  // namespace loopsim
