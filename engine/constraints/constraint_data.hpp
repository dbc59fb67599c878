#pragma once
// Preallocated workspace holding the evaluated constraint terms at one state.
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/data.hpp>

namespace loopsim {

using ConstraintRows = Eigen::Matrix<double, 6, 6>;  // top dimension() rows used

struct ConstraintData {
  explicit ConstraintData(const ConstraintSet& set);

  VectorX phi;     // position error φ(q)
  VectorX phidot;  // velocity error φ̇ = J v
  VectorX bias;    // velocity-product acceleration J̇ v
  VectorX k;       // desired constraint acceleration: J v̇ = k = -J̇v - Kd φ̇ - Kp φ
  VectorX k_link;  // the same target written on link accelerations: K¹ a₁ + K² a₂ = k_link
  MatrixX J;       // dense constraint Jacobian (dimension x nv), only with ConstraintTerms::Jacobian

  // Per constraint: rows on the spatial accelerations (body frames) of body1
  // and body2 (paper 001 eq. 1c, K¹ and K²); unused for couplings.
  std::vector<ConstraintRows> K1, K2;
  // K¹ with all six rows, before the row mask. K¹ (both) depends on the
  // constant placement of frame A on body1 only: written here once, at
  // construction, and never by an evaluation.
  std::vector<ConstraintRows> K1_full;
  std::vector<SE3> oMa, oMb;  // frame A and B placements in the world

  // Workspace.
  VectorX zero_nv;
};

/// K¹'s six rows for constraint c, before its row mask (zero for couplings):
/// constant, as they depend only on frame A's placement on body1.
ConstraintRows constantRowsOnBody1(const Constraint& c);

enum ConstraintTerms : unsigned {
  kConstraintErrors = 1u,    // φ, φ̇, J̇v, k, k_link, K² (always computed; K¹ is constant)
  kConstraintJacobian = 2u,  // dense J
};

/// Evaluates every constraint at the state held by `data`: it needs
/// forwardKinematics(q, v, 0) (placements, body velocities and the
/// velocity-product accelerations data.a with v̇ = 0). No allocation.
void evaluateConstraints(const ConstraintSet& set, const Data& data, const Eigen::Ref<const VectorX>& q,
                         const Eigen::Ref<const VectorX>& v, ConstraintData& cdata, unsigned terms = kConstraintErrors);

/// A coupling's φ = Σ c_j q_j - c_0 and φ̇ = Σ c_j q̇_j (φ̇ = 0 without v).
struct CouplingError {
  double phi = 0.0, phidot = 0.0;
};
CouplingError couplingError(const Model& model, const Constraint& coupling, const Eigen::Ref<const VectorX>& q,
                            const double* v);

/// Runs forwardKinematics(q, v, 0) on data, then evaluateConstraints.
void computeConstraintTerms(const ConstraintSet& set, Data& data, const Eigen::Ref<const VectorX>& q,
                            const Eigen::Ref<const VectorX>& v, ConstraintData& cdata,
                            unsigned terms = kConstraintErrors);

/// Position-error only (forwardKinematics(q) placements suffice).
void evaluatePositionErrors(const ConstraintSet& set, const Data& data, const Eigen::Ref<const VectorX>& q,
                            ConstraintData& cdata);

}  // namespace loopsim
