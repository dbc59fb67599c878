#include <loopsim/sim/implicit_damping.hpp>

namespace loopsim {

VectorX implicitDampingDiagonal(const Scene& scene, const Controller& controller) {
  const Model& model = *scene.model;
  if (scene.damping == DampingIntegration::Explicit) return VectorX::Zero(model.nv);
  return model.damping + controller.derivativeGains();
}

}  // namespace loopsim
