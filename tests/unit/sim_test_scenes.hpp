#pragma once
// Scenes built in code for the simulation, projection, Baumgarte and kkt
// tests (from the procedural generators of scene/generators.hpp).
#include <memory>
#include <string>
#include <utility>

#include <loopsim/model/model_builder.hpp>
#include <loopsim/scene/generators.hpp>
#include <loopsim/scene/scene.hpp>

namespace loopsim::simtest {

inline Scene sceneFrom(GeneratedMechanism mechanism, const std::string& name) {
  Scene scene;
  scene.name = name;
  scene.q0 = mechanism.q0;
  scene.v0 = VectorX::Zero(mechanism.model.nv);
  scene.constraints = std::move(mechanism.constraints);
  scene.model = std::make_shared<const Model>(std::move(mechanism.model));
  return scene;
}

/// Moving four-bar in a vertical plane: gravity along -y, crank spun at
/// crank_rate (rad/s) by the initial state (velocity projected at the start).
inline Scene movingFourBar(double crank_rate = 4.0) {
  GeneratedMechanism mech = fourBar();
  mech.model.gravity = Vector3(0.0, -9.81, 0.0);
  Scene scene = sceneFrom(std::move(mech), "moving four-bar");
  scene.v0[0] = crank_rate;
  scene.held_joints = {1};  // keep the crank's velocity, solve the others
  return scene;
}

/// A point mass on three prismatic joints (x, y, z), masses 1 kg each (the
/// last body carries the point). Its position is exactly q, so a connect of
/// the point to the world has φ = q - target and J = I: φ obeys the
/// Baumgarte equation exactly.
inline Model pointMassModel() {
  ModelBuilder builder("point_mass");
  const Inertia unit(1.0, Vector3::Zero(), 1e-2 * Matrix3::Identity());
  JointSpec prismatic;
  prismatic.type = JointType::Prismatic;
  int parent = 0;
  const char* axes[] = {"x", "y", "z"};
  for (int k = 0; k < 3; ++k) {
    prismatic.axis = Vector3::Unit(k);
    parent = builder.addBody(parent, std::string("slide_") + axes[k], prismatic, SE3::Identity(), unit,
                             std::string("carriage_") + axes[k]);
  }
  builder.setGravity(Vector3::Zero());
  return std::move(builder).build();
}

}  // namespace loopsim::simtest
