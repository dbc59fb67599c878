#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/constraints/constraint_link_targets.hpp>
#include <loopsim/constraints/constraint_position_terms.hpp>

#include <loopsim/model/joint_motion.hpp>
#include <loopsim/algorithms/kinematics.hpp>

namespace loopsim {

ConstraintData::ConstraintData(const ConstraintSet& set)
    : phi(VectorX::Zero(set.dimension())),
      phidot(VectorX::Zero(set.dimension())),
      bias(VectorX::Zero(set.dimension())),
      k(VectorX::Zero(set.dimension())),
      k_link(VectorX::Zero(set.dimension())),
      J(MatrixX::Zero(set.dimension(), set.model().nv)),
      K1(set.size(), ConstraintRows::Zero()),
      K2(set.size(), ConstraintRows::Zero()),
      K1_full(set.size(), ConstraintRows::Zero()),
      oMa(set.size()),
      oMb(set.size()),
      zero_nv(VectorX::Zero(set.model().nv)) {
  for (int i = 0; i < set.size(); ++i) {
    const Constraint& c = set[i];
    K1_full[i] = constantRowsOnBody1(c);
    if (c.row_mask.empty()) {
      K1[i] = K1_full[i];  // the rows past dim are zero in both
    } else {
      for (int r = 0; r < c.dimension(); ++r) K1[i].row(r) = K1_full[i].row(c.fullRow(r));
    }
  }
}

ConstraintRows constantRowsOnBody1(const Constraint& c) {
  // The same products, in the same order, as the evaluation formed them at
  // every call before: X_{A←1} = placement1⁻¹.
  const SE3 aM1 = c.placement1.inverse();
  ConstraintRows K1 = ConstraintRows::Zero();
  switch (c.kind) {
    case ConstraintKind::Weld:
      K1 = aM1.actionMatrix();  // relative twist at A in A axes (paper 001 eq. 1c)
      break;
    case ConstraintKind::RevoluteLoop:
      K1.middleRows<2>(3) = aM1.actionMatrix().topRows<2>();  // rotations about A's x and y
      [[fallthrough]];
    case ConstraintKind::Connect:
      // The bottom rows [[t]x R  R] of X_{A←1}: point A's velocity in A axes.
      K1.block<3, 3>(0, 0).noalias() = skew(aM1.t) * aM1.R;
      K1.block<3, 3>(0, 3) = aM1.R;
      break;
    case ConstraintKind::Coupling:
      break;
  }
  return K1;
}

CouplingError couplingError(const Model& model, const Constraint& coupling, const Eigen::Ref<const VectorX>& q,
                            const double* v) {
  CouplingError e{-coupling.coupling_offset, 0.0};
  for (std::size_t k = 0; k < coupling.coupling_joints.size(); ++k) {
    const int j = coupling.coupling_joints[k];
    e.phi += coupling.coupling_coefficients[k] * q[model.idx_q[j]];
    if (v != nullptr) e.phidot += coupling.coupling_coefficients[k] * v[model.idx_v[j]];
  }
  return e;
}

namespace {

// evaluateOne's terms beyond ConstraintTerms: evaluateLinkTargets' subset.
constexpr unsigned kLinkTargetsOnly = 1u << 8;

// Full-row quantities of one constraint (at most 6 rows), before masking.
// K¹ is constant (ConstraintData::K1_full); K² is written (and zeroed) only
// for constraints between two moving bodies.
struct FullRows {
  Vector6 phi = Vector6::Zero();
  Vector6 offset = Vector6::Zero();  // J̇v - (K¹a₁⁰ + K²a₂⁰): terms beyond the links' spatial bias
  ConstraintRows K2;
};

// Frame A on body1 and frame B on body2, with the transforms the rows need.
struct Ends {
  SE3 oMa, oMb;
  SE3 aM2;  // body2 in A (changes with q)
  SE3 bM2;  // body2 in B
  Motion nu_a;   // body1's twist at A, A axes
  Motion nu_2a;  // body2's twist at A, A axes
  Motion nu_b;   // body2's twist at B, B axes
};

Ends computeEnds(const Constraint& c, const Data& data) {
  Ends e;
  e.oMa.setProduct(data.oMi[c.body1], c.placement1);
  // The twists through the placements' actInv: read right after being
  // stored, the inverses' transposed R waited on their narrow stores.
  e.nu_a = c.placement1.actInv(data.v[c.body1]);
  if (c.body2 == 0) {
    // The world (oMi[0] = identity, v = 0): the same values without the
    // products by the identity and by zero.
    e.oMb = c.placement2;  // aM2 is read by K² only, which the world has none of
    e.nu_2a = Motion(Vector6::Zero());
    e.nu_b = Motion(Vector6::Zero());
    return e;
  }
  e.oMb.setProduct(data.oMi[c.body2], c.placement2);
  e.bM2.setInverse(c.placement2);
  // Connects read body2 at B only (pointRows); welds and revolute loops read it at A.
  if (c.kind != ConstraintKind::Connect) {
    e.aM2.setInverseTimes(e.oMa, data.oMi[c.body2]);
    e.nu_2a = e.aM2.act(data.v[c.body2]);
  }
  if (c.kind != ConstraintKind::Weld) e.nu_b = c.placement2.actInv(data.v[c.body2]);
  return e;
}

// C = [[t]x R  R], the bottom rows of X_{B←2} = [R 0; [t]x R  R]: point
// B's velocity in B axes from body2's twist (constant: B is fixed on body2).
Eigen::Matrix<double, 3, 6> pointRowsInB(const SE3& bM2) {
  Eigen::Matrix<double, 3, 6> C;
  C.leftCols<3>().noalias() = skew(bM2.t) * bM2.R;
  C.rightCols<3>() = bM2.R;
  return C;
}

// Linear rows of -R_Aᵀ R_B X_{B←2} (point B on body2; point A's on body1 are
// constant: constantRowsOnBody1).
void pointRows(const Ends& e, FullRows& rows, bool with_K2) {
  if (!with_K2) {
    // The world (ν_B = 0): J̇v's terms cancel exactly, R_Aᵀ R_B is not needed.
    rows.phi.head<3>() = e.oMa.R.transpose() * (e.oMa.t - e.oMb.t);
    return;
  }
  // Only the bottom rows [[t]x R  R] of X = [R 0; [t]x R  R], in the same
  // order of operations as the full products (a rod's spin column must
  // cancel to round-off the same way).
  const Matrix3 RaRb = e.oMa.R.transpose() * e.oMb.R;
  const Eigen::Matrix<double, 3, 6> C = pointRowsInB(e.bM2);
  rows.K2.block<3, 3>(0, 0).noalias() = -RaRb * C.leftCols<3>();
  rows.K2.block<3, 3>(0, 3).noalias() = -RaRb * C.rightCols<3>();
  rows.phi.head<3>() = e.oMa.R.transpose() * (e.oMa.t - e.oMb.t);
  // d/dt [R_Aᵀ(ṗ_A - ṗ_B)]: classical point accelerations add ω × v; the
  // rotating axes of A add -ω_A × (relative velocity).
  const Vector3 rel = e.nu_a.v - RaRb * e.nu_b.v;
  rows.offset.head<3>() = e.nu_a.w.cross(e.nu_a.v) - RaRb * e.nu_b.w.cross(e.nu_b.v) - e.nu_a.w.cross(rel);
}

// With_K2 = false (constraints with the world): K² stays zero.
FullRows fullRows(const Constraint& c, const Ends& e, bool with_K2) {
  FullRows rows;
  if (with_K2) rows.K2.setZero();
  switch (c.kind) {
    case ConstraintKind::Weld: {
      // Relative twist at A in A axes: X_{A←1} ν₁ - X_{A←2} ν₂ (paper 001 eq. 1c, K¹ = X_{A←1}, K² = -X_{A←2}).
      if (with_K2) rows.K2 = -e.aM2.actionMatrix();
      const SE3 bMa = e.oMb.inverse() * e.oMa;
      rows.phi.head<3>() = log3(bMa.R);
      rows.phi.tail<3>() = e.oMa.R.transpose() * (e.oMa.t - e.oMb.t);
      // d/dt (X_{A←2} ν₂) = X_{A←2} ν̇₂ - ν_A × (X_{A←2} ν₂), so J̇v gains +ν_A × ν_2A
      // (zero with the world).
      if (with_K2) rows.offset = e.nu_a.cross(e.nu_2a).toVector();
      break;
    }
    case ConstraintKind::Connect:
      pointRows(e, rows, with_K2);
      break;
    case ConstraintKind::RevoluteLoop: {
      pointRows(e, rows, with_K2);
      // Rotations about A's x and y: rows of R_Aᵀ(ω₁ - ω₂).
      if (with_K2) {
        const Matrix6 X2 = e.aM2.actionMatrix();
        rows.K2.middleRows<2>(3) = -X2.topRows<2>();
      }
      const Vector3 z_a = e.oMa.R.col(2);
      const Vector3 z_b = e.oMb.R.col(2);
      rows.phi.segment<2>(3) = (e.oMa.R.transpose() * z_b.cross(z_a)).head<2>();
      const Vector3 rel_w = e.nu_a.w - e.nu_2a.w;
      rows.offset.segment<2>(3) = (-e.nu_a.w.cross(rel_w)).head<2>();
      break;
    }
    case ConstraintKind::Coupling:
      break;
  }
  return rows;
}

void evaluateOne(const ConstraintSet& set, int i, const Data& data, const Eigen::Ref<const VectorX>& q,
                 const double* v, ConstraintData& cd, unsigned terms) {
  const bool velocity_terms = v != nullptr;
  const Model& model = set.model();
  const Constraint& c = set[i];
  const int offset = set.rowOffset(i);
  const int dim = c.dimension();
  const BaumgarteGains& g = set.gains(i);

  if (c.kind == ConstraintKind::Coupling) {
    const auto [phi, phidot] = couplingError(model, c, q, v);
    cd.phi[offset] = phi;
    if (!velocity_terms) return;
    cd.phidot[offset] = phidot;
    cd.bias[offset] = 0.0;
    cd.k[offset] = -g.kd * phidot - g.kp * phi;
    cd.k_link[offset] = cd.k[offset];
    if (terms & kConstraintJacobian) {
      cd.J.row(offset).setZero();
      for (std::size_t k = 0; k < c.coupling_joints.size(); ++k) {
        cd.J(offset, model.idx_v[c.coupling_joints[k]]) += c.coupling_coefficients[k];
      }
    }
    return;
  }

  const bool link_targets = (terms & kLinkTargetsOnly) != 0;
  // The world's K² would meet only its zero twist and acceleration, and no
  // solver reads it: formed for constraints between two moving bodies only
  // (cd.K2 of a constraint with the world stays zero from construction).
  const bool with_K2 = c.body2 != 0;
  const Ends e = computeEnds(c, data);
  const FullRows full = fullRows(c, e, with_K2);
  cd.oMa[i] = e.oMa;
  cd.oMb[i] = e.oMb;
  if (with_K2) {
    if (c.row_mask.empty()) {
      cd.K2[i] = full.K2;  // the full rows in place; the rows past dim are zero in both
    } else {
      for (int r = 0; r < dim; ++r) cd.K2[i].row(r) = full.K2.row(c.fullRow(r));
    }
  }
  const ConstraintRows& K1 = cd.K1_full[i];
  for (int r = 0; r < dim; ++r) cd.phi[offset + r] = full.phi[c.fullRow(r)];
  if (!velocity_terms) return;
  // All full rows at once (two 6 x 6 products each), then the kept ones.
  Vector6 phidot = K1 * data.v[c.body1].toVector();
  if (with_K2) phidot.noalias() += full.K2 * data.v[c.body2].toVector();
  for (int r = 0; r < dim; ++r) {
    const int fr = c.fullRow(r);
    const int row = offset + r;
    cd.phidot[row] = phidot[fr];
    // Baumgarte (paper 001 §VI-A): φ̈ + Kd φ̇ + Kp φ = 0.
    cd.k_link[row] = -full.offset[fr] - g.kd * cd.phidot[row] - g.kp * cd.phi[row];
  }
  if (link_targets) return;
  Vector6 bias = full.offset;
  bias.noalias() += K1 * data.a[c.body1].toVector();
  if (with_K2) bias.noalias() += full.K2 * data.a[c.body2].toVector();
  for (int r = 0; r < dim; ++r) {
    const int row = offset + r;
    cd.bias[row] = bias[c.fullRow(r)];
    cd.k[row] = -cd.bias[row] - g.kd * cd.phidot[row] - g.kp * cd.phi[row];
  }
}

// J_rows = K · J_body, touching only the columns of the body's support (the
// dofs on its path to the root; the others stay zero from construction), or
// += on the columns that are also on `added_below`'s path (the second body of
// a loop, after the first wrote its own): column k of the body Jacobian (Local, at the
// body origin) is X_{body←0} X_{0←j} S_k for the joint j that owns dof k,
//   = [R_bᵀ ω;  R_bᵀ (R_j S_k,v + (p_j − p_b) × ω)],  ω = R_j S_k,ω.
// The rotation R_bᵀ goes into K once per body; the lever p_j − p_b is formed
// before the cross product, so a column that vanishes (a rod's spin about its
// own axis) rounds at the lever's scale, not at the body's distance from the
// world origin.
template <int R>
void writeBodyJacobianRowsFixed(const Model& model, const Data& data, int body, const ConstraintRows& K, int dim,
                                int added_below, Eigen::Ref<MatrixX> J_rows) {
  const SE3& oMb = data.oMi[body];
  Eigen::Matrix<double, R, 6> K_world_axes;  // K blockdiag(R_bᵀ, R_bᵀ); rows past dim stay zero
  K_world_axes.template leftCols<3>().noalias() = K.topRows<R>().template leftCols<3>() * oMb.R.transpose();
  K_world_axes.template rightCols<3>().noalias() = K.topRows<R>().template rightCols<3>() * oMb.R.transpose();
  for (int j = body; j > 0; j = model.parent[j]) {
    const SE3& oMj = data.oMi[j];
    const Vector3 lever = oMj.t - oMb.t;
    const int iv = model.idx_v[j];
    // j supports added_below too (depth-first numbering: its subtree holds it).
    const bool add = j <= added_below && added_below < model.subtree_end[j];
    for (int k = iv; k < iv + model.joint_nv[j]; ++k) {
      Vector3 w, lin;
      detail::dofTwistAtPoint(model, data, j, k, lever, w, lin);
      const Eigen::Matrix<double, R, 1> rows =
          K_world_axes.template leftCols<3>() * w + K_world_axes.template rightCols<3>() * lin;
      // All R rows at once when dim = R (the common case: a loop over dim
      // compiled to a memcpy call per column); not rows.head(dim), which
      // GCC 12 flags with -Warray-bounds under AVX-512.
      if (dim == R) {
        auto column = J_rows.col(k).template head<R>();  // (a block past dim rows would be out of range)
        if (add) {
          column += rows;
        } else {
          column = rows;
        }
      } else if (add) {
        for (int r = 0; r < dim; ++r) J_rows(r, k) += rows[r];
      } else {
        for (int r = 0; r < dim; ++r) J_rows(r, k) = rows[r];
      }
    }
  }
}

// The rows of a weld or connect to the world (a foot or hand on the ground),
// straight from the placements: frame A's velocity is R_Aᵀ times the world
// twist at point A, so column k is [R_Aᵀ ω; R_Aᵀ (v + (p_j − p_A) × ω)]
// (ω, v = R_j S_k) — a connect keeps the linear rows. Equal to K¹ times the
// body Jacobian (writeBodyJacobianRowsFixed) to round-off, without K¹'s
// products, which weighed on ltl (docs/performance.md). The twists
// are dofTwistAtPoint's, as for the body-Jacobian path, but for the floating
// base's six columns, which share one product.
template <int R>
void writeWorldEndRows(const Model& model, const Data& data, int body, const SE3& oMa, Eigen::Ref<MatrixX> J_rows) {
  static_assert(R == 3 || R == 6);
  const Matrix3 RaT = oMa.R.transpose();
  for (int j = body; j > 0; j = model.parent[j]) {
    const SE3& oMj = data.oMi[j];
    const Vector3 lever = oMj.t - oMa.t;
    const int iv = model.idx_v[j];
    if (model.joint_types[j] == JointType::Floating) {
      // Body-frame twist [ω; v]: with A = R_Aᵀ R_j and l = R_jᵀ lever, the
      // rotation columns are [A e_m; A (l × e_m)], the translation ones [0; A e_m].
      const Matrix3 A = RaT * oMj.R;
      const Vector3 l = oMj.R.transpose() * lever;
      const Vector3 lin0 = l[2] * A.col(1) - l[1] * A.col(2);
      const Vector3 lin1 = l[0] * A.col(2) - l[2] * A.col(0);
      const Vector3 lin2 = l[1] * A.col(0) - l[0] * A.col(1);
      if constexpr (R == 6) {
        J_rows.template block<3, 3>(0, iv) = A;
        J_rows.template block<3, 3>(0, iv + 3).setZero();
        J_rows.col(iv).template segment<3>(3) = lin0;
        J_rows.col(iv + 1).template segment<3>(3) = lin1;
        J_rows.col(iv + 2).template segment<3>(3) = lin2;
        J_rows.template block<3, 3>(3, iv + 3) = A;
      } else {
        J_rows.col(iv).template head<3>() = lin0;
        J_rows.col(iv + 1).template head<3>() = lin1;
        J_rows.col(iv + 2).template head<3>() = lin2;
        J_rows.template block<3, 3>(0, iv + 3) = A;
      }
      continue;
    }
    for (int k = iv; k < iv + model.joint_nv[j]; ++k) {
      Vector3 w, lin;
      detail::dofTwistAtPoint(model, data, j, k, lever, w, lin);
      if constexpr (R == 6) {
        J_rows.col(k).template head<3>().noalias() = RaT * w;
        J_rows.col(k).template segment<3>(3).noalias() = RaT * lin;
      } else {
        J_rows.col(k).template head<3>().noalias() = RaT * lin;
      }
    }
  }
}

// Three rows (connects, the common contact) or up to six.
void writeBodyJacobianRows(const Model& model, const Data& data, int body, const ConstraintRows& K, int dim,
                           int added_below, Eigen::Ref<MatrixX> J_rows) {
  if (body == 0) return;
  if (dim <= 3) {
    writeBodyJacobianRowsFixed<3>(model, data, body, K, dim, added_below, J_rows);
  } else {
    writeBodyJacobianRowsFixed<6>(model, data, body, K, dim, added_below, J_rows);
  }
}

// Constraint i's rows of J from its K¹, K² (evaluateOne) and the placements.
void writeJacobianRows(const ConstraintSet& set, int i, const Data& data, ConstraintData& cd) {
  const Model& model = set.model();
  const Constraint& c = set[i];
  if (c.kind == ConstraintKind::Coupling) {
    const int row = set.rowOffset(i);
    cd.J.row(row).setZero();
    for (std::size_t k = 0; k < c.coupling_joints.size(); ++k) {
      cd.J(row, model.idx_v[c.coupling_joints[k]]) += c.coupling_coefficients[k];
    }
    return;
  }
  auto rows = cd.J.middleRows(set.rowOffset(i), c.dimension());
  if (c.body2 == 0 && c.row_mask.empty() && (c.kind == ConstraintKind::Weld || c.kind == ConstraintKind::Connect)) {
    if (c.kind == ConstraintKind::Weld) {
      writeWorldEndRows<6>(model, data, c.body1, cd.oMa[i], rows);
    } else {
      writeWorldEndRows<3>(model, data, c.body1, cd.oMa[i], rows);
    }
    return;
  }
  // Only the columns on the two bodies' paths to the root are ever written
  // (the rest stay zero from construction): body1's are assigned, then
  // body2's below the common ancestors assigned and the shared ones added to.
  writeBodyJacobianRows(model, data, c.body1, cd.K1[i], c.dimension(), -1, rows);
  writeBodyJacobianRows(model, data, c.body2, cd.K2[i], c.dimension(), c.body1, rows);
}

}  // namespace

std::optional<Matrix6> constantRowGramOnBody2(const Constraint& c) {
  if (c.kind != ConstraintKind::Connect || c.body2 == 0 || !c.row_mask.empty()) return std::nullopt;
  // K² = -R_Aᵀ R_B C (pointRows): the rotation cancels in K²ᵀK² = CᵀC.
  const Eigen::Matrix<double, 3, 6> C = pointRowsInB(c.placement2.inverse());
  return Matrix6(C.transpose() * C);
}

void evaluateConstraints(const ConstraintSet& set, const Data& data, const Eigen::Ref<const VectorX>& q,
                         const Eigen::Ref<const VectorX>& v, ConstraintData& cd, unsigned terms) {
  for (int i = 0; i < set.size(); ++i) {
    evaluateOne(set, i, data, q, v.data(), cd, terms);
    if ((terms & kConstraintJacobian) && set[i].kind != ConstraintKind::Coupling) writeJacobianRows(set, i, data, cd);
  }
}

void evaluateLinkTargets(const ConstraintSet& set, const Data& data, const Eigen::Ref<const VectorX>& q,
                         const Eigen::Ref<const VectorX>& v, ConstraintData& cd) {
  for (int i = 0; i < set.size(); ++i) evaluateOne(set, i, data, q, v.data(), cd, kConstraintErrors | kLinkTargetsOnly);
}

void evaluatePositionTerms(const ConstraintSet& set, const Data& data, const Eigen::Ref<const VectorX>& q,
                           ConstraintData& cd) {
  for (int i = 0; i < set.size(); ++i) {
    evaluateOne(set, i, data, q, nullptr, cd, 0u);
    writeJacobianRows(set, i, data, cd);
  }
}

void computeConstraintTerms(const ConstraintSet& set, Data& data, const Eigen::Ref<const VectorX>& q,
                            const Eigen::Ref<const VectorX>& v, ConstraintData& cd, unsigned terms) {
  forwardKinematics(set.model(), data, q, v, cd.zero_nv);
  evaluateConstraints(set, data, q, v, cd, terms);
}

void evaluatePositionErrors(const ConstraintSet& set, const Data& data, const Eigen::Ref<const VectorX>& q,
                            ConstraintData& cd) {
  for (int i = 0; i < set.size(); ++i) evaluateOne(set, i, data, q, nullptr, cd, 0u);
}

}  // namespace loopsim
