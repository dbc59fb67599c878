#include <loopsim/algorithms/jacobians.hpp>

#include <stdexcept>

namespace loopsim {

void bodyPointJacobian(const Model& model, const Data& data, int body, const SE3& placement, ReferenceFrame rf,
                       Eigen::Ref<Matrix6X> J) {
  if (J.cols() != model.nv) throw std::invalid_argument("bodyPointJacobian: J must have nv columns");
  if (body < 0 || body >= model.nbodies()) throw std::invalid_argument("bodyPointJacobian: body out of range");
  J.setZero();
  const SE3 oMf = data.oMi[body] * placement;
  // Walk the support of `body`: column k of the world (spatial) Jacobian is
  // oMi[j] S_k; Local / LocalWorldAligned re-express it at the frame origin.
  for (int j = body; j > 0; j = model.parent[j]) {
    const int iv = model.idx_v[j];
    for (int k = iv; k < iv + model.joint_nv[j]; ++k) {
      const Motion world = data.oMi[j].act(Motion(data.S.col(k)));
      Motion col;
      switch (rf) {
        case ReferenceFrame::World:
          col = world;
          break;
        case ReferenceFrame::Local:
          col = oMf.actInv(world);
          break;
        case ReferenceFrame::LocalWorldAligned:
          // Velocity of the point at the frame origin: v_O + omega x p.
          col = Motion(world.w, world.v + world.w.cross(oMf.t));
          break;
      }
      J.col(k) << col.w, col.v;
    }
  }
}

void frameJacobian(const Model& model, const Data& data, int frame_id, ReferenceFrame rf, Eigen::Ref<Matrix6X> J) {
  const Frame& frame = model.frames.at(frame_id);
  bodyPointJacobian(model, data, frame.body, frame.placement, rf, J);
}

}  // namespace loopsim
