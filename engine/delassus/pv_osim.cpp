// `pv-osim`: paper 000 Alg. 2 — the constraint-space part of PV's backward
// sweep, in body frames (tree_recursion.hpp): H^A, K^A and L^A carried to the
// world; a floating base is eliminated as a 6-dof joint (line 10, eq. 48), so
// the world's children leave L_0^A = Λ⁻¹ (eq. 35: L_0^A = J M⁻¹ Jᵀ). Rows of
// different world children do not couple (their blocks stay 0).
#include <loopsim/delassus/delassus_algorithms.hpp>
#include <loopsim/solvers/common/tree_recursion.hpp>

namespace loopsim::detail {

namespace {

class PvOsim final : public DelassusAlgorithm {
 public:
  explicit PvOsim(const ConstraintSet& set)
      : no_added_inertia_(VectorX::Zero(set.model().nv)), tree_(set, no_added_inertia_, "delassus algorithm 'pv-osim'") {}

  std::string_view name() const override { return "pv-osim"; }

  void compute(const Eigen::Ref<const VectorX>& q, Eigen::Ref<MatrixX> out) override {
    const Model& model = tree_.model();
    tree_.forwardSweepPositions(q);                                                // lines 1-3
    tree_.clearL();
    for (int i = model.nbodies() - 1; i >= 1; --i) tree_.eliminateJoint(i, true, false);  // lines 4-10
    // Λ⁻¹ = L_0^A (line 11 inverts it; the Delassus matrix is L_0^A itself),
    // back to the constraint set's row order.
    const int m = tree_.dimension();
    for (int r = 0; r < m; ++r) {
      for (int s = 0; s < m; ++s) out(tree_.toGlobal(r), tree_.toGlobal(s)) = tree_.L(r, s);
    }
  }

 private:
  VectorX no_added_inertia_;
  TreeRecursion tree_;
};

}  // namespace

std::unique_ptr<DelassusAlgorithm> makePvOsim(const ConstraintSet& set) { return std::make_unique<PvOsim>(set); }

}  // namespace loopsim::detail
