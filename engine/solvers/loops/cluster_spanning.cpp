#include <loopsim/solvers/loops/cluster_spanning.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include <Eigen/SVD>

#include <loopsim/linalg/small_lu_solve.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

ClusterSpanning::ClusterSpanning(const ClusterStructure& structure, const ConstraintSet* set)
    : structure_(structure), set_(set) {
  from_joints_possible_ = set != nullptr;
  for (const BodyCluster& cl : structure.clusters()) {
    // The terms from the joints (updateFromJoints): K on the cluster's dofs,
    // couplings' rows once, a planar loop's per state.
    K_.push_back(MatrixX::Zero(cl.rowCount(), cl.dofCount()));
    target_.push_back(VectorX::Zero(cl.rowCount()));
    Q_.push_back(Eigen::Matrix2d::Identity());
    couplings_.emplace_back();
    planar_.push_back(set != nullptr ? PlanarLoop::recognise(*set, cl) : std::nullopt);
    if (set != nullptr) {
      for (int c : cl.constraints) {
        const Constraint& con = (*set)[c];
        if (con.kind != ConstraintKind::Coupling) continue;
        const int row = static_cast<int>(std::find(cl.rows.begin(), cl.rows.end(), set->rowOffset(c)) - cl.rows.begin());
        couplings_.back().push_back({c, row});
        for (std::size_t j = 0; j < con.coupling_joints.size(); ++j) {
          const int dof = set->model().idx_v[con.coupling_joints[j]];
          const auto it = std::find(cl.dofs.begin(), cl.dofs.end(), dof);
          if (it == cl.dofs.end()) {  // never by construction: the generic terms then
            from_joints_possible_ = false;
            continue;
          }
          K_.back()(row, static_cast<int>(it - cl.dofs.begin())) += con.coupling_coefficients[j];
        }
      }
      const bool every_row_explained = static_cast<int>(couplings_.back().size()) + (planar_.back() ? 2 : 0) == cl.rowCount();
      if (!every_row_explained) from_joints_possible_ = false;
    }
    const int nd = cl.dofCount(), ny = cl.independentCount(), nr = cl.rowCount();
    MatrixX G = MatrixX::Zero(nd, ny);
    for (int c = 0; c < ny; ++c) G(cl.independent[c], c) = 1.0;  // the y rows of G are the identity
    G_.push_back(std::move(G));
    g_.push_back(VectorX::Zero(nd));
    Kd_.push_back(MatrixX::Zero(nr, nr));
    Ky_.push_back(MatrixX::Zero(nr, ny));
    rhs_.push_back(VectorX::Zero(nr));
    solution_.push_back(VectorX::Zero(nr));
    solved_rows_.push_back(MatrixX::Zero(nr, ny));
    lu_.emplace_back(nr > kSmallClusterRows ? nr : 0);
    const bool every_dof = nr > 0 && !cl.constant_jacobian;  // a loop: may come near singular
    Kt_.push_back(MatrixX::Zero(every_dof ? nd : 0, every_dof ? nr : 0));
    qr_.emplace_back(every_dof ? nd : 0, every_dof ? nr : 0);
    force_.push_back(VectorX::Zero(every_dof ? nd : 0));
  }
  lu1_.resize(structure.clusters().size());
  lu2_.resize(structure.clusters().size());
  lu3_.resize(structure.clusters().size());
  factored_.assign(structure.clusters().size(), 0);
  near_singular_.assign(structure.clusters().size(), 0);
  pivot_ratio_.assign(structure.clusters().size(), 1.0);
}

template <int N>
ClusterSpanning::SmallLu<N>& ClusterSpanning::smallLu(int k) {
  if constexpr (N == 1) return lu1_[k];
  else if constexpr (N == 2) return lu2_[k];
  else return lu3_[k];
}

template <int N>
const ClusterSpanning::SmallLu<N>& ClusterSpanning::smallLu(int k) const {
  return const_cast<ClusterSpanning*>(this)->smallLu<N>(k);
}

namespace {
double pivotRatio(const auto& pivots) {
  const double largest = pivots.maxCoeff();
  return largest > 0.0 ? pivots.minCoeff() / largest : 0.0;
}
}  // namespace

template <int N>
double ClusterSpanning::factorSmall(int k) {
  SmallLu<N>& lu = smallLu<N>(k);
  lu.compute(Eigen::Matrix<double, N, N>(Kd_[k]));
  // K_d⁻¹ K_y column by column: fixed-size vector solves, unrolled.
  if constexpr (N == 1) {
    solved_rows_[k] = Ky_[k] / lu.matrixLU()(0, 0);
  } else {
    for (int c = 0; c < Ky_[k].cols(); ++c) {
      solved_rows_[k].col(c) = smallLuSolve<N>(lu, Eigen::Matrix<double, N, 1>(Ky_[k].col(c)));
    }
  }
  return pivotRatio(lu.matrixLU().diagonal().cwiseAbs());
}

double ClusterSpanning::factorDense(int k) {
  lu_[k].compute(Kd_[k]);
  solved_rows_[k] = lu_[k].solve(Ky_[k]);
  return pivotRatio(lu_[k].matrixLU().diagonal().cwiseAbs());
}

// One row (a gear) divides by the pivot: Eigen's 1x1 solve expression allocated.
template <int N>
void ClusterSpanning::solveSmall(int k) {
  if constexpr (N == 1) {
    solution_[k][0] = rhs_[k][0] / smallLu<1>(k).matrixLU()(0, 0);
  } else {
    solution_[k] = smallLuSolve<N>(smallLu<N>(k), Eigen::Matrix<double, N, 1>(rhs_[k]));
  }
}

template <int N>
void ClusterSpanning::solveTransposedSmall(int k) {
  if constexpr (N == 1) {
    solveSmall<1>(k);
  } else {
    solution_[k] = smallLuSolveTransposed<N>(smallLu<N>(k), Eigen::Matrix<double, N, 1>(rhs_[k]));
  }
}

VectorX ClusterSpanning::dependentPivots(int k) const {
  switch (structure_.clusters()[k].rowCount()) {
    case 1: return smallLu<1>(k).matrixLU().diagonal().cwiseAbs();
    case 2: return smallLu<2>(k).matrixLU().diagonal().cwiseAbs();
    case 3: return smallLu<3>(k).matrixLU().diagonal().cwiseAbs();
    default: return lu_[k].matrixLU().diagonal().cwiseAbs();
  }
}

template <class KAt>
void ClusterSpanning::spanCluster(int k, const KAt& K) {
  const BodyCluster& cl = structure_.clusters()[k];
  const int nr = cl.rowCount();
  // A cluster of couplings has a constant K: G_k and K_d's factor are kept
  // from the first state, and only g_k follows the state's target.
  if (!cl.constant_jacobian || !factored_[k]) {
    MatrixX& Kd = Kd_[k];
    MatrixX& Ky = Ky_[k];
    for (int r = 0; r < nr; ++r) {
      for (int c = 0; c < nr; ++c) Kd(r, c) = K(r, cl.dependent[c]);
      for (int c = 0; c < cl.independentCount(); ++c) Ky(r, c) = K(r, cl.independent[c]);
    }
    // G_d = -K_d⁻¹ K_y (eq. 3 from eq. 2).
    switch (nr) {
      case 1: pivot_ratio_[k] = factorSmall<1>(k); break;
      case 2: pivot_ratio_[k] = factorSmall<2>(k); break;
      case 3: pivot_ratio_[k] = factorSmall<3>(k); break;
      default: pivot_ratio_[k] = factorDense(k); break;
    }
    for (int r = 0; r < nr; ++r) G_[k].row(cl.dependent[r]) = -solved_rows_[k].row(r);
    factored_[k] = 1;
  }
  near_singular_[k] = !cl.constant_jacobian && G_[k].lpNorm<Eigen::Infinity>() > kNearSingularSpanning;
  if (near_singular_[k]) {
    any_near_singular_ = true;
    MatrixX& Kt = Kt_[k];
    for (int r = 0; r < nr; ++r) {
      for (int d = 0; d < cl.dofCount(); ++d) Kt(d, r) = K(r, d);
    }
    qr_[k].compute(Kt);
  }
  // g_d = K_d⁻¹ k (eq. 3).
  switch (nr) {
    case 1: solveSmall<1>(k); break;
    case 2: solveSmall<2>(k); break;
    case 3: solveSmall<3>(k); break;
    default: solution_[k] = lu_[k].solve(rhs_[k]); break;
  }
  for (int r = 0; r < nr; ++r) g_[k][cl.dependent[r]] = solution_[k][r];
}

double ClusterSpanning::update(const ConstraintData& cdata) {
  double worst = 1.0;
  any_near_singular_ = false;
  from_joints_ = false;
  const auto& clusters = structure_.clusters();
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    const int nr = cl.rowCount();
    if (nr == 0) continue;  // an open cluster: G = 1, g = 0
    for (int r = 0; r < nr; ++r) rhs_[k][r] = cdata.k[cl.rows[r]];
    spanCluster(static_cast<int>(k), [&](int r, int d) { return cdata.J(cl.rows[r], cl.dofs[d]); });
    worst = std::min(worst, pivot_ratio_[k]);
  }
  return worst;
}

double ClusterSpanning::updateFromJoints(const Data& data, const Eigen::Ref<const VectorX>& q,
                                         const Eigen::Ref<const VectorX>& v) {
  double worst = 1.0;
  any_near_singular_ = false;
  from_joints_ = true;
  const Model& m = set_->model();
  const auto& clusters = structure_.clusters();
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    if (cl.rowCount() == 0) continue;
    MatrixX& K = K_[k];
    // Couplings (Σ c_j q_j = c_0): K's row is constant (set at bind time),
    // the target -k_d φ̇ - k_p φ as ConstraintData's.
    for (const CouplingTerm& term : couplings_[k]) {
      const auto [phi, phidot] = couplingError(m, (*set_)[term.constraint], q, v.data());
      const BaumgarteGains& gains = set_->gains(term.constraint);
      rhs_[k][term.row] = -gains.kd * phidot - gains.kp * phi;
    }
    if (planar_[k]) planar_[k]->evaluate(data, v, set_->gains(planar_[k]->constraint()), K, rhs_[k].data(), Q_[k]);
    target_[k] = rhs_[k];  // rhs_ is the multipliers' scratch
    spanCluster(static_cast<int>(k), [&](int r, int d) { return K(r, d); });
    worst = std::min(worst, pivot_ratio_[k]);
  }
  return worst;
}

double ClusterSpanning::residualFromJoints(const Eigen::Ref<const VectorX>& qdd) const {
  double worst = 0.0;
  const auto& clusters = structure_.clusters();
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    for (int r = 0; r < cl.rowCount(); ++r) {
      double row = -target_[k][r];
      for (int d = 0; d < cl.dofCount(); ++d) row += K_[k](r, d) * qdd[cl.dofs[d]];
      worst = std::max(worst, std::abs(row));
    }
  }
  return worst;
}

void ClusterSpanning::multipliersFromJointForce(const Eigen::Ref<const VectorX>& joint_force,
                                                Eigen::Ref<VectorX> lambda) {
  const auto& clusters = structure_.clusters();
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    const int nr = cl.rowCount();
    if (nr == 0) continue;
    if (near_singular_[k]) {
      // min |K_kᵀ λ - r_k| with K_kᵀ = Q R: λ = R⁻¹ (Qᵀ r)_rows, the
      // reflections H_j = 1 - τ_j v_j v_jᵀ applied in place (v_j's first entry 1).
      VectorX& r = force_[k];
      const int nd = cl.dofCount();
      for (int d = 0; d < nd; ++d) r[d] = joint_force[cl.dofs[d]];
      const MatrixX& QR = qr_[k].matrixQR();
      for (int j = 0; j < nr; ++j) {
        const int tail = nd - j - 1;
        const double w = qr_[k].hCoeffs()[j] * (r[j] + QR.col(j).tail(tail).dot(r.tail(tail)));
        r[j] -= w;
        r.tail(tail) -= w * QR.col(j).tail(tail);
      }
      QR.topRows(nr).triangularView<Eigen::Upper>().solveInPlace(r.head(nr));
      for (int c = 0; c < nr; ++c) lambda[cl.rows[c]] = r[c];
      rotatePlanarRows(static_cast<int>(k), lambda);
      continue;
    }
    VectorX& r = rhs_[k];
    for (int c = 0; c < nr; ++c) r[c] = joint_force[cl.dofs[cl.dependent[c]]];
    const int ki = static_cast<int>(k);
    switch (nr) {
      case 1: solveTransposedSmall<1>(ki); break;
      case 2: solveTransposedSmall<2>(ki); break;
      case 3: solveTransposedSmall<3>(ki); break;
      default: {
        // K_dᵀ λ = r_d with P K_d = L U: Uᵀ Lᵀ (P λ) = r_d, by in-place triangular
        // solves (Eigen's transpose().solve() makes dynamic temporaries).
        const auto& LU = lu_[k].matrixLU();
        LU.triangularView<Eigen::Upper>().transpose().solveInPlace(r);
        LU.triangularView<Eigen::UnitLower>().transpose().solveInPlace(r);
        solution_[k].noalias() = lu_[k].permutationP().transpose() * r;
      }
    }
    for (int c = 0; c < nr; ++c) lambda[cl.rows[c]] = solution_[k][c];
    rotatePlanarRows(static_cast<int>(k), lambda);
  }
}

void ClusterSpanning::rotatePlanarRows(int k, Eigen::Ref<VectorX> lambda) const {
  if (!from_joints_ || !planar_[k]) return;
  // The loop's rows were the root's: λ_A = Q λ (planar_loop.hpp).
  const BodyCluster& cl = structure_.clusters()[k];
  const int x = cl.rows[planar_[k]->rowPosition(0)], y = cl.rows[planar_[k]->rowPosition(1)];
  const Eigen::Vector2d root_rows(lambda[x], lambda[y]);
  const Eigen::Vector2d a_rows = Q_[k] * root_rows;
  lambda[x] = a_rows[0];
  lambda[y] = a_rows[1];
}

void ClusterSpanning::spanningAcceleration(const Eigen::Ref<const VectorX>& ydd, Eigen::Ref<VectorX> qdd) const {
  int offset = 0;
  const auto& clusters = structure_.clusters();
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    const auto y = ydd.segment(offset, cl.independentCount());
    for (int d = 0; d < cl.dofCount(); ++d) qdd[cl.dofs[d]] = G_[k].row(d).dot(y) + g_[k][d];
    offset += cl.independentCount();
  }
}

void ClusterSpanning::projectOnIndependent(const Eigen::Ref<const VectorX>& spanning_force,
                                           Eigen::Ref<VectorX> out) const {
  int offset = 0;
  const auto& clusters = structure_.clusters();
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    auto out_k = out.segment(offset, cl.independentCount());
    out_k.setZero();
    for (int d = 0; d < cl.dofCount(); ++d) out_k.noalias() += G_[k].row(d).transpose() * spanning_force[cl.dofs[d]];
    offset += cl.independentCount();
  }
}

void ClusterSpanning::assemble(Eigen::Ref<MatrixX> G, Eigen::Ref<VectorX> g) const {
  int column = 0;
  const auto& clusters = structure_.clusters();
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    for (int d = 0; d < cl.dofCount(); ++d) {
      G.row(cl.dofs[d]).segment(column, cl.independentCount()) = G_[k].row(d);
      g[cl.dofs[d]] = g_[k][d];
    }
    column += cl.independentCount();
  }
}

void checkClustersAt(const ConstraintSet& set, const std::vector<int>& independent_dofs,
                     const Eigen::Ref<const VectorX>& q, const std::string& owner, ClusterScope scope) {
  const ClusterStructure structure(set, independent_dofs, owner, scope);
  if (set.dimension() == 0) return;
  const Model& model = set.model();
  Data data(model);
  ConstraintData cdata(set);
  computeConstraintTerms(set, data, q, VectorX::Zero(model.nv), cdata, kConstraintErrors | kConstraintJacobian);
  ClusterSpanning spanning(structure);
  spanning.update(cdata);
  for (std::size_t k = 0; k < structure.clusters().size(); ++k) {
    const BodyCluster& cl = structure.clusters()[k];
    if (cl.rowCount() == 0) continue;
    const auto pivots = spanning.dependentPivots(static_cast<int>(k));
    if (pivots.minCoeff() > kSingularPivotRatio * pivots.maxCoeff()) continue;
    std::ostringstream os;
    os << "the loop cluster of constraint(s) ";
    for (std::size_t c = 0; c < cl.constraints.size(); ++c) os << (c ? ", '" : "'") << set[cl.constraints[c]].name << "'";
    os << " (joints " << structure.jointList(cl) << ") cannot be coordinated by the declared independent coordinates at the "
       << "initial configuration: the dependent joints' columns of K are singular (pivot ratio "
       << pivots.minCoeff() / pivots.maxCoeff() << ")";
    // A motion of the dependent dofs that moves no constrained point (K_d's null space), such as
    // the spin of a ball-jointed rod about its own axis, can only be independent: name its joints
    // and, per joint, the dof that carries most of that motion (the one to declare).
    MatrixX Kd(cl.rowCount(), cl.rowCount());
    for (int r = 0; r < cl.rowCount(); ++r) {
      for (int c = 0; c < cl.rowCount(); ++c) Kd(r, c) = cdata.J(cl.rows[r], cl.dofs[cl.dependent[c]]);
    }
    const Eigen::JacobiSVD<MatrixX> svd(Kd, Eigen::ComputeFullV);
    const auto& sigma = svd.singularValues();
    std::vector<int> free_joints, free_dofs;  // joint, and its dof position with the largest share
    std::vector<double> share;
    for (int n = 0; n < sigma.size(); ++n) {
      if (sigma[n] > 1e-9 * sigma[0]) continue;
      const VectorX direction = svd.matrixV().col(n).cwiseAbs();
      for (int c = 0; c < direction.size(); ++c) {
        if (direction[c] < 0.1 * direction.maxCoeff()) continue;
        const int dof = cl.dofs[cl.dependent[c]];
        const int joint = model.dof_joint[dof];
        const auto it = std::find(free_joints.begin(), free_joints.end(), joint);
        const std::size_t f = static_cast<std::size_t>(it - free_joints.begin());
        if (it == free_joints.end()) {
          free_joints.push_back(joint);
          free_dofs.push_back(dof - model.idx_v[joint]);
          share.push_back(direction[c]);
        } else if (direction[c] > share[f]) {
          free_dofs[f] = dof - model.idx_v[joint];
          share[f] = direction[c];
        }
      }
    }
    if (!free_joints.empty()) {
      os << "; a motion of the dependent joint(s) ";
      for (std::size_t j = 0; j < free_joints.size(); ++j) os << (j ? ", '" : "'") << model.joint_names[free_joints[j]] << "'";
      os << " moves no constrained point (e.g. a ball-jointed rod's spin about its own axis), so it can only be "
            "independent: declare that dof alone, e.g. ";
      for (std::size_t j = 0; j < free_joints.size(); ++j) {
        const int joint = free_joints[j];
        os << (j ? ", " : "");
        // The dof by its record column's name (scene key `independent` takes names or positions).
        static constexpr const char* kDofNames[] = {"wx", "wy", "wz", "vx", "vy", "vz"};
        if (model.joint_nv[joint] == 1) os << model.joint_names[joint];
        else os << "{joint: " << model.joint_names[joint] << ", dofs: [" << kDofNames[free_dofs[j]] << "]}";
      }
    } else {
      os << "; declare other joints of the cluster under 'independent'";
    }
    throw ModelError(model.source_file, owner, os.str());
  }
}

}  // namespace loopsim
