#include <loopsim/solvers/joint_space/ltl_factorization.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <string>

#include <loopsim/model/errors.hpp>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace loopsim {

namespace {

#if defined(__AVX512F__)
// Rows of this many descendants or more (the floating base's and the torso's
// dofs: 20-35) are summed in eight lanes with a masked tail. Their serial
// sums were the bulk of the factorisation; on short rows (the limbs) the
// horizontal sums cost more than they save, and the scalar loops stay.
constexpr int kLaneRow = 16;
constexpr int kScaledPadding = 8;  // full-width stores of the last lanes stay in the workspace

inline __mmask8 lanesBefore(int k, int end) { return static_cast<__mmask8>((1u << std::min(8, end - k)) - 1u); }

// scaled[k] = d[k] u[k] over [begin, end) (zeros in the padding past end);
// returns Σ u[k] scaled[k].
inline double scaleAndDotLanes(const double* u, const double* d, int begin, int end, double* scaled) {
  __m512d sum = _mm512_setzero_pd();
  for (int k = begin; k < end; k += 8) {
    const __mmask8 lanes = lanesBefore(k, end);
    const __m512d uk = _mm512_maskz_loadu_pd(lanes, u + k);
    const __m512d sk = _mm512_mul_pd(uk, _mm512_maskz_loadu_pd(lanes, d + k));
    _mm512_storeu_pd(scaled + k, sk);  // full width: the reloads below are forwarded
    sum = _mm512_fmadd_pd(uk, sk, sum);
  }
  return _mm512_reduce_add_pd(sum);
}

// Σ r[k] x[k] over [begin, end) for four rows at once (x loaded once).
inline void dotFourLanes(const double* r0, const double* r1, const double* r2, const double* r3, const double* x,
                         int begin, int end, double out[4]) {
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  for (int k = begin; k < end; k += 8) {
    const __mmask8 lanes = lanesBefore(k, end);
    const __m512d xk = _mm512_loadu_pd(x + k);
    s0 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(lanes, r0 + k), xk, s0);
    s1 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(lanes, r1 + k), xk, s1);
    s2 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(lanes, r2 + k), xk, s2);
    s3 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(lanes, r3 + k), xk, s3);
  }
  out[0] = _mm512_reduce_add_pd(s0);
  out[1] = _mm512_reduce_add_pd(s1);
  out[2] = _mm512_reduce_add_pd(s2);
  out[3] = _mm512_reduce_add_pd(s3);
}

inline double dotLanes(const double* r, const double* x, int begin, int end) {
  __m512d sum = _mm512_setzero_pd();
  for (int k = begin; k < end; k += 8)
    sum = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(lanesBefore(k, end), r + k), _mm512_loadu_pd(x + k), sum);
  return _mm512_reduce_add_pd(sum);
}
#else
constexpr int kScaledPadding = 0;
#endif

}  // namespace

LtlFactorization::LtlFactorization(const Model& model)
    : parents_(model.nv, -1),
      subtree_end_(model.nv, 0),
      upper_(RowMajorMatrix::Zero(model.nv, model.nv)),
      diagonal_(VectorX::Ones(model.nv)),
      inverse_diagonal_(VectorX::Ones(model.nv)),
      scaled_row_(VectorX::Zero(model.nv + kScaledPadding)),
      model_(&model) {
  // λ over dofs: a multi-dof joint is a chain of single dofs.
  for (int joint = 1; joint < model.nbodies(); ++joint) {
    const int first = model.idx_v[joint];
    const int parent = model.parent[joint];
    parents_[first] = parent > 0 ? model.idx_v[parent] + model.joint_nv[parent] - 1 : -1;
    for (int k = 1; k < model.joint_nv[joint]; ++k) parents_[first + k] = first + k - 1;
  }
  for (int i = 0; i < model.nv; ++i) {
    if (parents_[i] >= i) {
      throw ModelError(model.source_file, "model '" + model.name + "'",
                       "dofs are not in topological order (dof " + std::to_string(i) +
                           " has expanded parent " + std::to_string(parents_[i]) + ")");
    }
  }
  for (int j = model.nv - 1; j >= 0; --j) {
    subtree_end_[j] = std::max(subtree_end_[j], j + 1);
    if (parents_[j] >= 0) subtree_end_[parents_[j]] = std::max(subtree_end_[parents_[j]], subtree_end_[j]);
  }
  // Contiguous subtrees: the model builder refuses bodies that are not depth-first.
  ancestor_begin_.assign(1, 0);
  for (int j = 0; j < model.nv; ++j) {
    for (int i = parents_[j]; i >= 0; i = parents_[i]) ancestors_.push_back(i);
    ancestor_begin_.push_back(static_cast<int>(ancestors_.size()));
  }
}

bool LtlFactorization::inPattern(int i, int j) const {
  if (j > i) std::swap(i, j);
  for (int a = i; a >= 0; a = parents_[a]) {
    if (a == j) return true;
  }
  return false;
}

void LtlFactorization::factorize(const Eigen::Ref<const MatrixX>& M) {
  // RBDA Table 6.3 (LTDL) reorganised by columns of U = Lᵀ, from the tips to
  // the roots: with M = U D Uᵀ and desc(j) the descendants of j,
  //   D_j    = M_jj − Σ_{k∈desc(j)} U_jk D_k U_jk,
  //   U_ij   = (M_ij − Σ_{k∈desc(j)} U_ik D_k U_jk) / D_j   for i an ancestor of j.
  // Same products as the table's right-looking updates, summed per entry.
  // Plain loops over raw rows: most of these dot products have 0-3 terms
  // (a leg's dofs), where Eigen's dynamic-size dot spent more on its set-up
  // than on the products (Go1: 688 ns per factorisation before).
  const int n = size();
  const Eigen::Index ld = upper_.outerStride();
  double* const U = upper_.data();  // row-major: row i at U + i·ld
  double* const scaled = scaled_row_.data();
  const double* const D = diagonal_.data();
  for (int j = n - 1; j >= 0; --j) {
    const int begin = j + 1, end = subtree_end_[j];
    const double* const row_j = U + j * ld;
    double pivot = M(j, j);
#if defined(__AVX512F__)
    const bool lanes = end - begin >= kLaneRow;
    if (lanes) pivot -= scaleAndDotLanes(row_j, D, begin, end, scaled);
#else
    constexpr bool lanes = false;
#endif
    if (!lanes) {
      for (int k = begin; k < end; ++k) {
        scaled[k] = D[k] * row_j[k];
        pivot -= row_j[k] * scaled[k];
      }
    }
    if (!(pivot > 0.0)) throwNotPositiveDefinite(pivot, j);
    diagonal_[j] = pivot;
    const double inverse_pivot = 1.0 / pivot;
    inverse_diagonal_[j] = inverse_pivot;
    // The ancestors come from a flat list built once (no walk up λ); for a
    // dof without descendants the sums are empty: U_ij = M_ij / D_j.
    const int* ancestor = ancestors_.data() + ancestor_begin_[j];
    const int* const ancestor_end = ancestors_.data() + ancestor_begin_[j + 1];
#if defined(__AVX512F__)
    if (lanes) {
      for (; ancestor_end - ancestor >= 4; ancestor += 4) {
        double sums[4];
        dotFourLanes(U + ancestor[0] * ld, U + ancestor[1] * ld, U + ancestor[2] * ld, U + ancestor[3] * ld, scaled,
                     begin, end, sums);
        for (int a = 0; a < 4; ++a) U[ancestor[a] * ld + j] = (M(j, ancestor[a]) - sums[a]) * inverse_pivot;
      }
      for (; ancestor != ancestor_end; ++ancestor) {
        U[*ancestor * ld + j] = (M(j, *ancestor) - dotLanes(U + *ancestor * ld, scaled, begin, end)) * inverse_pivot;
      }
      continue;
    }
#endif
    // A limb's last dofs (at most two descendants, the most common rows):
    // the sums written out. Through the blocked loops below, their set-up
    // for zero to two products cost more than the products
    // (factorisation 346 → 312 ns on Go1, 939 → 866 on Atlas); the
    // single-ancestor loop below, used for every ancestor, took 361 ns.
    if (end - begin <= 2) {
      const int count = end - begin;
      for (; ancestor != ancestor_end; ++ancestor) {
        const int i = *ancestor;
        const double* const row_i = U + i * ld;
        double sum = 0.0;
        if (count > 0) sum += row_i[begin] * scaled[begin];
        if (count > 1) sum += row_i[begin + 1] * scaled[begin + 1];
        U[i * ld + j] = (M(j, i) - sum) * inverse_pivot;
      }
      continue;
    }
    // Four ancestors at a time: four independent sums (each still added in
    // the order of k) keep the FMA unit busy where one sum
    // waits on its own latency; scaled[k] is loaded once for the four.
    for (; ancestor_end - ancestor >= 4; ancestor += 4) {
      const int i0 = ancestor[0], i1 = ancestor[1], i2 = ancestor[2], i3 = ancestor[3];
      const double *r0 = U + i0 * ld, *r1 = U + i1 * ld, *r2 = U + i2 * ld, *r3 = U + i3 * ld;
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
      for (int k = begin; k < end; ++k) {
        const double x = scaled[k];
        s0 += r0[k] * x;
        s1 += r1[k] * x;
        s2 += r2[k] * x;
        s3 += r3[k] * x;
      }
      U[i0 * ld + j] = (M(j, i0) - s0) * inverse_pivot;
      U[i1 * ld + j] = (M(j, i1) - s1) * inverse_pivot;
      U[i2 * ld + j] = (M(j, i2) - s2) * inverse_pivot;
      U[i3 * ld + j] = (M(j, i3) - s3) * inverse_pivot;
    }
    for (; ancestor != ancestor_end; ++ancestor) {
      const int i = *ancestor;
      const double* const row_i = U + i * ld;
      double sum = 0.0;
      for (int k = begin; k < end; ++k) sum += row_i[k] * scaled[k];
      U[i * ld + j] = (M(j, i) - sum) * inverse_pivot;
    }
  }
}

void LtlFactorization::throwNotPositiveDefinite(double pivot, int j) const {
  throw ModelError(model_->source_file, "model '" + model_->name + "'",
                   "joint-space inertia matrix is not positive definite (LTDL pivot " + std::to_string(pivot) +
                       " at dof " + std::to_string(j) + " of joint '" + model_->joint_names[model_->dof_joint[j]] +
                       "')");
}

void LtlFactorization::solveLt(Eigen::Ref<VectorX> x) const {
  // Lᵀ = U: back substitution, x_j -= Σ_{k∈desc(j)} U_jk x_k, by columns: once
  // x_k is final (its descendants, the higher dofs, are done), it is taken out
  // of its ancestors. The row-wise form's dot products each ended in a
  // horizontal sum the next dof waited on: BM_LtdlSolve 517 → 434 ns.
  const Eigen::Index ld = upper_.outerStride();
  const double* const U = upper_.data();
  double* const xd = x.data();
  for (int k = size() - 1; k > 0; --k) {
    const double xk = xd[k];
    for (int p = ancestor_begin_[k]; p < ancestor_begin_[k + 1]; ++p) {
      const int i = ancestors_[p];
      xd[i] -= U[i * ld + k] * xk;
    }
  }
}

void LtlFactorization::solveLt(Eigen::Ref<VectorX> x, std::span<const int> dofs) const {
  // In an increasing, ancestor-closed `dofs`, the descendants of dofs[p] that
  // carry nonzeros are the entries right after p below its subtree end.
  const int count = static_cast<int>(dofs.size());
  for (int p = count - 1; p >= 0; --p) {
    const int j = dofs[p];
    const int end = subtree_end_[j];
    double sum = 0.0;
    for (int r = p + 1; r < count && dofs[r] < end; ++r) sum += upper_(j, dofs[r]) * x[dofs[r]];
    x[j] -= sum;
  }
}

void LtlFactorization::solveL(Eigen::Ref<VectorX> x) const {
  // L = Uᵀ: forward substitution as axpys, x_desc(j) -= U_j,desc(j) x_j.
  // A limb's last dofs (at most two descendants, the most common rows) as
  // scalars: Eigen's segment expression set-up cost more than their products.
  const Eigen::Index ld = upper_.outerStride();
  const double* const U = upper_.data();
  double* const xd = x.data();
  for (int j = 0; j < size(); ++j) {
    const int begin = j + 1, count = subtree_end_[j] - begin;
    if (count > 2) {
      x.segment(begin, count) -= x[j] * upper_.row(j).segment(begin, count).transpose();
    } else if (count > 0) {
      const double xj = xd[j];
      const double* const row_j = U + j * ld;
      xd[begin] -= xj * row_j[begin];
      if (count > 1) xd[begin + 1] -= xj * row_j[begin + 1];
    }
  }
}

void LtlFactorization::solve(Eigen::Ref<VectorX> x) const {
  solveLt(x);
  solveD(x);
  solveL(x);
}

MatrixX LtlFactorization::denseL() const {
  MatrixX L = MatrixX::Identity(size(), size());
  for (int i = 0; i < size(); ++i) {
    for (int j = parents_[i]; j >= 0; j = parents_[j]) L(i, j) = upper_(j, i);
  }
  return L;
}

}  // namespace loopsim
