#pragma once
// What the joint-space terms (JointSpaceTerms, DenseJointSpaceTerms) keep
// between evaluations: the q and the added diagonal their position terms
// (placements, M, J, M's factors, Λ) belong to, and CRBA's diagonal of M, so
// that another added diagonal at the same q gives M + diag(added) to the same
// bits as CRBA's M + added, without a new CRBA.
#include <loopsim/model/data.hpp>
#include <loopsim/spatial/types.hpp>

namespace loopsim {

class HeldPositionTerms {
 public:
  HeldPositionTerms(int nq, int nv) : q_(VectorX::Zero(nq)), added_(VectorX::Zero(nv)), crba_diagonal_(VectorX::Zero(nv)) {}

  /// The placements, M and J held are those at q (the same bits).
  bool sameQ(const Eigen::Ref<const VectorX>& q) const { return valid_ && q == q_; }
  /// M's factors (and what depends on them) are those of M(q) + diag(added) too.
  bool sameFactors(const Eigen::Ref<const VectorX>& q, const VectorX& added) const {
    return sameQ(q) && added == added_;
  }
  void hold(const Eigen::Ref<const VectorX>& q, const VectorX& added) {
    q_ = q;
    added_ = added;
    valid_ = true;
  }

  /// Right after CRBA: keeps M's diagonal, then M += diag(added) (implicit damping: M + dt·D).
  void addToDiagonal(MatrixX& M, const VectorX& added) {
    crba_diagonal_ = M.diagonal();
    M.diagonal() += added;
  }
  /// The same M(q) with another added diagonal.
  void replaceDiagonal(MatrixX& M, const VectorX& added) const { M.diagonal() = crba_diagonal_ + added; }

 private:
  VectorX q_, added_;
  VectorX crba_diagonal_;
  bool valid_ = false;
};

}  // namespace loopsim
