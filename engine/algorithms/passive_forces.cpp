#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/joint_motion.hpp>

namespace loopsim {

const VectorX& passiveForces(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                             const Eigen::Ref<const VectorX>& v) {
  detail::requireSize(q, model.nq, "q");
  detail::requireSize(v, model.nv, "v");
  data.passive = -model.damping.cwiseProduct(v);
  // Springs exist on 1-dof joints only (the builder zeroes stiffness elsewhere),
  // where q ⊖ q_ref is a plain difference.
  for (int i = 1; i < model.nbodies(); ++i) {
    if (model.joint_nv[i] != 1) continue;
    const int iv = model.idx_v[i];
    const int iq = model.idx_q[i];
    data.passive[iv] -= model.stiffness[iv] * (q[iq] - model.spring_reference[iq]);
  }
  return data.passive;
}

}  // namespace loopsim
