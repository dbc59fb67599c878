#include <loopsim/control/holding_forces.hpp>

#include <Eigen/QR>
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <sstream>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

std::vector<int> actuatedDofs(const Model& model, const std::vector<int>& actuated_joints) {
  std::vector<int> dofs;
  for (int j : actuated_joints) {
    if (j < 1 || j >= model.nbodies()) {
      throw ModelError(model.source_file, "hold", "actuated joint index " + std::to_string(j) + " out of range");
    }
    for (int k = 0; k < model.joint_nv[j]; ++k) dofs.push_back(model.idx_v[j] + k);
  }
  std::sort(dofs.begin(), dofs.end());
  if (std::adjacent_find(dofs.begin(), dofs.end()) != dofs.end()) {
    throw ModelError(model.source_file, "hold", "a joint is listed twice among the actuated joints");
  }
  return dofs;
}

std::string shortNumber(double x) {
  std::ostringstream os;
  os.precision(4);
  os << x;
  return os.str();
}

// "'l_arm_lwy' 0.52, 'root_joint:vz' 0.1" for the largest entries of the unbalanced load.
std::string largestDofs(const Model& model, const VectorX& unbalanced, int count) {
  std::vector<int> order(static_cast<std::size_t>(unbalanced.size()));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return std::abs(unbalanced[a]) > std::abs(unbalanced[b]); });
  std::string out;
  for (int k = 0; k < count && k < static_cast<int>(order.size()); ++k) {
    const int dof = order[static_cast<std::size_t>(k)];
    if (std::abs(unbalanced[dof]) <= 1e-3 * std::abs(unbalanced[order[0]])) break;
    out += (k ? ", '" : "'") + dofName(model, dof) + "' " + shortNumber(unbalanced[dof]);
  }
  return out;
}

}  // namespace

std::string dofName(const Model& model, int dof) {
  const int j = model.dof_joint[dof];
  const std::string& name = model.joint_names[j];
  const int k = dof - model.idx_v[j];
  switch (model.joint_types[j]) {
    case JointType::Revolute:
    case JointType::Prismatic: return name;
    case JointType::Spherical: return name + ":" + std::string(std::array{"wx", "wy", "wz"}[k]);
    case JointType::Floating: return name + ":" + std::string(std::array{"wx", "wy", "wz", "vx", "vy", "vz"}[k]);
  }
  return name;
}

HoldingForces leastEffortHoldingForces(const ConstraintSet& constraints, const Eigen::Ref<const VectorX>& q,
                                       const std::vector<int>& actuated_joints, const HoldingSettings& settings) {
  const Model& model = constraints.model();
  const int nv = model.nv;
  const int m = constraints.dimension();
  auto fail = [&](const std::string& why) { throw ModelError(model.source_file, "hold", why); };
  if (q.size() != model.nq) fail("configuration has size " + std::to_string(q.size()) + ", expected nq = " + std::to_string(model.nq));
  if (!q.allFinite()) fail("configuration has a NaN or Inf value");
  const std::vector<int> dofs = actuatedDofs(model, actuated_joints);
  const int na = static_cast<int>(dofs.size());

  // τ = Sᵀ D τ̃ with D = diag(1/√w): minimising ‖τ̃‖ minimises Σ w τ².
  const VectorX& weights = settings.effort_weights;
  if (weights.size() != 0 && weights.size() != nv) {
    fail("effort weights have size " + std::to_string(weights.size()) + ", expected nv = " + std::to_string(nv));
  }
  MatrixX scaled_selection = MatrixX::Zero(nv, na);  // Sᵀ D
  for (int k = 0; k < na; ++k) {
    const int dof = dofs[static_cast<std::size_t>(k)];
    const double w = weights.size() == 0 ? 1.0 : weights[dof];
    if (!(w > 0.0) || !std::isfinite(w)) {
      fail("effort weight of '" + dofName(model, dof) + "' must be finite and > 0 (got " + shortNumber(w) + ")");
    }
    scaled_selection(dof, k) = 1.0 / std::sqrt(w);
  }

  HoldingForces out;
  Data data(model);
  const VectorX zero = VectorX::Zero(nv);
  out.load = rnea(model, data, q, zero, zero) - passiveForces(model, data, q, zero);

  ConstraintData cdata(constraints);
  MatrixX null_basis;  // N: orthonormal basis of null(J)
  if (m > 0) {
    computeConstraintTerms(constraints, data, q, zero, cdata, kConstraintJacobian);
    const Eigen::ColPivHouseholderQR<MatrixX> qr(cdata.J.transpose());
    out.constraint_rank = static_cast<int>(qr.rank());
    const MatrixX Q = qr.householderQ();
    null_basis = Q.rightCols(nv - out.constraint_rank);
  } else {
    null_basis = MatrixX::Identity(nv, nv);
  }

  // Nᵀ Sᵀ D τ̃ = Nᵀ b: the part of the load the constraints cannot take.
  const MatrixX reduced_selection = null_basis.transpose() * scaled_selection;
  const VectorX reduced_load = null_basis.transpose() * out.load;
  VectorX scaled_tau = VectorX::Zero(na);
  if (na > 0 && reduced_selection.rows() > 0) {
    scaled_tau = Eigen::CompleteOrthogonalDecomposition<MatrixX>(reduced_selection).solve(reduced_load);
  }
  out.tau = scaled_selection * scaled_tau;
  out.unbalanced = null_basis * (reduced_load - reduced_selection * scaled_tau);

  out.lambda = VectorX::Zero(m);
  if (m > 0) {
    out.lambda = Eigen::CompleteOrthogonalDecomposition<MatrixX>(cdata.J.transpose()).solve(out.load - out.tau);
  }
  return out;
}

HoldingForces holdingForces(const ConstraintSet& constraints, const Eigen::Ref<const VectorX>& q,
                            const std::vector<int>& actuated_joints, const HoldingSettings& settings) {
  if (!(settings.relative_tolerance > 0.0)) {
    throw ModelError(constraints.model().source_file, "hold", "relative tolerance must be > 0");
  }
  HoldingForces out = leastEffortHoldingForces(constraints, q, actuated_joints, settings);
  const double scale = std::max(out.load.norm(), 1.0);
  const double unbalanced = out.unbalanced.norm();
  if (unbalanced > settings.relative_tolerance * scale) {
    const Model& model = constraints.model();
    throw ModelError(model.source_file, "hold",
                     "the pose cannot be held with the actuated joints: of the load |g - tau_passive| = " +
                         shortNumber(out.load.norm()) + " (N m, N), " + shortNumber(unbalanced) + " (" +
                         shortNumber(100.0 * unbalanced / scale) +
                         "%) is carried neither by an actuated joint nor by a constraint; largest on " +
                         largestDofs(model, out.unbalanced, 4) +
                         " (actuate those joints, constrain the bodies they move, or choose another pose)");
  }
  return out;
}

}  // namespace loopsim
