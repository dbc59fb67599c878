// loopsim as a library: Atlas standing on both feet.
//   atlas_example SCENE.yaml   (e.g. scenes/atlas_standing.yaml of the repository)
// Loads the scene, welds the feet in code, samples constraint-consistent
// states, evaluates the constrained dynamics with two solvers and compares
// them, then simulates one second.
#include <loopsim/loopsim.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SCENE.yaml (e.g. scenes/atlas_standing.yaml)\n", argv[0]);
    return 2;
  }
  try {
    // A scene: one Model (shared, immutable), its constraints, start state,
    // controller and settings. Every bad value is a loopsim::ModelError.
    loopsim::Scene scene = loopsim::loadScene(argv[1]);
    const loopsim::Model& model = *scene.model;
    std::printf("%s: nq %d, nv %d, %.1f kg\n", scene.name.c_str(), model.nq, model.nv, model.totalMass());

    // The scene's own constraints replaced by welds built in code: each sole
    // welded to the world where it stands at the initial configuration.
    scene.constraints = {
        loopsim::weldWhereItStands(model, scene.q0, "left_foot", "l_foot_sole"),
        loopsim::weldWhereItStands(model, scene.q0, "right_foot", "r_foot_sole"),
    };
    // Baumgarte stabilisation is the set's time constant (<= 0: off).
    const loopsim::ConstraintSet constraints(model, scene.constraints, scene.time_constant);
    std::printf("%d constraints, %d rows, Baumgarte T = %g s\n", constraints.size(), constraints.dimension(),
                constraints.timeConstant());

    // Random states on the constraint manifold (φ(q) = 0, J v = 0).
    const auto states = loopsim::sampleStates(scene, constraints, 20, /*seed=*/1);

    // (q, v, τ) -> (v̇, λ) as a simulation step computes it, with two solvers.
    loopsim::StateEvaluator kkt(scene, {.solver = "kkt"});
    loopsim::StateEvaluator pv(scene, {.solver = "pv"});
    loopsim::VectorX vdot_kkt(model.nv), vdot_pv(model.nv);
    loopsim::VectorX lambda_kkt(constraints.dimension()), lambda_pv(constraints.dimension());
    double largest_difference = 0.0, largest_residual = 0.0;
    for (const auto& s : states) {
      const loopsim::SolveStats a = kkt.evaluate(s.q, s.v, s.tau, vdot_kkt, lambda_kkt);
      const loopsim::SolveStats b = pv.evaluate(s.q, s.v, s.tau, vdot_pv, lambda_pv);
      // A near-singular state shows in the residual ‖J v̇ − k‖∞.
      largest_residual = std::max({largest_residual, a.residual, b.residual});
      largest_difference = std::max(largest_difference, (vdot_kkt - vdot_pv).lpNorm<Eigen::Infinity>());
    }
    std::printf("%zu states: max |vdot_kkt - vdot_pv| = %.3g, max residual = %.3g\n", states.size(),
                largest_difference, largest_residual);
    if (!(largest_difference < 1e-6)) {
      std::fprintf(stderr, "the two solvers disagree\n");
      return 1;
    }

    // One second of simulation with the scene's controller and solver. The
    // Simulation owns its copy of the scene, constraint set and solver.
    loopsim::Simulation simulation(scene);
    for (int k = 0; k < 1000; ++k) {
      if (!simulation.step()) {
        std::fprintf(stderr, "diverged at t = %g s\n", simulation.time());
        return 1;
      }
    }
    const loopsim::VectorX& lambda = simulation.lambda();
    // λ of a weld: the wrench on the foot, in the sole frame, [n; f].
    std::printf("t = %.3f s: base height %.4f m, left sole force z %.1f N, right %.1f N, |phi| = %.2g\n",
                simulation.time(), simulation.q()[2], lambda[5], lambda[11], simulation.positionViolation());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
