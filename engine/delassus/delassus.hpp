#pragma once
// The Delassus matrix (inverse operational-space inertia) Λ⁻¹ = J M⁻¹ Jᵀ of a
// constraint set at q, by algorithm name:
//   dense         CRBA, Cholesky of M, J M⁻¹ Jᵀ (the reference)
//   ltl-osim      through the sparse LTDL factors of M (Featherstone 2010; the path
//                 the joint-space solvers use)
//   pv-osim       paper 000 Alg. 2: the PV backward sweep's L_0^A, O(n + m²d)
//   efpa          paper 002 Alg. 2: extended force propagators, O(n + md + m²)
//   pv-osimr      paper 002 Alg. 3: propagators between branching links only, O(n + m²)
//   dense-closed  the reference with the internal loops closed (below)
//   cluster-efpa  paper 004 §VIII: extended force propagators over the loop clusters
//   projection    paper 004 §II-E: J_W G (Gᵀ M G)⁻¹ Gᵀ J_Wᵀ with cluster-efpa's G, dense
// The recursive ones (pv-osim, efpa, pv-osimr) take world constraints on
// trees only; dense and ltl-osim take any set. pv-osim-fast (paper 000
// §VII-B) never forms the matrix: it solves with it (pv_osim_fast.hpp). Rows follow the constraint
// set's order. Computing into a preallocated matrix does not allocate.
//
// Loops closed: on a mechanism with internal loops or couplings (K q̈ = k,
// K full row rank) the world constraints J_W see the inverse inertia on the
// loops' manifold, J_W G (Gᵀ M G)⁻¹ G ᵀ J_Wᵀ with G spanning K's null space
// (paper 004 §II-E, the "Projection method"); it does not depend on which
// basis G is. dense-closed, cluster-efpa and projection compute that matrix on the world
// rows, and 0 on the rows of the internal loops and couplings (K G = 0: the
// closed loops carry any force put on them). dense-closed forms it as the Schur
// complement of the loop block in dense's J M⁻¹ Jᵀ,
//     Λ⁻¹_WW - Λ⁻¹_WL (Λ⁻¹_LL)⁻¹ Λ⁻¹_LW,
// i.e. the world rows' Delassus once the loop multipliers are eliminated;
// cluster-efpa by recursion over the clusters, coordinated by the declared
// independent joints; projection by that formula with the same G (the
// paper's baseline for C-EFPA). Without internal loops all three equal dense.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>

namespace loopsim {

class DelassusAlgorithm {
 public:
  virtual ~DelassusAlgorithm() = default;
  virtual std::string_view name() const = 0;
  /// out (m x m, preallocated) = J(q) M(q)⁻¹ J(q)ᵀ. No allocation.
  virtual void compute(const Eigen::Ref<const VectorX>& q, Eigen::Ref<MatrixX> out) = 0;
};

struct DelassusAlgorithmInfo {
  std::string name;
  std::string description;
  bool trees_with_world_constraints_only = false;
  bool loops_closed = false;  // the matrix with the internal loops closed (dense-closed is its reference)
  bool needs_independent_joints = false;
};

/// Every algorithm, in a stable order.
const std::vector<DelassusAlgorithmInfo>& delassusAlgorithms();

/// Throws ModelError naming the nearest valid names when unknown, and when the
/// algorithm cannot take the set (internal loops or couplings, said which).
/// `independent_dofs` (scene key `independent`, model v indices): the dofs coordinating the
/// loop clusters of cluster-efpa and projection; the other algorithms take none.
std::unique_ptr<DelassusAlgorithm> makeDelassusAlgorithm(const std::string& name, const ConstraintSet& set,
                                                         const std::vector<int>& independent_dofs = {});

/// One call: the m x m Delassus matrix of `set` at q by `algorithm`.
MatrixX computeDelassus(const ConstraintSet& set, const Eigen::Ref<const VectorX>& q, const std::string& algorithm,
                        const std::vector<int>& independent_dofs = {});

}  // namespace loopsim
