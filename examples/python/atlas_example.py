"""loopsim from Python: Atlas standing on both feet.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/atlas_example.py scenes/atlas_standing.yaml

Samples constraint-consistent states, evaluates the constrained dynamics with
two solvers over the batch, then simulates one second.
"""
import sys

import numpy as np

import loopsim


def main(scene_file):
    scene = loopsim.load_scene(scene_file)
    model = scene.model
    print(f"{scene.name}: nq {model.nq}, nv {model.nv}, {model.total_mass:.1f} kg, "
          f"constraints {scene.constraint_names}")
    print("solvers:", ", ".join(name for name, _ in loopsim.solvers()))

    # States on the constraint manifold, then (q, v, tau) -> (vdot, lambda) in one call each.
    Q, V, TAU = loopsim.sample_states(scene, 100, seed=1)
    VDOT_KKT, LAMBDA_KKT = loopsim.evaluate(scene, Q, V, TAU, solver="kkt")
    VDOT_PV, _ = loopsim.evaluate(scene, Q, V, TAU, solver="pv")
    print(f"{len(Q)} states: max |vdot_kkt - vdot_pv| = {np.abs(VDOT_KKT - VDOT_PV).max():.3g}")

    # One second of simulation; q, v, lambda_ are live read-only views.
    sim = loopsim.Simulation(scene)
    sim.run(1.0)
    # lambda_ of a weld: the wrench [n; f] on the foot, in the sole frame.
    print(f"t = {sim.time:.3f} s: base height {sim.q[2]:.4f} m, sole forces z "
          f"{sim.lambda_[5]:.1f} N and {sim.lambda_[11]:.1f} N, |phi| = {sim.position_violation:.2g}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} SCENE.yaml (e.g. scenes/atlas_standing.yaml)")
    main(sys.argv[1])
