"""Measures the thread speed-up of the Python evaluate() (run by hand, never
asserted): N sampled states of a scene evaluated with threads=1 and
threads=T in interleaved rounds; prints each round and the medians.

    PYTHONPATH=build/python /usr/bin/python3 tests/tools/python_evaluate_threads.py \
        scenes/atlas_standing.yaml --states 20000 --threads 2 --rounds 5 --solver pv
"""
import argparse
import statistics
import time

import numpy as np

import loopsim


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scene")
    parser.add_argument("--states", type=int, default=20000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--solver", default=None)
    args = parser.parse_args()

    scene = loopsim.load_scene(args.scene)
    Q, V, TAU = loopsim.sample_states(scene, args.states, seed=1)
    times = {1: [], args.threads: []}
    reference = None
    for round_ in range(args.rounds):
        # Alternate which goes first: a neighbour's load hits both alike.
        order = [1, args.threads] if round_ % 2 == 0 else [args.threads, 1]
        for threads in order:
            start = time.perf_counter()
            out = loopsim.evaluate(scene, Q, V, TAU, solver=args.solver, threads=threads)
            times[threads].append(time.perf_counter() - start)
            if reference is None:
                reference = out
            assert np.array_equal(out[0], reference[0]) and np.array_equal(out[1], reference[1])
        print(f"round {round_}: 1 thread {times[1][-1]:.3f} s, {args.threads} threads {times[args.threads][-1]:.3f} s, "
              f"speed-up {times[1][-1] / times[args.threads][-1]:.2f}x")
    one, many = statistics.median(times[1]), statistics.median(times[args.threads])
    print(f"{args.states} states of {scene.name}, solver {args.solver or scene.solver}: median 1 thread {one:.3f} s, "
          f"{args.threads} threads {many:.3f} s, speed-up {one / many:.2f}x (ratios per round: "
          f"{', '.join(f'{a / b:.2f}' for a, b in zip(times[1], times[args.threads]))}); results identical bit for bit")


if __name__ == "__main__":
    main()
