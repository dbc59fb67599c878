#include <loopsim/algorithms/energy.hpp>

#include <loopsim/algorithms/kinematics.hpp>

namespace loopsim {

const Vector3& centerOfMass(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q) {
  forwardKinematics(model, data, q);
  data.mass = 0.0;
  Vector3 weighted = Vector3::Zero();
  for (int i = 1; i < model.nbodies(); ++i) {
    const Inertia& I = model.body_inertias[i];
    data.mass += I.mass;
    weighted += I.mass * data.oMi[i].actPoint(I.com);
  }
  data.com = data.mass > 0.0 ? Vector3(weighted / data.mass) : Vector3::Zero();
  return data.com;
}

const Force& computeMomentum(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                             const Eigen::Ref<const VectorX>& v) {
  forwardKinematics(model, data, q, v);
  data.h_world.setZero();
  for (int i = 1; i < model.nbodies(); ++i) data.h_world += data.oMi[i].act(model.body_inertias[i] * data.v[i]);
  return data.h_world;
}

namespace {

// Σ ½ v_iᵀ I_i v_i equals ½ vᵀ M v without forming M; armature adds ½ a v².
double kineticAtKinematics(const Model& model, const Data& data, const Eigen::Ref<const VectorX>& v) {
  double energy = 0.5 * v.dot(model.armature.cwiseProduct(v));
  for (int i = 1; i < model.nbodies(); ++i) energy += model.body_inertias[i].kineticEnergy(data.v[i]);
  return energy;
}

double potentialAtKinematics(const Model& model, const Data& data, const Eigen::Ref<const VectorX>& q) {
  double energy = 0.0;
  for (int i = 1; i < model.nbodies(); ++i) {
    const Inertia& I = model.body_inertias[i];
    energy -= I.mass * model.gravity.dot(data.oMi[i].actPoint(I.com));
    if (model.joint_nv[i] == 1) {
      const int iq = model.idx_q[i];
      const double dq = q[iq] - model.spring_reference[iq];
      energy += 0.5 * model.stiffness[model.idx_v[i]] * dq * dq;
    }
  }
  return energy;
}

}  // namespace

double kineticEnergy(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q,
                     const Eigen::Ref<const VectorX>& v) {
  forwardKinematics(model, data, q, v);
  return kineticAtKinematics(model, data, v);
}

double potentialEnergy(const Model& model, Data& data, const Eigen::Ref<const VectorX>& q) {
  forwardKinematics(model, data, q);
  return potentialAtKinematics(model, data, q);
}

MechanicalEnergy energyAtKinematics(const Model& model, const Data& data, const Eigen::Ref<const VectorX>& q,
                                    const Eigen::Ref<const VectorX>& v) {
  return {kineticAtKinematics(model, data, v), potentialAtKinematics(model, data, q)};
}

}  // namespace loopsim
