#include <loopsim/solvers/loops/cluster_spanning.hpp>

#include <algorithm>
#include <sstream>

#include <Eigen/SVD>

#include <loopsim/model/errors.hpp>

namespace loopsim {

ClusterSpanning::ClusterSpanning(const ClusterStructure& structure) : structure_(structure) {
  for (const BodyCluster& cl : structure.clusters()) {
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
    lu_.emplace_back(nr);
    const bool every_dof = nr > 0 && !cl.constant_jacobian;  // a loop: may come near singular
    Kt_.push_back(MatrixX::Zero(every_dof ? nd : 0, every_dof ? nr : 0));
    qr_.emplace_back(every_dof ? nd : 0, every_dof ? nr : 0);
    force_.push_back(VectorX::Zero(every_dof ? nd : 0));
  }
  factored_.assign(structure.clusters().size(), 0);
  near_singular_.assign(structure.clusters().size(), 0);
  pivot_ratio_.assign(structure.clusters().size(), 1.0);
}

double ClusterSpanning::update(const ConstraintData& cdata) {
  double worst = 1.0;
  any_near_singular_ = false;
  const auto& clusters = structure_.clusters();
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const BodyCluster& cl = clusters[k];
    const int nr = cl.rowCount();
    if (nr == 0) continue;  // an open cluster: G = 1, g = 0
    for (int r = 0; r < nr; ++r) rhs_[k][r] = cdata.k[cl.rows[r]];
    // A cluster of couplings has a constant K: G_k and K_d's factor are kept
    // from the first state, and only g_k follows the state's target.
    if (!cl.constant_jacobian || !factored_[k]) {
      MatrixX& Kd = Kd_[k];
      MatrixX& Ky = Ky_[k];
      for (int r = 0; r < nr; ++r) {
        const int row = cl.rows[r];
        for (int c = 0; c < nr; ++c) Kd(r, c) = cdata.J(row, cl.dofs[cl.dependent[c]]);
        for (int c = 0; c < cl.independentCount(); ++c) Ky(r, c) = cdata.J(row, cl.dofs[cl.independent[c]]);
      }
      lu_[k].compute(Kd);
      const auto pivots = dependentPivots(static_cast<int>(k));
      const double largest = pivots.maxCoeff();
      pivot_ratio_[k] = largest > 0.0 ? pivots.minCoeff() / largest : 0.0;
      // G_d = -K_d⁻¹ K_y (eq. 3 from eq. 2), solved in place.
      solved_rows_[k] = lu_[k].solve(Ky);
      for (int r = 0; r < nr; ++r) G_[k].row(cl.dependent[r]) = -solved_rows_[k].row(r);
      factored_[k] = 1;
    }
    near_singular_[k] = !cl.constant_jacobian && G_[k].lpNorm<Eigen::Infinity>() > kNearSingularSpanning;
    if (near_singular_[k]) {
      any_near_singular_ = true;
      MatrixX& Kt = Kt_[k];
      for (int r = 0; r < nr; ++r) {
        for (int d = 0; d < cl.dofCount(); ++d) Kt(d, r) = cdata.J(cl.rows[r], cl.dofs[d]);
      }
      qr_[k].compute(Kt);
    }
    worst = std::min(worst, pivot_ratio_[k]);
    // g_d = K_d⁻¹ k (eq. 3).
    solution_[k] = lu_[k].solve(rhs_[k]);
    for (int r = 0; r < nr; ++r) g_[k][cl.dependent[r]] = solution_[k][r];
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
      continue;
    }
    VectorX& r = rhs_[k];
    for (int c = 0; c < nr; ++c) r[c] = joint_force[cl.dofs[cl.dependent[c]]];
    // K_dᵀ λ = r_d with P K_d = L U: Uᵀ Lᵀ (P λ) = r_d, by in-place triangular
    // solves (Eigen's transpose().solve() makes temporaries).
    const auto& LU = lu_[k].matrixLU();
    LU.triangularView<Eigen::Upper>().transpose().solveInPlace(r);
    LU.triangularView<Eigen::UnitLower>().transpose().solveInPlace(r);
    solution_[k].noalias() = lu_[k].permutationP().transpose() * r;
    for (int c = 0; c < nr; ++c) lambda[cl.rows[c]] = solution_[k][c];
  }
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
