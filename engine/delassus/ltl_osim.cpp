// `ltl-osim`: the Delassus matrix through the sparse LTDL factors of M
// (Featherstone, IJRR 2010), exactly as the joint-space solvers form it
// (JointSpaceTerms: Y = L⁻ᵀ Jᵀ restricted to each constraint's support,
// Λ⁻¹ = Yᵀ D⁻¹ Y over the supports' intersections). JointSpaceTerms also
// evaluates h and the free acceleration, here at v = 0 and τ = 0: that RNEA
// pass is part of this algorithm's measured cost.
#include <loopsim/delassus/delassus_algorithms.hpp>
#include <loopsim/solvers/joint_space/joint_space_terms.hpp>

namespace loopsim::detail {

namespace {

class LtlOsim final : public DelassusAlgorithm {
 public:
  explicit LtlOsim(const ConstraintSet& set)
      : no_added_inertia_(VectorX::Zero(set.model().nv)),
        terms_(set, no_added_inertia_),
        zero_(VectorX::Zero(set.model().nv)) {}

  std::string_view name() const override { return "ltl-osim"; }

  void compute(const Eigen::Ref<const VectorX>& q, Eigen::Ref<MatrixX> out) override {
    terms_.evaluate(q, zero_, zero_, {});
    out = terms_.delassus();
  }

 private:
  VectorX no_added_inertia_;
  JointSpaceTerms terms_;
  VectorX zero_;
};

}  // namespace

std::unique_ptr<DelassusAlgorithm> makeLtlOsim(const ConstraintSet& set) { return std::make_unique<LtlOsim>(set); }

}  // namespace loopsim::detail
