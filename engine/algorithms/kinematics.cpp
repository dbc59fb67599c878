#include <loopsim/algorithms/kinematics.hpp>

#include <stdexcept>

#include <loopsim/model/joint_motion.hpp>

namespace loopsim {

namespace {

// One forward pass; v / a are null when not requested.
void forwardPass(const Model& model, Data& data, const VectorX::Scalar* q, const VectorX::Scalar* v,
                 const VectorX::Scalar* a) {
  data.oMi[0] = SE3::Identity();
  data.v[0].setZero();
  data.a[0].setZero();
  detail::RevoluteTrig trig;  // sin and cos eight joints at a time
  for (int i = 1; i < model.nbodies(); ++i) {
    const int p = model.parent[i];
    detail::setJointPlacement(model, i, Eigen::Map<const VectorX>(q, model.nq), data.liMi[i], &trig);
    data.oMi[i] = data.oMi[p] * data.liMi[i];
    if (v == nullptr) continue;
    detail::withJointNv(model.joint_nv[i], [&](auto nv_tag) {
      constexpr int NV = decltype(nv_tag)::value;
      const int iv = model.idx_v[i];
      using VectorNV = Eigen::Matrix<double, NV, 1>;
      // S_i's structure (detail::subspaceMotion), as in RNEA and ABA.
      const Motion vJ = detail::subspaceMotion<NV>(model, i, VectorNV(Eigen::Map<const VectorNV>(v + iv)));
      data.v[i] = kernels::toChildFrame(data.liMi[i], data.v[p]) + vJ;
      if (a == nullptr) return;
      data.c[i] = data.v[i].cross(vJ);
      data.a[i] = kernels::toChildFrame(data.liMi[i], data.a[p]) +
                  detail::subspaceMotion<NV>(model, i, VectorNV(Eigen::Map<const VectorNV>(a + iv))) + data.c[i];
    });
  }
}

Motion motionInFrame(const Motion& body_motion, const SE3& oMb, const SE3& bMf, ReferenceFrame rf) {
  switch (rf) {
    case ReferenceFrame::Local:
      return bMf.actInv(body_motion);
    case ReferenceFrame::LocalWorldAligned: {
      const Motion local = bMf.actInv(body_motion);
      const Matrix3 oRf = oMb.R * bMf.R;
      return {oRf * local.w, oRf * local.v};
    }
    case ReferenceFrame::World:
      return oMb.act(body_motion);
  }
  return {};
}

}  // namespace

void forwardKinematics(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q) {
  detail::requireSize(q, model.nq, "q");
  forwardPass(model, data, q.data(), nullptr, nullptr);
}

void forwardKinematics(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                       const Eigen::Ref<const VectorX>& v) {
  detail::requireSize(q, model.nq, "q");
  detail::requireSize(v, model.nv, "v");
  forwardPass(model, data, q.data(), v.data(), nullptr);
}

void forwardKinematics(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                       const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& a) {
  detail::requireSize(q, model.nq, "q");
  detail::requireSize(v, model.nv, "v");
  detail::requireSize(a, model.nv, "a");
  forwardPass(model, data, q.data(), v.data(), a.data());
}

SE3 bodyPlacement(const Model& model, const Eigen::Ref<const VectorX>& q, int body) {
  if (q.size() != model.nq) throw std::invalid_argument("bodyPlacement: q has the wrong size");
  if (body < 0 || body >= model.nbodies()) throw std::invalid_argument("bodyPlacement: no such body");
  SE3 placement = SE3::Identity();
  for (int i = body; i > 0; i = model.parent[i]) placement = detail::jointPlacement(model, i, q) * placement;
  return placement;
}

void updateFramePlacements(const Model& model, Data& data) {
  for (std::size_t k = 0; k < model.frames.size(); ++k) {
    const Frame& frame = model.frames[k];
    data.oMf[k] = data.oMi[frame.body] * frame.placement;
  }
}

SE3 framePlacement(const Model& model, const Data& data, int frame_id) {
  const Frame& frame = model.frames.at(frame_id);
  return data.oMi[frame.body] * frame.placement;
}

Motion frameVelocity(const Model& model, const Data& data, int frame_id, ReferenceFrame rf) {
  const Frame& frame = model.frames.at(frame_id);
  return motionInFrame(data.v[frame.body], data.oMi[frame.body], frame.placement, rf);
}

Motion frameAcceleration(const Model& model, const Data& data, int frame_id, ReferenceFrame rf) {
  const Frame& frame = model.frames.at(frame_id);
  return motionInFrame(data.a[frame.body], data.oMi[frame.body], frame.placement, rf);
}

Motion frameClassicalAcceleration(const Model& model, const Data& data, int frame_id, ReferenceFrame rf) {
  if (rf == ReferenceFrame::World) {
    throw std::invalid_argument("frameClassicalAcceleration: use Local or LocalWorldAligned (World has no origin point)");
  }
  const Frame& frame = model.frames.at(frame_id);
  const Motion v_local = frame.placement.actInv(data.v[frame.body]);
  Motion acc = frame.placement.actInv(data.a[frame.body]);
  // The spatial linear acceleration misses the rotation of the velocity
  // vector itself: classical = spatial + omega x v (all in frame axes).
  acc.v += v_local.w.cross(v_local.v);
  if (rf == ReferenceFrame::LocalWorldAligned) {
    const Matrix3 oRf = data.oMi[frame.body].R * frame.placement.R;
    acc = Motion(oRf * acc.w, oRf * acc.v);
  }
  return acc;
}

}  // namespace loopsim
