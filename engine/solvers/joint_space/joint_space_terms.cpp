#include <loopsim/solvers/joint_space/joint_space_terms.hpp>

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/constraints/constraint_position_terms.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

// Marks the dofs of `joint` and of all its ancestors.
void markPathToRoot(const Model& model, int joint, std::vector<char>& marked) {
  for (int j = joint; j > 0; j = model.parent[j]) {
    for (int k = 0; k < model.joint_nv[j]; ++k) marked[model.idx_v[j] + k] = 1;
  }
}

// Calls body(std::integral_constant<int, W>) with W = width for the common
// constraint widths (a weld's 6 rows, a point's 3, a coupling's 1) so that the
// row loops have a compile-time length, and W = 0 for any other width.
template <class Body>
void withRowWidth(int width, Body&& body) {
  switch (width) {
    case 1: body(std::integral_constant<int, 1>{}); break;
    case 3: body(std::integral_constant<int, 3>{}); break;
    case 6: body(std::integral_constant<int, 6>{}); break;
    default: body(std::integral_constant<int, 0>{}); break;
  }
}

template <int W>
constexpr int rowWidth(std::integral_constant<int, W>, int width) {
  return W > 0 ? W : width;
}

// Σ_k s_k a_k b_kᵀ over k in [0, count): column j of the Wa x Wb result held
// in a local array. Through Eigen's fixed-size outer products GCC stored the
// accumulator back to the stack at every update and cleared it with a memset
// call (docs/performance.md). `a_at(k)`,
// `b_at(k)` and `scale_at(k)` give the k-th factors; a_k is scaled as
// (s_k a_k) for the diagonal blocks and b_k as (s_k b_k) for the others, the
// products in the order the blocks were formed before.
template <int Wa, int Wb, bool kScaleA, class A, class B, class S>
Eigen::Matrix<double, Wa, Wb> sumOfScaledOuterProducts(int count, A&& a_at, B&& b_at, S&& scale_at) {
  double sum[Wb][Wa] = {};
  for (int k = 0; k < count; ++k) {
    const double* a = a_at(k);
    const double* b = b_at(k);
    const double s = scale_at(k);
    if constexpr (kScaleA) {
      double sa[Wa];
      for (int i = 0; i < Wa; ++i) sa[i] = s * a[i];
      for (int j = 0; j < Wb; ++j)
        for (int i = 0; i < Wa; ++i) sum[j][i] += sa[i] * b[j];
    } else {
      for (int j = 0; j < Wb; ++j) {
        const double sb = s * b[j];
        for (int i = 0; i < Wa; ++i) sum[j][i] += a[i] * sb;
      }
    }
  }
  Eigen::Matrix<double, Wa, Wb> out;
  for (int j = 0; j < Wb; ++j)
    for (int i = 0; i < Wa; ++i) out(i, j) = sum[j][i];
  return out;
}

}  // namespace

JointSpaceTerms::JointSpaceTerms(const ConstraintSet& set, const VectorX& added_inertia)
    : ProjectionTerms(set.dimension()),
      set_(set),
      added_inertia_(added_inertia),
      data_(set.model()),
      cdata_(set),
      end_bodies_(set.endBodies()),
      ltl_(set.model()),
      delassus_(MatrixX::Zero(set.dimension(), set.dimension())),
      free_scaled_(VectorX::Zero(set.model().nv)),
      rhs_(VectorX::Zero(set.dimension())),
      force_(VectorX::Zero(set.model().nv)),
      held_(set.model().nq, set.model().nv) {
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
  y_begin_.push_back(0);
  for (int c = 0; c < nc; ++c) {
    const int first = static_cast<int>(support_dofs_.size());
    for (int i = 0; i < model.nv; ++i) {
      if (masks[c][i]) support_dofs_.push_back(i);
    }
    const int last = static_cast<int>(support_dofs_.size());
    support_begin_.push_back(last);
    for (int p = first; p < last; ++p) {
      int run = 0;
      while (p + 1 + run < last && support_dofs_[p + 1 + run] < ltl_.subtreeEnd(support_dofs_[p])) ++run;
      descendant_run_.push_back(run);
    }
    y_begin_.push_back(y_begin_.back() + (last - first) * set[c].dimension());
  }
  y_values_.assign(y_begin_.back(), 0.0);
  pair_begin_.push_back(0);
  for (int c = 0; c < nc; ++c) {
    for (int d = c + 1; d < nc; ++d) {
      const std::span<const int> sc = support(c), sd = support(d);
      for (int pc = 0, pd = 0; pc < static_cast<int>(sc.size()) && pd < static_cast<int>(sd.size());) {
        if (sc[pc] < sd[pd]) {
          ++pc;
        } else if (sd[pd] < sc[pc]) {
          ++pd;
        } else {
          pair_dofs_.push_back({pc, pd, sc[pc]});
          ++pc;
          ++pd;
        }
      }
      pair_begin_.push_back(static_cast<int>(pair_dofs_.size()));
    }
  }
}

std::span<const int> JointSpaceTerms::support(int c) const {
  return {support_dofs_.data() + support_begin_[c], support_dofs_.data() + support_begin_[c + 1]};
}

void JointSpaceTerms::evaluate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                               const Eigen::Ref<const VectorX>& tau, std::span<const Force> fext) {
  const Model& model = set_.model();
  // Position terms of the last evaluation at the same q (the same bits) still
  // hold: a step's velocity projection leaves the placements, M and J to the
  // next solve at its q, and M's factors, Y and Λ too when the added diagonal
  // is the same as well.
  const bool same_factors = held_.sameFactors(q, added_inertia_);
  // The joint transforms, placements, world motion subspaces and inertias
  // once per q, shared by RNEA, CRBA and the constraint terms.
  const bool same_q = held_.sameQ(q);
  if (!same_q) placeBodiesInWorld(model, data_, q);
  // h - Σ Jᵀ f_ext from RNEA at zero acceleration, in the world frame on
  // CRBA's oS and inertias; then the constraint ends' body-frame motions.
  biasForcesInWorldFrame(model, data_, v, fext);
  bodyMotionsFromWorldFrame(model, data_, end_bodies_);
  free_scaled_ = tau - data_.tau;
  if (!same_q) {
    factorizeMass(added_inertia_);
  } else if (!same_factors) {
    refactorMass(added_inertia_);
  }
  if (!same_factors) held_.hold(q, added_inertia_);
  // z = D⁻¹ L⁻ᵀ (τ - h + Σ Jᵀ f_ext): v̇_free = L⁻¹ z is never formed, as
  // J v̇_free = Yᵀ z (b below) and v̇ = L⁻¹ (z + D⁻¹ Y λ) need one tip-ward
  // sweep in all (acceleration) instead of one here and one there.
  ltl_.solveLt(free_scaled_);
  ltl_.solveD(free_scaled_);
  if (set_.dimension() == 0) return;
  // k at the new v; J only at a new q.
  evaluateConstraints(set_, data_, q, v, cdata_, same_q ? kConstraintErrors : kConstraintErrors | kConstraintJacobian);
  if (!same_factors) {
    reduceJacobian();  // Y and Λ go with M's factors
    assembleDelassus();
  }
  updateRhs();
}

template <class F>
void JointSpaceTerms::forEachYBlock(F&& f) const {
  for (int c = 0; c < set_.size(); ++c) {
    const int width = set_[c].dimension(), offset = set_.rowOffset(c);
    const int first = support_begin_[c], count = support_begin_[c + 1] - first;
    const double* y = y_values_.data() + y_begin_[c];
    const int* dofs = support_dofs_.data() + first;
    withRowWidth(width, [&](auto fixed) {
      if constexpr (decltype(fixed)::value > 0) {
        f(offset, fixed, count, y, dofs);
      } else {
        f(offset, width, count, y, dofs);
      }
    });
  }
}

void JointSpaceTerms::updateRhs() {
  // b = k - J v̇_free = k - Yᵀ z: J M⁻¹ = (L⁻ᵀ Jᵀ)ᵀ D⁻¹ L⁻ᵀ, over the supports.
  rhs_ = cdata_.k;
  forEachYBlock([&](int offset, auto w, int count, const double* y, const int* dofs) {
    if constexpr (std::is_same_v<decltype(w), int>) {
      for (int p = 0; p < count; ++p) {
        const double z = free_scaled_[dofs[p]];
        for (int a = 0; a < w; ++a) rhs_[offset + a] -= y[p * w + a] * z;
      }
    } else {
      // The common widths: the sums in registers, stored once. Through rhs_
      // each update waited on the previous one's store (y may alias it for
      // the compiler), a chain as long as the support.
      constexpr int W = decltype(w)::value;
      using Row = Eigen::Matrix<double, W, 1>;
      Row sum = rhs_.segment<W>(offset);
      for (int p = 0; p < count; ++p) sum -= free_scaled_[dofs[p]] * Eigen::Map<const Row>(y + p * W);
      rhs_.segment<W>(offset) = sum;
    }
  });
}

void JointSpaceTerms::evaluateDelassus(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                       const VectorX& added) {
  // Placements only: a projection needs φ, J and J v, not the velocity
  // products (the next solve at q computes those at its own v).
  placeBodiesInWorld(set_.model(), data_, q);
  factorizeMass(added);
  if (set_.dimension() > 0) {
    evaluatePositionTerms(set_, data_, q, cdata_);
    for (int c = 0; c < set_.size(); ++c) {  // φ̇ = J v over the supports
      const std::span<const int> dofs = support(c);
      const int offset = set_.rowOffset(c);
      for (int r = offset; r < offset + set_[c].dimension(); ++r) {
        double jv = 0.0;
        for (int i : dofs) jv += cdata_.J(r, i) * v[i];
        cdata_.phidot[r] = jv;
      }
    }
    reduceJacobian();
    assembleDelassus();
  }
  held_.hold(q, added);
}

void JointSpaceTerms::factorizeMass(const VectorX& added) {
  // data_.M is ours: only the lower triangle of its pattern is ever written,
  // and the LTDL factorisation reads nothing else.
  crbaAtWorldInertias(set_.model(), data_, MassMatrixFill::LowerTriangle);
  held_.addToDiagonal(data_.M, added);
  ltl_.factorize(data_.M);
}

void JointSpaceTerms::refactorMass(const VectorX& added) {
  held_.replaceDiagonal(data_.M, added);
  ltl_.factorize(data_.M);
}

void JointSpaceTerms::reduceJacobian() {
  const MatrixX& J = cdata_.J;
  for (int c = 0; c < set_.size(); ++c) {
    const int width = set_[c].dimension(), offset = set_.rowOffset(c);
    const int first = support_begin_[c], count = support_begin_[c + 1] - first;
    double* y = y_values_.data() + y_begin_[c];
    const int* dofs = support_dofs_.data() + first;
    const int* run = descendant_run_.data() + first;
    withRowWidth(width, [&](auto fixed) {
      const int w = rowWidth(fixed, width);
      // Row p of the block is dof S_c[p]'s entries of Jᵀ (contiguous in J's column).
      for (int p = 0; p < count; ++p) {
        for (int a = 0; a < w; ++a) y[p * w + a] = J(offset + a, dofs[p]);
      }
      // Y_c = L⁻ᵀ Jᵀ over S_c: root-ward sweep, y_p -= U(j, k) y_k for the
      // descendants k of j = S_c[p] in S_c (the next run[p] rows).
      constexpr int W = decltype(fixed)::value;
      for (int p = count - 1; p >= 0; --p) {
        double* yp = y + p * w;
        if constexpr (W > 0) {
          // Accumulate in registers: through yp the stores would alias the
          // loads of yr and serialise the loop. Two sums (even and odd
          // descendants) halve the chain of dependent subtractions: the
          // descendants of a floating base's dofs are most of the support.
          // The rows in reverse, oldest first: row p+1, stored just before,
          // comes last, so the sums wait on it for one update, not for all
          // (docs/performance.md).
          using Row = Eigen::Matrix<double, W, 1>;
          Row even = Eigen::Map<const Row>(yp), odd = Row::Zero();
          const double* const column = ltl_.columnOfL(dofs[p]);
          int r = p + run[p];
          for (; r - 1 > p; r -= 2) {
            even -= column[dofs[r]] * Eigen::Map<const Row>(y + r * W);
            odd -= column[dofs[r - 1]] * Eigen::Map<const Row>(y + (r - 1) * W);
          }
          if (r > p) even -= column[dofs[r]] * Eigen::Map<const Row>(y + r * W);
          Eigen::Map<Row> out(yp);
          out = even + odd;
        } else {
          for (int r = p + 1; r <= p + run[p]; ++r) {
            const double u = ltl_.L(dofs[r], dofs[p]);
            const double* yr = y + r * w;
            for (int a = 0; a < w; ++a) yp[a] -= u * yr[a];
          }
        }
      }
    });
  }
}

void JointSpaceTerms::assembleDelassus() {
  // Λ = Yᵀ D⁻¹ Y block by block: Λ_cd = Σ_{i ∈ S_c ∩ S_d} D_i⁻¹ (Y_c row i)ᵀ (Y_d row i),
  // accumulated in fixed-size blocks for the common widths.
  delassusChanged();
  const VectorX& Dinv = ltl_.inverseD();
  int pair = 0;
  for (int c = 0; c < set_.size(); ++c) {
    const int oc = set_.rowOffset(c), mc = set_[c].dimension();
    const int first = support_begin_[c], count = support_begin_[c + 1] - first;
    const double* yc = y_values_.data() + y_begin_[c];
    withRowWidth(mc, [&](auto fixed_c) {
      constexpr int Wc = decltype(fixed_c)::value;
      using Row = Eigen::Matrix<double, Wc == 0 ? Eigen::Dynamic : Wc, 1>;
      using Column = Eigen::Map<const Row>;
      if constexpr (Wc > 0) {
        const int* dofs = support_dofs_.data() + first;
        delassus_.block<Wc, Wc>(oc, oc) = sumOfScaledOuterProducts<Wc, Wc, true>(
            count, [&](int p) { return yc + p * Wc; }, [&](int p) { return yc + p * Wc; },
            [&](int p) { return Dinv[dofs[p]]; });
      } else {
        auto block = delassus_.block(oc, oc, mc, mc);
        block.setZero();
        for (int p = 0; p < count; ++p) {
          const Column y(yc + p * mc, mc);
          block.noalias() += (Dinv[support_dofs_[first + p]] * y) * y.transpose();
        }
      }
    });
    for (int d = c + 1; d < set_.size(); ++d, ++pair) {
      const int od = set_.rowOffset(d), md = set_[d].dimension();
      const double* yd = y_values_.data() + y_begin_[d];
      const int begin = pair_begin_[pair], end = pair_begin_[pair + 1];
      withRowWidth(mc, [&](auto fixed_c) {
        withRowWidth(md, [&](auto fixed_d) {
          constexpr int Wc = decltype(fixed_c)::value, Wd = decltype(fixed_d)::value;
          if constexpr (Wc > 0 && Wd > 0) {
            const SharedDof* shared = pair_dofs_.data() + begin;
            const Eigen::Matrix<double, Wc, Wd> block = sumOfScaledOuterProducts<Wc, Wd, false>(
                end - begin, [&](int k) { return yc + shared[k].position_c * Wc; },
                [&](int k) { return yd + shared[k].position_d * Wd; }, [&](int k) { return Dinv[shared[k].dof]; });
            delassus_.block<Wc, Wd>(oc, od) = block;
            delassus_.block<Wd, Wc>(od, oc) = block.transpose();
          } else {
            auto block = delassus_.block(oc, od, mc, md);
            block.setZero();
            for (int k = begin; k < end; ++k) {
              const SharedDof& shared = pair_dofs_[k];
              const Eigen::Map<const VectorX> yp(yc + shared.position_c * mc, mc);
              const Eigen::Map<const VectorX> yq(yd + shared.position_d * md, md);
              block.noalias() += yp * (Dinv[shared.dof] * yq).transpose();
            }
            delassus_.block(od, oc, md, mc) = block.transpose();
          }
        });
      });
    }
  }
}

void JointSpaceTerms::acceleration(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> vdot) {
  // v̇ = L⁻¹ (z + D⁻¹ Y λ) = v̇_free + M⁻¹ Jᵀ λ.
  vdot = free_scaled_;
  if (set_.dimension() > 0) {
    force_.setZero();
    addYTimes(lambda, force_);
    vdot += ltl_.inverseD().cwiseProduct(force_);
  }
  ltl_.solveL(vdot);
}

void JointSpaceTerms::addYTimes(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> out) const {
  forEachYBlock([&](int offset, auto w, int count, const double* y, const int* dofs) {
    for (int p = 0; p < count; ++p) {
      double sum = 0.0;
      for (int a = 0; a < w; ++a) sum += y[p * w + a] * lambda[offset + a];
      out[dofs[p]] += sum;  // L⁻ᵀ Jᵀ λ
    }
  });
}

void JointSpaceTerms::inverseMassTimesJt(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> out) const {
  out.setZero();
  addYTimes(lambda, out);
  ltl_.solveD(out);
  ltl_.solveL(out);
}

double JointSpaceTerms::residual(const Eigen::Ref<const VectorX>& vdot) const {
  // J v̇ - k by the support's columns of J (constraint c's rows of a column
  // are contiguous), the row count fixed at compile time for the common widths.
  const MatrixX& J = cdata_.J;
  double worst = 0.0;
  for (int c = 0; c < set_.size(); ++c) {
    const int width = set_[c].dimension(), offset = set_.rowOffset(c);
    withRowWidth(width, [&](auto fixed) {
      constexpr int W = decltype(fixed)::value;
      if constexpr (W > 0) {
        Eigen::Matrix<double, W, 1> jv = -cdata_.k.segment<W>(offset);
        for (int i : support(c)) jv += vdot[i] * J.col(i).segment<W>(offset);
        worst = std::max(worst, jv.cwiseAbs().maxCoeff());
      } else {
        for (int r = offset; r < offset + width; ++r) {
          double jv = 0.0;
          for (int i : support(c)) jv += J(r, i) * vdot[i];
          worst = std::max(worst, std::abs(jv - cdata_.k[r]));
        }
      }
    });
  }
  return worst;
}

void JointSpaceTerms::throwRankDeficient(std::string_view solver) const {
  loopsim::throwRankDeficient(set_, cdata_.J, solver);
}

}  // namespace loopsim
