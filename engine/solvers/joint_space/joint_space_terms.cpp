#include <loopsim/solvers/joint_space/joint_space_terms.hpp>

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

// Marks the dofs of `joint` and of all its ancestors.
void markPathToRoot(const Model& model, int joint, std::vector<char>& marked) {
  for (int j = joint; j > 0; j = model.parent[j]) {
    for (int k = 0; k < model.joint_nv[j]; ++k) marked[model.idx_v[j] + k] = 1;
  }
}

}  // namespace

JointSpaceTerms::JointSpaceTerms(const ConstraintSet& set, const VectorX& added_inertia)
    : set_(set),
      added_inertia_(added_inertia),
      data_(set.model()),
      cdata_(set),
      ltl_(set.model()),
      Y_(MatrixX::Zero(set.model().nv, set.dimension())),
      delassus_(MatrixX::Zero(set.dimension(), set.dimension())),
      vdot_free_(VectorX::Zero(set.model().nv)),
      rhs_(VectorX::Zero(set.dimension())),
      force_(VectorX::Zero(set.model().nv)),
      positions_q_(VectorX::Zero(set.model().nq)),
      positions_added_(VectorX::Zero(set.model().nv)),
      mass_diagonal_(VectorX::Zero(set.model().nv)) {
  const Model& model = set.model();
  const int nc = set.size();
  std::vector<std::vector<char>> masks(nc, std::vector<char>(model.nv, 0));
  for (int c = 0; c < nc; ++c) {
    const Constraint& con = set[c];
    if (con.kind == ConstraintKind::Coupling) {
      for (int j : con.coupling_joints) markPathToRoot(model, j, masks[c]);
    } else {
      markPathToRoot(model, con.body1, masks[c]);
      markPathToRoot(model, con.body2, masks[c]);
    }
  }
  support_begin_.push_back(0);
  for (int c = 0; c < nc; ++c) {
    for (int i = 0; i < model.nv; ++i) {
      if (masks[c][i]) support_dofs_.push_back(i);
    }
    support_begin_.push_back(static_cast<int>(support_dofs_.size()));
  }
  pair_begin_.push_back(0);
  for (int c = 0; c < nc; ++c) {
    for (int d = c; d < nc; ++d) {
      for (int i = 0; i < model.nv; ++i) {
        if (masks[c][i] && masks[d][i]) pair_dofs_.push_back(i);
      }
      pair_begin_.push_back(static_cast<int>(pair_dofs_.size()));
    }
  }
}

std::span<const int> JointSpaceTerms::support(int c) const {
  return {support_dofs_.data() + support_begin_[c], support_dofs_.data() + support_begin_[c + 1]};
}

std::span<const int> JointSpaceTerms::intersection(int c, int d) const {
  if (c > d) std::swap(c, d);
  // Pairs are stored row by row over the upper triangle (c <= d).
  const int nc = set_.size();
  const int index = c * nc - c * (c - 1) / 2 + (d - c);
  return {pair_dofs_.data() + pair_begin_[index], pair_dofs_.data() + pair_begin_[index + 1]};
}

void JointSpaceTerms::evaluate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                               const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext) {
  const Model& model = set_.model();
  // Position terms of the last evaluation at the same q (the same bits) still
  // hold: a step's velocity projection leaves the placements, M and J to the
  // next solve at its q, and M's factors, Y and Λ too when the added diagonal
  // is the same as well.
  const bool same_q = positions_valid_ && q == positions_q_;
  const bool same_factors = same_q && added_inertia_ == positions_added_;
  if (same_q) {
    forwardVelocitiesAtPlacements(model, data_, v, cdata_.zero_nv);
  } else {
    // One kinematics pass (joint transforms, placements, velocities, bias
    // accelerations) shared by RNEA, CRBA and the constraint terms.
    forwardKinematics(model, data_, q, v, cdata_.zero_nv);
  }
  // h - Σ Jᵀ f_ext from RNEA at zero acceleration, then M = Lᵀ D L.
  biasForcesAtKinematics(model, data_, fext);
  vdot_free_ = tau - data_.tau;
  if (!same_q) {
    factorizeMass(added_inertia_);
  } else if (!same_factors) {
    refactorMass(added_inertia_);
  }
  if (!same_factors) holdPositions(q, added_inertia_);
  ltl_.solve(vdot_free_);  // v̇_free = M⁻¹(τ - h + Σ Jᵀ f_ext)
  if (set_.dimension() == 0) return;
  // k at the new v; J only at a new q.
  evaluateConstraints(set_, data_, q, v, cdata_, same_q ? kConstraintErrors : kConstraintErrors | kConstraintJacobian);
  if (!same_factors) {
    reduceJacobian();  // Y and Λ go with M's factors
    assembleDelassus();
  }
  updateRhs();
}

void JointSpaceTerms::holdPositions(const Eigen::Ref<const VectorX>& q, const VectorX& added) {
  positions_q_ = q;
  positions_added_ = added;
  positions_valid_ = true;
}

void JointSpaceTerms::updateRhs() {
  const MatrixX& J = cdata_.J;
  for (int c = 0; c < set_.size(); ++c) {
    const std::span<const int> dofs = support(c);
    const int offset = set_.rowOffset(c);
    for (int r = offset; r < offset + set_[c].dimension(); ++r) {
      double j_vdot_free = 0.0;
      for (int i : dofs) j_vdot_free += J(r, i) * vdot_free_[i];
      rhs_[r] = cdata_.k[r] - j_vdot_free;
    }
  }
}

void JointSpaceTerms::evaluateDelassus(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                       const VectorX& added) {
  forwardKinematics(set_.model(), data_, q, v, cdata_.zero_nv);
  factorizeMass(added);
  if (set_.dimension() > 0) {
    evaluateConstraints(set_, data_, q, v, cdata_, kConstraintErrors | kConstraintJacobian);
    reduceJacobian();
    assembleDelassus();
  }
  holdPositions(q, added);
}

void JointSpaceTerms::factorizeMass(const VectorX& added) {
  crbaAtKinematics(set_.model(), data_);  // data_.M is ours: only its pattern is ever written
  mass_diagonal_ = data_.M.diagonal();
  data_.M.diagonal() += added;            // implicit damping: M + dt·D
  ltl_.factorize(data_.M);
}

void JointSpaceTerms::refactorMass(const VectorX& added) {
  data_.M.diagonal() = mass_diagonal_ + added;  // the same bits as CRBA's M + added
  ltl_.factorize(data_.M);
}

void JointSpaceTerms::reduceJacobian() {
  const MatrixX& J = cdata_.J;
  for (int c = 0; c < set_.size(); ++c) {
    const std::span<const int> dofs = support(c);
    const int offset = set_.rowOffset(c);
    for (int r = offset; r < offset + set_[c].dimension(); ++r) {
      // Column r of Y = L⁻ᵀ (row r of J)ᵀ, touching S_c only.
      auto y = Y_.col(r);
      for (int i : dofs) y[i] = J(r, i);
      ltl_.solveLt(y, dofs);
    }
  }
}

void JointSpaceTerms::assembleDelassus() {
  const VectorX& Dinv = ltl_.inverseD();
  for (int c = 0; c < set_.size(); ++c) {
    const int oc = set_.rowOffset(c), mc = set_[c].dimension();
    for (int d = c; d < set_.size(); ++d) {
      const int od = set_.rowOffset(d), md = set_[d].dimension();
      const std::span<const int> shared = intersection(c, d);
      for (int r = oc; r < oc + mc; ++r) {
        const auto yr = Y_.col(r);
        for (int s = (c == d ? r : od); s < od + md; ++s) {
          const auto ys = Y_.col(s);
          double sum = 0.0;
          for (int i : shared) sum += yr[i] * ys[i] * Dinv[i];  // Λ_rs = Σ_i Y_ir D_i⁻¹ Y_is
          delassus_(r, s) = sum;
          delassus_(s, r) = sum;
        }
      }
    }
  }
}

void JointSpaceTerms::acceleration(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> vdot) {
  inverseMassTimesJt(lambda, force_);
  vdot = vdot_free_ + force_;
}

void JointSpaceTerms::inverseMassTimesJt(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> out) const {
  out.setZero();
  for (int c = 0; c < set_.size(); ++c) {
    const int offset = set_.rowOffset(c);
    for (int r = offset; r < offset + set_[c].dimension(); ++r) {
      const auto y = Y_.col(r);
      const double lr = lambda[r];
      for (int i : support(c)) out[i] += y[i] * lr;  // L⁻ᵀ Jᵀ λ
    }
  }
  ltl_.solveD(out);
  ltl_.solveL(out);
}

double JointSpaceTerms::residual(const Eigen::Ref<const VectorX>& vdot) const {
  const MatrixX& J = cdata_.J;
  double worst = 0.0;
  for (int c = 0; c < set_.size(); ++c) {
    const int offset = set_.rowOffset(c);
    for (int r = offset; r < offset + set_[c].dimension(); ++r) {
      double jv = 0.0;
      for (int i : support(c)) jv += J(r, i) * vdot[i];
      worst = std::max(worst, std::abs(jv - cdata_.k[r]));
    }
  }
  return worst;
}

void throwRankDeficient(const ConstraintSet& set, const MatrixX& J, std::string_view solver) {
  Eigen::ColPivHouseholderQR<MatrixX> qr(J.transpose());
  qr.setThreshold(1e-9);
  const int rank = static_cast<int>(qr.rank());
  std::ostringstream os;
  os << "constraint set is rank deficient (rank " << rank << " of " << J.rows() << " rows); dependent rows:";
  const auto& perm = qr.colsPermutation().indices();
  for (int r = rank; r < J.rows(); ++r) os << (r == rank ? " " : ", ") << set.rowDescription(perm[r]);
  os << ". Use a proximal solver (e.g. prox-ltl) and declare `redundant: true` in the scene";
  throw ModelError(set.model().source_file, "solver '" + std::string(solver) + "'", os.str());
}

void JointSpaceTerms::throwRankDeficient(std::string_view solver) const {
  loopsim::throwRankDeficient(set_, cdata_.J, solver);
}

bool choleskyCollapsed(const MatrixX& A, const Eigen::LLT<MatrixX>& llt) {
  if (llt.info() != Eigen::Success) return true;
  const double scale = A.diagonal().maxCoeff();
  const double min_pivot = llt.matrixLLT().diagonal().minCoeff();
  return !(min_pivot * min_pivot > 1e-12 * scale);
}

}  // namespace loopsim
