#include "hold_drift.hpp"

#include <cmath>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/control/holding_forces.hpp>

namespace loopsim {

HoldDrift measureHoldDrift(Simulation& sim, double duration) {
  const Model& model = sim.model();
  const Scene& scene = sim.scene();
  std::vector<int> floating;
  for (int j = 1; j < model.nbodies(); ++j) {
    if (model.joint_types[j] == JointType::Floating) floating.push_back(j);
  }
  std::vector<int> held_dofs;  // actuated dofs that hold their start value (sinusoid-driven joints excluded)
  for (int j : scene.actuated_joints) {
    bool driven = false;
    for (const SinusoidDrive& d : scene.controller.drives) driven = driven || d.joint == j;
    if (driven) continue;
    for (int k = 0; k < model.joint_nv[j]; ++k) held_dofs.push_back(model.idx_v[j] + k);
  }

  const VectorX start = sim.q();
  VectorX deviation = VectorX::Zero(model.nv);
  HoldDrift drift;
  const double t0 = sim.time();
  const long steps = std::lround(duration / scene.dt);
  for (long k = 0; k < steps; ++k) {
    if (!sim.step()) {
      drift.diverged = true;
      break;
    }
    for (int j : floating) {
      const int iq = model.idx_q[j];
      const double d = (sim.q().segment<3>(iq) - start.segment<3>(iq)).norm();
      if (d > drift.base_displacement) {
        drift.base_displacement = d;
        drift.base_joint = model.joint_names[j];
      }
    }
    difference(model, start, sim.q(), deviation);
    for (int dof : held_dofs) {
      if (std::abs(deviation[dof]) > drift.joint_deviation) {
        drift.joint_deviation = std::abs(deviation[dof]);
        drift.joint = dofName(model, dof);
      }
    }
  }
  drift.simulated = sim.time() - t0;
  return drift;
}

}  // namespace loopsim
