#include <loopsim/constraints/frame_constraints.hpp>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

const Frame& namedFrame(const Model& model, const std::string& constraint, const std::string& frame) {
  const int id = model.frameId(frame);
  if (id < 0) {
    throw ModelError(model.source_file, "constraint '" + constraint + "'",
                     "no frame '" + frame + "' in model '" + model.name + "'");
  }
  return model.frames[static_cast<std::size_t>(id)];
}

Constraint frameConstraint(const Model& model, const VectorX& q, const std::string& name, ConstraintKind kind,
                           const std::string& frame1, const SE3& offset1, const std::string& frame2) {
  const Frame& a = namedFrame(model, name, frame1);
  const Frame& b = namedFrame(model, name, frame2);
  if (a.body == 0) {
    throw ModelError(model.source_file, "constraint '" + name + "'",
                     "frame '" + frame1 + "' is on the world: the first frame must be on a moving body (swap the two)");
  }
  if (a.body == b.body) {
    throw ModelError(model.source_file, "constraint '" + name + "'",
                     "frames '" + frame1 + "' and '" + frame2 + "' are both on body '" + model.body_names[a.body] + "'");
  }
  if (q.size() != model.nq) {
    throw ModelError(model.source_file, "constraint '" + name + "'",
                     "q has " + std::to_string(q.size()) + " values; the model has nq = " + std::to_string(model.nq));
  }
  Constraint c;
  c.name = name;
  c.kind = kind;
  c.body1 = a.body;
  c.placement1 = a.placement * offset1;
  c.body2 = b.body;
  c.placement2 = placementWhereItStands(model, q, c.body1, c.placement1, c.body2);
  return c;
}

}  // namespace

SE3 placementWhereItStands(const Model& model, const VectorX& q, int body1, const SE3& placement1, int body2) {
  Data data(model);
  forwardKinematics(model, data, q);
  return data.oMi[body2].inverse() * data.oMi[body1] * placement1;
}

Constraint weldWhereItStands(const Model& model, const VectorX& q, const std::string& name, const std::string& frame1,
                             const std::string& frame2) {
  return frameConstraint(model, q, name, ConstraintKind::Weld, frame1, SE3::Identity(), frame2);
}

Constraint connectWhereItStands(const Model& model, const VectorX& q, const std::string& name,
                                const std::string& frame1, const Vector3& point1, const std::string& frame2) {
  return frameConstraint(model, q, name, ConstraintKind::Connect, frame1, SE3(Matrix3::Identity(), point1), frame2);
}

}  // namespace loopsim
