"""The Python module: loading, stepping, batch evaluation equal to
`loopsim eval` bit for bit, records, and the documented conventions."""
import csv
import re
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

import loopsim

SCENES = Path(os.environ["LOOPSIM_SCENES_DIR"])
BINARY = os.environ["LOOPSIM_BINARY"]


@pytest.fixture(scope="module")
def atlas():
    return loopsim.load_scene(SCENES / "atlas_standing.yaml")


def test_load_scene_and_model(atlas):
    model = atlas.model
    assert (model.nq, model.nv) == (37, 36)
    assert atlas.constraint_names == ["left_foot_weld", "right_foot_weld"]
    assert "l_foot_sole" in model.frame_names
    assert atlas.q0.shape == (37,)
    urdf = loopsim.load_model(SCENES.parent / "assets/robots/atlas/atlas.urdf", floating_base=True)
    assert (urdf.nq, urdf.nv) == (37, 36)
    assert loopsim.load_model(SCENES.parent / "assets/robots/atlas/atlas.urdf").nv == 30


def test_bad_input_names_the_file(tmp_path):
    with pytest.raises(loopsim.ModelError, match="missing.yaml"):
        loopsim.load_scene(tmp_path / "missing.yaml")
    # A directory is named as one (it once read as an empty YAML: "expected a map, got null").
    with pytest.raises(loopsim.ModelError, match="is a directory, not a scene file"):
        loopsim.load_scene(tmp_path)
    with pytest.raises(loopsim.ModelError, match="unknown solver 'kkk'"):
        loopsim.evaluate(loopsim.load_scene(SCENES / "four_bar.yaml"), np.zeros((1, 1)), np.zeros((1, 1)),
                         np.zeros((1, 1)), solver="kkk")


def test_solvers_lists_the_registry():
    names = [name for name, _ in loopsim.solvers()]
    assert names[0] == "kkt" and "pv" in names and "lcaba" in names


def test_simulation_steps_with_views(atlas):
    sim = loopsim.Simulation(atlas)
    q = sim.q  # a live read-only view
    assert not q.flags.writeable
    start = np.copy(q)
    for _ in range(20):
        assert sim.step()
    assert sim.steps == 20 and sim.time == pytest.approx(0.02)
    assert not np.array_equal(q, start)  # the view followed the steps
    assert np.array_equal(q, sim.q)
    assert sim.lambda_.shape == (12,) and sim.vdot.shape == (36,)
    assert sim.position_violation < 1e-6
    # Conventions: quaternion [x y z w] of the floating base, unit.
    assert np.linalg.norm(sim.q[3:7]) == pytest.approx(1.0)
    # λ is the wrench on each foot (first body) in the sole frame, [n; f]:
    # the soles carry the weight, so the two vertical forces sum to m·g.
    weight = atlas.model.total_mass * 9.81
    assert sim.lambda_[5] + sim.lambda_[11] == pytest.approx(weight, rel=0.05)
    assert loopsim.Simulation(atlas, solver="pv").solver == "pv"


def test_run_refuses_durations_that_are_no_run(atlas):
    sim = loopsim.Simulation(atlas)
    for duration, said in ((float("nan"), "nan"), (-1.0, "-1"), (float("inf"), "inf"), (1e12, "1e+12")):
        with pytest.raises(loopsim.ModelError, match=r"run: duration: .*" + re.escape(said)):
            sim.run(duration)
    assert sim.steps == 0  # nothing was stepped
    assert sim.run(0.01) and sim.steps == 10


def test_ctrl_c_stops_a_long_run_between_steps():
    import signal
    import threading
    sim = loopsim.Simulation(loopsim.load_scene(SCENES / "four_bar.yaml"))
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sim.run(1e5)  # 1e8 steps: minutes, unless Ctrl-C is heard
    finally:
        timer.cancel()
    assert 0 < sim.steps < 100_000_000
    assert sim.step()  # the simulation is usable after the interrupt


def test_frame_placement_refuses_a_nan_configuration(atlas):
    q = np.copy(atlas.q0)
    q[8] = np.nan
    with pytest.raises(ValueError, match=r"q\[8\] is NaN: a placement needs a finite configuration"):
        atlas.model.frame_placement(q, "l_foot_sole")


def test_a_wrong_argument_type_names_the_parameter_and_the_types(atlas):
    with pytest.raises(TypeError) as error:
        loopsim.load_scene(3)
    assert "file: expected os.PathLike, got int 3" in str(error.value), error.value
    assert "incompatible function arguments" not in str(error.value)
    sim = loopsim.Simulation(atlas)
    with pytest.raises(TypeError, match=r"Simulation.run\(\): .*\n.*\n    duration: expected float, got str 'x'$"):
        sim.run("x")
    with pytest.raises(TypeError) as error:
        loopsim.sample_states(atlas, "many", colour=2)
    message = str(error.value)
    assert "samples: expected int, got str 'many'" in message and "colour=: no such argument" in message, message
    assert "scene:" not in message.split("\n", 2)[2], message  # the argument that fits is not blamed
    with pytest.raises(TypeError, match=r"scene: expected loopsim.Scene, got int 3"):
        loopsim.Simulation(3)
    # The wrapped functions keep their documentation and still work.
    assert loopsim.load_scene.__doc__.startswith("load_scene(file: os.PathLike)")
    assert sim.run(0.002) is True


def test_import_without_numpy_says_numpy_is_needed(tmp_path):
    # A numpy that cannot be imported, ahead of the real one on the path.
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text("raise ImportError('no numpy here')\n")
    module_dir = str(Path(loopsim.__file__).parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), module_dir]))
    result = subprocess.run([sys.executable, "-c", "import loopsim"], env=env, capture_output=True, text=True)
    assert result.returncode != 0
    assert "loopsim needs numpy" in result.stderr, result.stderr


def write_states(path, columns, Q, V, TAU):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(columns["q"] + columns["v"] + columns["tau"])
        for row in np.hstack([Q, V, TAU]):
            out.writerow([repr(float(x)) for x in row])  # shortest round-trip text


@pytest.mark.parametrize("solver", ["kkt", "pv"])
def test_evaluate_equals_loopsim_eval_bit_for_bit(atlas, tmp_path, solver):
    Q, V, TAU = loopsim.sample_states(atlas, 30, seed=3)
    assert Q.shape == (30, 37) and V.shape == (30, 36)
    VDOT, LAMBDA = loopsim.evaluate(atlas, Q, V, TAU, solver=solver)
    assert VDOT.shape == (30, 36) and LAMBDA.shape == (30, 12)

    columns = loopsim.state_columns(atlas)
    write_states(tmp_path / "states.csv", columns, Q, V, TAU)
    subprocess.run([BINARY, "eval", str(SCENES / "atlas_standing.yaml"), "--states", str(tmp_path / "states.csv"),
                    "--out", str(tmp_path / "out.csv"), "--solver", solver, "--threads", "1"],
                   check=True, capture_output=True)
    record = loopsim.read_record(tmp_path / "out.csv")
    cli_vdot = np.column_stack([record[name] for name in columns["vdot"]])
    cli_lambda = np.column_stack([record[name] for name in columns["lambda"]])
    assert np.array_equal(VDOT, cli_vdot)
    assert np.array_equal(LAMBDA, cli_lambda)


def test_evaluate_threads_equal_one_thread_bit_for_bit(atlas):
    Q, V, TAU = loopsim.sample_states(atlas, 300, seed=7)
    VDOT, LAMBDA = loopsim.evaluate(atlas, Q, V, TAU, solver="pv", threads=1)
    for threads in (2, 3, None):  # None: every core
        vdot, lam = loopsim.evaluate(atlas, Q, V, TAU, solver="pv", threads=threads)
        assert np.array_equal(vdot, VDOT) and np.array_equal(lam, LAMBDA)
    # The first failing row in input order is named, whichever thread met it.
    bad = Q.copy()
    bad[[40, 250], 3] = np.nan
    for threads in (1, 3):
        # The arrays are named, with the value's coordinate, not the scene's file.
        with pytest.raises(loopsim.ModelError,
                           match=r"^evaluate\(Q, V, TAU\): row 40: state has a NaN or Inf value \(q\[3\] = nan\)$"):
            loopsim.evaluate(atlas, bad, V, TAU, threads=threads)
    with pytest.raises(ValueError, match="threads: 0 is not a thread count"):
        loopsim.evaluate(atlas, Q, V, TAU, threads=0)
    # A count far beyond the machine is refused before any thread starts.
    with pytest.raises(ValueError, match=r"threads: 100000 is more than \d+ \(8 x this machine's \d+ cores\)"):
        loopsim.evaluate(atlas, Q, V, TAU, threads=100000)
    empty = loopsim.evaluate(atlas, Q[:0], V[:0], TAU[:0], threads=2)
    assert empty[0].shape == (0, 36) and empty[1].shape == (0, 12)


def test_sample_counts_beyond_memory_name_the_count(atlas):
    # Not the scene: the count is what is wrong (10**9 once overflowed into "could not sample").
    with pytest.raises(loopsim.ModelError, match=r"samples: 1000000000 states of this scene need [0-9.e+]+ GB; "
                                                 r"this machine has [0-9.e+]+ GB of memory"):
        loopsim.sample_states(atlas, 10**9)
    with pytest.raises(loopsim.ModelError, match="samples: must be at least 1, got 0"):
        loopsim.sample_states(atlas, 0)


def test_evaluate_conventions(atlas):
    Q, V, TAU = loopsim.sample_states(atlas, 5, seed=1)
    VDOT, _ = loopsim.evaluate(atlas, Q, V, TAU)
    # Sampled states are consistent: unit quaternions and a finite dynamics.
    assert np.allclose(np.linalg.norm(Q[:, 3:7], axis=1), 1.0)
    assert np.isfinite(VDOT).all()
    # Two exact solvers agree on v̇.
    VDOT_PV, _ = loopsim.evaluate(atlas, Q, V, TAU, solver="pv")
    assert np.max(np.abs(VDOT - VDOT_PV)) < 1e-6
    bad = Q.copy()
    bad[2, 3:7] *= 2.0
    with pytest.raises(loopsim.ModelError, match="row 2.*quaternion"):
        loopsim.evaluate(atlas, bad, V, TAU)
    with pytest.raises(ValueError, match=r"V must have shape \(5, 36\)"):
        loopsim.evaluate(atlas, Q, V[:, :3], TAU)


def test_read_record_of_a_run(tmp_path):
    out = tmp_path / "run.csv"
    subprocess.run([BINARY, "run", str(SCENES / "atlas_standing.yaml"), "--duration", "0.01", "--record", str(out)],
                   check=True, capture_output=True)
    record = loopsim.read_record(out)
    assert isinstance(record, Mapping)
    assert record["t"].dtype == np.float64
    assert record["t"][0] == 0.0 and len(record["t"]) >= 10
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    header, values = rows[0], np.array([[float(x) for x in row] for row in rows[1:]])
    assert record.columns == header and list(record) == header and len(record) == len(header)
    assert np.array_equal(record.data, values, equal_nan=True)
    assert np.array_equal(record["q:root_joint:qw"], values[:, header.index("q:root_joint:qw")])
    # Each group as one (T, k) array, its columns those of state_columns.
    columns = loopsim.state_columns(loopsim.load_scene(SCENES / "atlas_standing.yaml"))
    T = len(values)
    for group, attribute, width in (("q", "q", 37), ("v", "v", 36), ("tau", "tau", 36), ("vdot", "vdot", 36),
                                    ("lambda", "lambda_", 12)):
        assert record.names(group) == columns[group]
        array = getattr(record, attribute)
        assert array.shape == (T, width)
        expected = values[:, [header.index(name) for name in columns[group]]]
        assert np.array_equal(array, expected, equal_nan=True)
    assert record.group("nothing").shape == (T, 0)
    assert "t" in record and "q:nope" not in record and record.get("q:nope") is None
    with pytest.raises(KeyError, match="q:nope"):
        record["q:nope"]


def test_python_example_runs():
    example = SCENES.parent / "examples/python/atlas_example.py"
    out = subprocess.run([sys.executable, str(example), str(SCENES / "atlas_standing.yaml")], check=True,
                         capture_output=True, text=True).stdout
    assert "max |vdot_kkt - vdot_pv|" in out and "t = 1.000 s" in out
