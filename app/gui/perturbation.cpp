#include "gui/perturbation.hpp"

#include <algorithm>
#include <cmath>

#include <loopsim/algorithms/kinematics.hpp>

namespace loopsim::app {

namespace {

// The mass and rotational inertia the spring acts on: the body and everything it carries.
double subtreeMass(const Model& model, int body) {
  double mass = 0.0;
  for (int b = body; b < model.nbodies(); ++b) {
    int a = b;
    while (a > body) a = model.parent[static_cast<std::size_t>(a)];
    if (a == body) mass += model.body_inertias[static_cast<std::size_t>(b)].mass;
  }
  return std::max(mass, 1e-3);
}

// A spring-damper of natural frequency 2 Hz, critically damped, on that mass:
// stiff enough to move a robot's limb, soft enough to stay stable at 1 ms.
constexpr double kOmega = 2.0 * 3.14159265358979323846 * 2.0;

}  // namespace

void MousePerturbation::beginTranslation(const Model& model, int body, const Eigen::Vector3d& target) {
  mode_ = Mode::Translation;
  body_ = body;
  target_ = target;
  const double m = subtreeMass(model, body);
  stiffness_ = m * kOmega * kOmega;
  damping_ = 2.0 * m * kOmega;
}

void MousePerturbation::beginRotation(const Model& model, int body, const Eigen::Matrix3d& orientation) {
  mode_ = Mode::Rotation;
  body_ = body;
  start_orientation_ = orientation;
  rotation_vector_.setZero();
  // Rotational inertia scale: the body's own about its centre of mass (trace / 3), at least m (5 cm)².
  const Inertia& inertia = model.body_inertias[static_cast<std::size_t>(body)];
  const double m = subtreeMass(model, body);
  const double i = std::max(inertia.inertia_com.trace() / 3.0, m * 0.05 * 0.05);
  stiffness_ = i * kOmega * kOmega;
  damping_ = 2.0 * i * kOmega;
}

void MousePerturbation::apply(Simulation& simulation, Data& scratch) const {
  if (mode_ == Mode::None || body_ <= 0) {
    if (simulation.perturbedBody() != 0) simulation.clearPerturbation();
    return;
  }
  const Model& model = simulation.model();
  forwardKinematics(model, scratch, simulation.q(), simulation.v());
  const SE3& pose = scratch.oMi[static_cast<std::size_t>(body_)];
  const Motion& velocity = scratch.v[static_cast<std::size_t>(body_)];  // body frame
  const Eigen::Matrix3d& rotation = pose.R;
  last_origin_ = pose.t;
  Force wrench;
  if (mode_ == Mode::Translation) {
    const Eigen::Vector3d origin_velocity = rotation * velocity.v;  // world axes
    last_world_ = stiffness_ * (target_ - pose.t) - damping_ * origin_velocity;
    wrench.f = rotation.transpose() * last_world_;  // applied at the body origin: no moment about it
  } else {
    const Eigen::Matrix3d goal = Eigen::AngleAxisd(rotation_vector_.norm(), rotation_vector_.norm() > 0.0
                                                                                  ? Eigen::Vector3d(rotation_vector_.normalized())
                                                                                  : Eigen::Vector3d::UnitZ())
                                     .toRotationMatrix() *
                                 start_orientation_;
    const Eigen::AngleAxisd error(goal * rotation.transpose());  // world axes
    const Eigen::Vector3d omega_world = rotation * velocity.w;
    last_world_ = stiffness_ * error.angle() * error.axis() - damping_ * omega_world;
    wrench.n = rotation.transpose() * last_world_;
  }
  simulation.setPerturbation(body_, wrench);
}

}  // namespace loopsim::app
