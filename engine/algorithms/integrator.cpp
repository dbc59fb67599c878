#include <loopsim/algorithms/integrator.hpp>

#include <loopsim/algorithms/configuration.hpp>

namespace loopsim {

void semiImplicitEulerStep(const Model& model, Eigen::Ref<VectorX> q, Eigen::Ref<VectorX> v,
                           const Eigen::Ref<const VectorX>& vdot, double dt) {
  v += dt * vdot;
  integrate(model, q, v, dt, q);
}

}  // namespace loopsim
