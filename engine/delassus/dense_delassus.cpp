// `dense`: the reference. CRBA, Cholesky of M, dense J, J M⁻¹ Jᵀ.
#include <Eigen/Cholesky>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/delassus/delassus_algorithms.hpp>

namespace loopsim::detail {

namespace {

class DenseDelassus final : public DelassusAlgorithm {
 public:
  explicit DenseDelassus(const ConstraintSet& set)
      : set_(set),
        data_(set.model()),
        cdata_(set),
        llt_(set.model().nv),
        minv_jt_(MatrixX::Zero(set.model().nv, set.dimension())),
        zero_(VectorX::Zero(set.model().nv)) {}

  std::string_view name() const override { return "dense"; }

  void compute(const Eigen::Ref<const VectorX>& q, Eigen::Ref<MatrixX> out) override {
    crba(set_.model(), data_, q);
    llt_.compute(data_.M);
    computeConstraintTerms(set_, data_, q, zero_, cdata_, kConstraintErrors | kConstraintJacobian);
    minv_jt_ = cdata_.J.transpose();
    llt_.solveInPlace(minv_jt_);
    out.noalias() = cdata_.J * minv_jt_;
  }

 private:
  const ConstraintSet& set_;
  Data data_;
  ConstraintData cdata_;
  Eigen::LLT<MatrixX> llt_;
  MatrixX minv_jt_;
  VectorX zero_;
};

}  // namespace

std::unique_ptr<DelassusAlgorithm> makeDenseDelassus(const ConstraintSet& set) {
  return std::make_unique<DenseDelassus>(set);
}

}  // namespace loopsim::detail
