#include <loopsim/solvers/loops/projected_rnea.hpp>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>

namespace loopsim {

ProjectedRnea::ProjectedRnea(const ConstraintSet& set, const std::vector<int>& independent_dofs)
    : set_(set),
      structure_(set, independent_dofs, "projected RNEA"),
      spanning_(structure_),
      data_(set.model()),
      cdata_(set),
      qdd_(VectorX::Zero(set.model().nv)),
      zero_(VectorX::Zero(set.model().nv)) {
  for (int c = 0; c < set.size(); ++c) couplings_only_ = couplings_only_ && set[c].kind == ConstraintKind::Coupling;
}

bool ProjectedRnea::compute(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                            const Eigen::Ref<const VectorX>& ydd, std::span<const Force> fext,
                            Eigen::Ref<VectorX> tau_independent) {
  const Model& m = set_.model();
  // K, G_k and g_k at the state (eq. 3): a loop's K needs the placements and
  // velocity products, a coupling's only the joint values.
  double pivot_ratio = 1.0;
  if (set_.dimension() > 0) {
    if (!couplings_only_) forwardKinematics(m, data_, q, v, zero_);
    evaluateConstraints(set_, data_, q, v, cdata_, kConstraintErrors | kConstraintJacobian);
    pivot_ratio = spanning_.update(cdata_);
  }
  // q̈ = G ÿ + g (eq. 3); τ = RNEA(q, q̇, q̈) (armature included), τ_y = Gᵀ τ (§II-C).
  spanning_.spanningAcceleration(ydd, qdd_);
  spanning_.projectOnIndependent(rnea(m, data_, q, v, qdd_, fext), tau_independent);
  return pivot_ratio > kSingularPivotRatio;
}

}  // namespace loopsim
