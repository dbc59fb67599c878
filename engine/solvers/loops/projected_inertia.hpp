#pragma once
// The projection method's reduced inertia (paper 004 §II-D and §II-E): the
// whole tree's explicit constraint Jacobian G and g (block diagonal over the
// clusters, ClusterSpanning::assemble), H G, and Gᵀ H G = L Lᵀ densely.
// Shared by the projection-method solver and the `projection` Delassus
// algorithm. No allocation in factor().
#include <string>

#include <loopsim/linalg/dense_cholesky.hpp>
#include <loopsim/solvers/loops/cluster_spanning.hpp>

namespace loopsim {

class ProjectedInertia {
 public:
  ProjectedInertia(int nv, int independent_dofs);

  /// G and g at `spanning`'s last update, H G and the factor of Gᵀ H G for
  /// the joint-space inertia H (both triangles). Throws ModelError (file,
  /// owner) when Gᵀ H G is not positive definite.
  void factor(const Eigen::Ref<const MatrixX>& H, const ClusterSpanning& spanning, const std::string& file,
              const char* owner);

  const MatrixX& G() const { return G_; }
  const VectorX& g() const { return g_; }
  const MatrixX& HG() const { return HG_; }
  /// Gᵀ H G = L Lᵀ.
  const DenseCholesky& cholesky() const { return cholesky_; }

 private:
  MatrixX G_;             // nv x n_y
  VectorX g_;             // nv
  MatrixX HG_, reduced_;  // H G and Gᵀ H G
  DenseCholesky cholesky_;
};

}  // namespace loopsim
