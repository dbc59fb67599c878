// Composite rigid-body algorithm (Featherstone, RBDA Table 6.2), with the
// composite inertias and motion subspaces expressed in the world frame: then
// M(l, k) = S_lᵀ (Ic_i S_k) for every dof l on the path from k's joint to the
// root needs no force transform along that path, and composite inertias in
// one frame add linearly (InertiaAtOrigin). Same M as the body-frame sweep to
// round-off; it is the world-frame convention Pinocchio's CRBA also uses.
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/joint_motion.hpp>
#include <loopsim/algorithms/kinematics.hpp>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif
#include <algorithm>

namespace loopsim {

namespace {

// One past the last dof of body i's subtree (depth-first numbering: its
// descendants' dofs are contiguous after its own).
inline int subtreeDofEnd(const Model& model, int i) {
  const int last = model.subtree_end[i] - 1;
  return model.idx_v[last] + model.joint_nv[last];
}

// Body i's inertia and motion subspace in the world frame, from data.oMi[i]
// and data.S; the inertia goes into oYcrb (where the sweep accumulates the
// composites) and, with kKeepBody, also into oI (for the world-frame RNEA).
template <bool kKeepBody>
inline void worldInertiaAndSubspace(const Model& model, Data& data, int i) {
  Matrix6X& oS = data.oS;
  data.oYcrb[i].assign(model.body_inertias[i], data.oMi[i]);
  if constexpr (kKeepBody) data.oI[i] = data.oYcrb[i];
  // The subspace is the joints' twists at the world origin (lever p_i).
  const Vector3& lever = data.oMi[i].t;
  for (int k = model.idx_v[i]; k < model.idx_v[i] + model.joint_nv[i]; ++k) {
    Vector3 w, lin;
    detail::dofTwistAtPoint(model, data, i, k, lever, w, lin);
    oS.col(k).head<3>() = w;
    oS.col(k).tail<3>() = lin;
  }
}

// column[k] = F_kᵀ s for k in [begin, end): one pass over the six rows of
// oF (row-major, so each row is contiguous in k). A column holds 1-35
// entries on a humanoid; perf put this fill at a quarter of CRBA with GCC's
// vector loop and scalar remainder, so with AVX-512 each eight entries take
// one masked pass (no remainder); elsewhere the plain loop.
inline void fillColumnFromForces(const double* s, const Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::RowMajor>& oF,
                                 int begin, int end, double* column) {
  const double* f0 = oF.row(0).data();
  const double* f1 = oF.row(1).data();
  const double* f2 = oF.row(2).data();
  const double* f3 = oF.row(3).data();
  const double* f4 = oF.row(4).data();
  const double* f5 = oF.row(5).data();
#if defined(__AVX512F__)
  const __m512d s0 = _mm512_set1_pd(s[0]), s1 = _mm512_set1_pd(s[1]), s2 = _mm512_set1_pd(s[2]);
  const __m512d s3 = _mm512_set1_pd(s[3]), s4 = _mm512_set1_pd(s[4]), s5 = _mm512_set1_pd(s[5]);
  for (int k = begin; k < end; k += 8) {
    const __mmask8 lanes = static_cast<__mmask8>((1u << std::min(8, end - k)) - 1u);
    __m512d sum = _mm512_mul_pd(s0, _mm512_maskz_loadu_pd(lanes, f0 + k));
    sum = _mm512_fmadd_pd(s1, _mm512_maskz_loadu_pd(lanes, f1 + k), sum);
    sum = _mm512_fmadd_pd(s2, _mm512_maskz_loadu_pd(lanes, f2 + k), sum);
    sum = _mm512_fmadd_pd(s3, _mm512_maskz_loadu_pd(lanes, f3 + k), sum);
    sum = _mm512_fmadd_pd(s4, _mm512_maskz_loadu_pd(lanes, f4 + k), sum);
    sum = _mm512_fmadd_pd(s5, _mm512_maskz_loadu_pd(lanes, f5 + k), sum);
    _mm512_mask_storeu_pd(column + k, lanes, sum);
  }
#else
  for (int k = begin; k < end; ++k)
    column[k] = s[0] * f0[k] + s[1] * f1[k] + s[2] * f2[k] + s[3] * f3[k] + s[4] * f4[k] + s[5] * f5[k];
#endif
}

// column[k] = 0 for k in [begin, end): a humanoid's off-pattern tails are a
// few to 35 entries, where Eigen's setZero called memset per column.
inline void zeroTail(double* column, int begin, int end) {
#if defined(__AVX512F__)
  for (int k = begin; k < end; k += 8) {
    const __mmask8 lanes = static_cast<__mmask8>((1u << std::min(8, end - k)) - 1u);
    _mm512_mask_storeu_pd(column + k, lanes, _mm512_setzero_pd());
  }
#else
  std::fill(column + begin, column + end, 0.0);
#endif
}

// M's strictly upper triangle from the lower one, once the sweep is done.
// kUpperFromWholeLower: it is mirrored from the whole lower triangle (which
// must then be complete: the sweep clears its off-pattern), else copied over
// the pattern only (the upper off-pattern cleared beforehand).
#if defined(__AVX512F__)
inline constexpr bool kUpperFromWholeLower = true;
// In 8 x 8 tiles: each tile's eight column segments are loaded, transposed in
// registers and stored as eight column segments of the mirrored tile. The
// element-wise copy stored row-wise, a stride of nv apart, one double per
// store: perf put it at a sixth of the sweep, plus the memset that cleared
// the upper off-pattern.
inline void fillUpperTriangle(const Model&, MatrixX& M) {
  const int n = static_cast<int>(M.rows());
  const int ld = static_cast<int>(M.outerStride());
  double* a = M.data();
  const __m512i pair_lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
  const __m512i pair_hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  for (int j0 = 0; j0 < n; j0 += 8) {
    const int cols = std::min(8, n - j0);
    for (int i0 = j0; i0 < n; i0 += 8) {
      const int rows = std::min(8, n - i0);
      const __mmask8 row_lanes = static_cast<__mmask8>((1u << rows) - 1u);
      __m512d v[8];
      for (int k = 0; k < 8; ++k) {
        v[k] = k < cols ? _mm512_maskz_loadu_pd(row_lanes, a + static_cast<std::ptrdiff_t>(j0 + k) * ld + i0)
                        : _mm512_setzero_pd();
      }
      // v[k][r] = M(i0 + r, j0 + k); out[c][k] = v[k][c].
      __m512d t[8], q[8];
      for (int k = 0; k < 8; k += 2) {
        t[k] = _mm512_unpacklo_pd(v[k], v[k + 1]);
        t[k + 1] = _mm512_unpackhi_pd(v[k], v[k + 1]);
      }
      q[0] = _mm512_permutex2var_pd(t[0], pair_lo, t[2]);  // r = 0, 4
      q[1] = _mm512_permutex2var_pd(t[0], pair_hi, t[2]);  // r = 2, 6
      q[2] = _mm512_permutex2var_pd(t[1], pair_lo, t[3]);  // r = 1, 5
      q[3] = _mm512_permutex2var_pd(t[1], pair_hi, t[3]);  // r = 3, 7
      q[4] = _mm512_permutex2var_pd(t[4], pair_lo, t[6]);
      q[5] = _mm512_permutex2var_pd(t[4], pair_hi, t[6]);
      q[6] = _mm512_permutex2var_pd(t[5], pair_lo, t[7]);
      q[7] = _mm512_permutex2var_pd(t[5], pair_hi, t[7]);
      const __m512d out[8] = {
          _mm512_shuffle_f64x2(q[0], q[4], 0x44), _mm512_shuffle_f64x2(q[2], q[6], 0x44),
          _mm512_shuffle_f64x2(q[1], q[5], 0x44), _mm512_shuffle_f64x2(q[3], q[7], 0x44),
          _mm512_shuffle_f64x2(q[0], q[4], 0xEE), _mm512_shuffle_f64x2(q[2], q[6], 0xEE),
          _mm512_shuffle_f64x2(q[1], q[5], 0xEE), _mm512_shuffle_f64x2(q[3], q[7], 0xEE)};
      const unsigned col_lanes = (1u << cols) - 1u;
      for (int c = 0; c < rows; ++c) {
        // Row i0 + c of the tile into column i0 + c above the diagonal: on a
        // diagonal tile only its first c entries are strictly upper.
        const unsigned lanes = i0 == j0 ? col_lanes & ((1u << c) - 1u) : col_lanes;
        _mm512_mask_storeu_pd(a + static_cast<std::ptrdiff_t>(i0 + c) * ld + j0, static_cast<__mmask8>(lanes), out[c]);
      }
    }
  }
}
#else
inline constexpr bool kUpperFromWholeLower = false;
// In a pass of its own: copied right after its column's masked stores, the
// loads waited on them (no store forwarding from masked stores).
inline void fillUpperTriangle(const Model& model, MatrixX& M) {
  for (int i = 1; i < model.nbodies(); ++i) {
    const int end = subtreeDofEnd(model, i);
    for (int l = model.idx_v[i]; l < model.idx_v[i] + model.joint_nv[i]; ++l)
      M.row(l).segment(l + 1, end - l - 1) = M.col(l).segment(l + 1, end - l - 1).transpose();
  }
}
#endif

// Needs data.oYcrb and data.oS of every body (worldInertiaAndSubspace).
// Writes M(l, k) only on the ancestor pattern, and with `zero_off_pattern`
// zeros in the rest of the lower triangle.
void compositeInertiaSweep(const Model& model, Data& data, MassMatrixFill fill, bool zero_off_pattern) {
  MatrixX& M = data.M;
  const Matrix6X& oS = data.oS;
  auto& oF = data.oF;
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    // Every descendant (a higher index, depth-first numbering) has been added,
    // and its columns F_k = Ic_k S_k are in oF: the descendants' dofs are the
    // contiguous range [iv, end), so M(k, l) = F_kᵀ S_l for joint i's dofs l
    // is one sweep down a column of M, with no walk up the tree.
    const InertiaAtOrigin& Yc = data.oYcrb[i];
    const int iv = model.idx_v[i], nvi = model.joint_nv[i];
    const int end = subtreeDofEnd(model, i);
    for (int l = iv; l < iv + nvi; ++l) {
      // F = Ic S_l: n = I_o w + h × v, f = m v + w × h, straight from and
      // into the columns (through Motion and Force temporaries the compiler
      // re-read its own narrow stores with wide loads: store-forwarding stalls).
      const Vector3 w = oS.col(l).head<3>(), v = oS.col(l).tail<3>();
      const Vector3 n = Yc.I_o * w + Yc.h.cross(v), f = Yc.mass * v + w.cross(Yc.h);
      oF.col(l).head<3>() = n;
      oF.col(l).tail<3>() = f;
      // Joint i's own block, row l: M(l, k) = S_kᵀ F_l for k ≤ l, with F_l
      // still in registers (read back from oF, the wide loads waited on the
      // narrow stores just made: store forwarding fails).
      for (int k = iv; k <= l; ++k) M(l, k) = oS.col(k).head<3>().dot(n) + oS.col(k).tail<3>().dot(f);
    }
    const int own_end = iv + nvi;
    for (int l = iv; l < own_end; ++l) {
      // The descendants' rows in the wide pass.
      fillColumnFromForces(oS.col(l).data(), oF, own_end, end, &M(0, l));
      // Rows past the subtree are exactly column l's entries off the pattern
      // below the diagonal: contiguous, and half of clearing all of M.
      if (zero_off_pattern) zeroTail(&M(0, l), end, model.nv);
    }
    const int p = model.parent[i];
    if (p > 0) data.oYcrb[p] += Yc;
  }
  M.diagonal() += model.armature;
  if (fill == MassMatrixFill::Symmetric) fillUpperTriangle(model, M);
}

}  // namespace

const MatrixX& crba(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q, MassMatrixFill fill) {
  detail::requireSize(q, model.nq, "q");
  detail::setPlacements</*kUnitAxisProducts=*/true>(model, data, q);
  // A pass of its own: fused into the placements loop it measured 8 % slower.
  for (int i = 1; i < model.nbodies(); ++i) worldInertiaAndSubspace<false>(model, data, i);
  // Callers may have written anywhere in M. Where the upper triangle is
  // copied over the pattern only, its off-pattern needs clearing: one
  // contiguous clear (row by row it would be strided stores).
  const bool symmetric = fill == MassMatrixFill::Symmetric;
  if (symmetric && !kUpperFromWholeLower) data.M.setZero();
  compositeInertiaSweep(model, data, fill, /*zero_off_pattern=*/!symmetric || kUpperFromWholeLower);
  return data.M;
}

void worldInertiasAndSubspaces(const Model& model, Data& data) {
  for (int i = 1; i < model.nbodies(); ++i) worldInertiaAndSubspace<true>(model, data, i);
}

void placeBodiesInWorld(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q) {
  forwardKinematics(model, data, q);
  worldInertiasAndSubspaces(model, data);
}

const MatrixX& crbaAtWorldInertias(const Model& model, Data& data, MassMatrixFill fill) {
  compositeInertiaSweep(model, data, fill, /*zero_off_pattern=*/false);
  return data.M;
}

}  // namespace loopsim
