#include <loopsim/solvers/loops/projected_inertia.hpp>

#include <loopsim/model/errors.hpp>

namespace loopsim {

ProjectedInertia::ProjectedInertia(int nv, int independent_dofs)
    : G_(MatrixX::Zero(nv, independent_dofs)),
      g_(VectorX::Zero(nv)),
      HG_(MatrixX::Zero(nv, independent_dofs)),
      reduced_(MatrixX::Zero(independent_dofs, independent_dofs)),
      cholesky_(independent_dofs) {}

void ProjectedInertia::factor(const Eigen::Ref<const MatrixX>& H, const ClusterSpanning& spanning,
                              const std::string& file, const char* owner) {
  spanning.assemble(G_, g_);  // eq. 3 for the whole tree
  HG_.noalias() = H * G_;
  reduced_.noalias() = G_.transpose() * HG_;
  if (cholesky_.factorize(reduced_) == 0.0) {
    throw ModelError(file, owner, "the projected inertia Gᵀ H G is not positive definite at this state");
  }
}

}  // namespace loopsim
