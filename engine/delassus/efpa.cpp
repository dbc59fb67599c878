// `efpa`: the extended force propagator algorithm (paper 002 Alg. 2), in body
// frames. Backward sweep: ABA's H^A and each constraint row carried to every
// ancestor i as the CEMP ^iK_r (a 6-row in body i's frame, "K P^T" at each
// joint: line 11). Forward sweep (lines 12-16): A_{i,r} = ^0Ω_i ^iK_rᵀ, the
// acceleration of link i caused by a unit λ_r:
//     A_{i,r} = P_iᵀ X_{i←π(i)} A_{π(i),r} + S_i D_i⁻¹ S_iᵀ ^iK_rᵀ   (A_{0,r} = 0),
// with P_iᵀ = I - S_i D_i⁻¹ U_iᵀ the motion propagator. Assembly (line 19):
// Λ⁻¹_{r,s} = ^cK_r · A_{c,s}, c = cca(body_r, body_s) (0 when it is the world).
// O(n + md + m²).
#include <vector>

#include <loopsim/model/joint_motion.hpp>
#include <loopsim/delassus/delassus_algorithms.hpp>
#include <loopsim/solvers/common/tree_recursion.hpp>

namespace loopsim::detail {

namespace {

class Efpa final : public DelassusAlgorithm {
 public:
  explicit Efpa(const ConstraintSet& set)
      : no_added_inertia_(VectorX::Zero(set.model().nv)),
        tree_(set, no_added_inertia_, "delassus algorithm 'efpa'"),
        m_(set.dimension()),
        cemp_(Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(set.model().nbodies() * set.dimension(), 6)),
        accel_(Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(set.model().nbodies() * set.dimension(), 6)),
        cca_(set.dimension() * set.dimension(), 0) {
    const Model& model = set.model();
    // Closest common ancestor of every pair of constrained bodies (bind time).
    auto ancestor_or_self = [&](int a, int b) {  // is a an ancestor of b (or b)?
      return a <= b && b < (a == 0 ? model.nbodies() : model.subtree_end[a]);
    };
    for (int r = 0; r < m_; ++r) {
      for (int s = 0; s < m_; ++s) {
        int c = tree_.rowBody(r);
        while (c != 0 && !ancestor_or_self(c, tree_.rowBody(s))) c = model.parent[c];
        cca_[r * m_ + s] = c;
      }
    }
  }

  std::string_view name() const override { return "efpa"; }

  void compute(const Eigen::Ref<const VectorX>& q, Eigen::Ref<MatrixX> out) override {
    const Model& model = tree_.model();
    const Data& data = tree_.data;
    tree_.forwardSweepPositions(q);  // lines 1-2
    // Backward sweep (lines 3-11): store ^iK_r before joint i moves them on.
    for (int i = model.nbodies() - 1; i >= 1; --i) {
      const int b = tree_.rowsBegin(i), n = tree_.rowsEnd(i) - b;
      if (n > 0) cemp_.middleRows(i * m_ + b, n) = tree_.K.middleRows(b, n);
      tree_.eliminateJoint(i, true, false, false);
    }
    // Second forward sweep (lines 12-16).
    for (int i = 1; i < model.nbodies(); ++i) {
      const int b = tree_.rowsBegin(i), n = tree_.rowsEnd(i) - b;
      if (n == 0) continue;
      const int p = model.parent[i];
      detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
        constexpr int NV = decltype(nv_tag)::value;
        const int iv = model.idx_v[i];
        const auto S = data.S.middleCols<NV>(iv);
        const auto U = data.U.middleCols<NV>(iv);
        const auto Dinv = data.Dinv[i].topLeftCorner<NV, NV>();
        for (int r = b; r < b + n; ++r) {
          Vector6 a = Vector6::Zero();
          if (p != 0) a = data.liMi[i].actInv(Motion(Vector6(accel_.row(p * m_ + r).transpose()))).toVector();
          const Vector6 k = cemp_.row(i * m_ + r).transpose();
          const Eigen::Matrix<double, NV, 1> x = Dinv * (S.transpose() * k - U.transpose() * a);
          accel_.row(i * m_ + r) = (a + S * x).transpose();
        }
      });
    }
    // Assembly (lines 18-19).
    for (int r = 0; r < m_; ++r) {
      for (int s = r; s < m_; ++s) {
        const int c = cca_[r * m_ + s];
        const double value = c == 0 ? 0.0 : cemp_.row(c * m_ + r).dot(accel_.row(c * m_ + s));
        out(tree_.toGlobal(r), tree_.toGlobal(s)) = value;
        out(tree_.toGlobal(s), tree_.toGlobal(r)) = value;
      }
    }
  }

 private:
  VectorX no_added_inertia_;
  TreeRecursion tree_;
  int m_;
  Eigen::Matrix<double, Eigen::Dynamic, 6> cemp_;   // row i*m + r: ^iK_r (body i frame)
  Eigen::Matrix<double, Eigen::Dynamic, 6> accel_;  // row i*m + r: (^0Ω_i ^iK_rᵀ)ᵀ
  std::vector<int> cca_;                            // r*m + s: closest common ancestor body
};

}  // namespace

std::unique_ptr<DelassusAlgorithm> makeEfpa(const ConstraintSet& set) { return std::make_unique<Efpa>(set); }

}  // namespace loopsim::detail
