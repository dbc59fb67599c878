// Deflects a scene's springs (compliant passive joints) as the holding load
// deflects them, so that its feedforward: hold carries the load through them
// with the least motor effort (Digit's leaf springs in scenes/digit_ground.yaml;
// undeflected they carry nothing, and the hold squeezes the feet together).
// With the scene's constraints (the feet welded where they stand), each round
// asks the holding forces of the springs as if they were actuated, τ_s, and
// moves each spring by Δq = −τ_s / k (so that its own torque −k q takes that
// load), then projects back onto the constraints with the springs held, until
// the largest τ_s is below 1e-6 N·m. Prints every joint that moved, with 17
// digits, for the scene's `initial: q:` block (run passive_equilibrium after it:
// the rods' free spins move with the springs).
//   loopsim_loaded_springs SCENE.yaml SPRING_JOINT...
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <loopsim/control/holding_forces.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/projection.hpp>

int main(int argc, char** argv) {
  using namespace loopsim;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SCENE.yaml SPRING_JOINT...\n", argv[0]);
    return 2;
  }
  try {
    const Scene scene = loadScene(argv[1]);
    const Model& model = *scene.model;
    const ConstraintSet set(model, scene.constraints, scene.time_constant);
    std::vector<int> springs;
    for (int i = 2; i < argc; ++i) {
      const int j = model.jointId(argv[i]);
      if (j <= 0 || model.joint_nv[j] != 1 || !(model.stiffness[model.idx_v[j]] > 0.0)) {
        throw ModelError(argv[1], argv[i], "is not a one-dof joint with a spring stiffness in the model");
      }
      springs.push_back(j);
    }
    std::vector<int> held = scene.held_joints, actuated = scene.actuated_joints;
    held.insert(held.end(), springs.begin(), springs.end());
    actuated.insert(actuated.end(), springs.begin(), springs.end());

    VectorX q = scene.q0, v = VectorX::Zero(model.nv);
    double largest = INFINITY;
    for (int round = 0; round < 100 && largest > 1e-6; ++round) {
      if (set.dimension() > 0) makeConsistent(set, q, v, held);
      const HoldingForces hold = leastEffortHoldingForces(set, q, actuated);
      largest = 0.0;
      for (int j : springs) {
        const int dof = model.idx_v[j];
        q[model.idx_q[j]] -= hold.tau[dof] / model.stiffness[dof];
        largest = std::max(largest, std::abs(hold.tau[dof]));
      }
      std::fprintf(stderr, "round %d: largest spring load %.3g, motors |tau| %.4g\n", round, largest, hold.tau.norm());
    }
    if (set.dimension() > 0) makeConsistent(set, q, v, held);
    for (int j = 1; j <= model.njoints(); ++j) {
      const int iq = model.idx_q[j], nq = model.joint_nq[j];
      if ((q.segment(iq, nq) - scene.q0.segment(iq, nq)).norm() == 0.0) continue;
      std::printf("%s: ", model.joint_names[j].c_str());
      if (nq == 1) {
        std::printf("%.17g\n", q[iq]);
      } else {
        for (int k = 0; k < nq; ++k) std::printf("%s%.17g", k ? ", " : "[", q[iq + k]);
        std::printf("]\n");
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
