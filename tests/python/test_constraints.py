"""Constraints on named frames from Python: a model loaded, welded or
connected where it stands, then stepped and evaluated; the same scene from
YAML gives the same bits."""
import os
from pathlib import Path

import numpy as np
import pytest

import loopsim

SCENES = Path(os.environ["LOOPSIM_SCENES_DIR"])
ATLAS_URDF = SCENES.parent / "assets/robots/atlas/atlas.urdf"


@pytest.mark.parametrize("projection, tolerance", [(True, 1e-12), (False, 5e-3)])
def test_welded_frame_stays_put_and_connected_point_too(projection, tolerance):
    model = loopsim.load_model(ATLAS_URDF, floating_base=True)
    q0 = np.zeros(model.nq)
    q0[6] = 1.0  # base quaternion [x y z w] = identity
    scene = loopsim.make_scene(model, q0=q0, projection=projection)
    weld = scene.add_weld("left_foot_weld", "l_foot_sole")
    assert (weld.kind, weld.dimension, weld.body2) == ("weld", 6, 0)
    # A point 0.1 m ahead of the right sole, pinned to the world where it is.
    point = np.array([0.1, 0.0, 0.0])
    connect = scene.add_connect("right_toe", "r_foot_sole", point1=point)
    assert (connect.kind, connect.dimension) == ("connect", 3)
    assert scene.constraint_names == ["left_foot_weld", "right_toe"]
    # Frame B of a weld where it stands is frame A at q0 (world: its world placement).
    assert np.allclose(weld.placement2, model.frame_placement(q0, "l_foot_sole"), atol=1e-15)

    foot0 = model.frame_placement(q0, "l_foot_sole")
    toe0 = model.frame_placement(q0, "r_foot_sole") @ np.append(point, 1.0)
    pelvis0 = model.frame_placement(q0, "pelvis")
    sim = loopsim.Simulation(scene)
    for _ in range(300):  # 0.3 s: the unactuated robot folds under gravity
        assert sim.step()
    # The rest moved a lot (the pelvis by ~0.5 m); the welded sole and the
    # pinned point stayed put: exactly with the projection, to the Baumgarte-
    # stabilised drift without it (~2.3e-3 m: the folding robot strikes its
    # joint limits, whose impulses jolt the loop; ~4e-4 m with the limits off).
    assert np.max(np.abs(model.frame_placement(sim.q, "pelvis") - pelvis0)) > 0.3
    foot = model.frame_placement(sim.q, "l_foot_sole")
    toe = model.frame_placement(sim.q, "r_foot_sole") @ np.append(point, 1.0)
    assert np.max(np.abs(foot - foot0)) < tolerance
    assert np.max(np.abs(toe - toe0)) < tolerance
    assert sim.position_violation < tolerance
    assert sim.lambda_.shape == (9,)


def test_bad_constraints_name_frame_and_leave_the_scene_unchanged():
    model = loopsim.load_model(ATLAS_URDF, floating_base=True)
    scene = loopsim.make_scene(model)
    with pytest.raises(loopsim.ModelError, match="no frame 'l_foot_sloe'"):
        scene.add_weld("w", "l_foot_sloe")
    with pytest.raises(loopsim.ModelError, match="on the world"):
        scene.add_weld("w", "world", "l_foot_sole")
    scene.add_weld("w", "l_foot_sole")
    with pytest.raises(loopsim.ModelError, match="duplicate constraint name"):
        scene.add_weld("w", "r_foot_sole")
    # The same foot welded twice: an exact solver refuses the dependent rows.
    with pytest.raises(loopsim.ModelError, match="rank-deficient"):
        scene.add_weld("w2", "l_foot_sole")
    assert scene.constraint_names == ["w"]
    with pytest.raises(loopsim.ModelError, match="nq = 37"):
        scene.add_weld("w3", "r_foot_sole", q=np.zeros(3))
    with pytest.raises(loopsim.ModelError, match="quaternion"):
        loopsim.make_scene(model, q0=np.zeros(model.nq))
    with pytest.raises(loopsim.ModelError, match="unknown solver 'kt'"):
        loopsim.make_scene(model, solver="kt")


YAML = """
models:
  - urdf: {urdf}
    base: floating
    pose: {{position: [0, 0, 0.86]}}
initial:
  q: {{l_leg_hpy: -0.45, l_leg_kny: 0.9, l_leg_aky: -0.45, r_leg_kny: 0.3}}
{constraints}
solver: kkt
"""
CONSTRAINTS = """constraints:
  - {name: left_foot_weld, type: weld, frame1: l_foot_sole}
  - {name: right_hand, type: connect, frame1: r_hand, placement1: {position: [0, 0.1, 0]}}
"""


def test_constraints_added_in_python_equal_the_yaml_scene_bit_for_bit(tmp_path):
    (tmp_path / "with.yaml").write_text(YAML.format(urdf=ATLAS_URDF, constraints=CONSTRAINTS))
    (tmp_path / "without.yaml").write_text(YAML.format(urdf=ATLAS_URDF, constraints=""))
    from_yaml = loopsim.load_scene(tmp_path / "with.yaml")
    in_code = loopsim.load_scene(tmp_path / "without.yaml")
    assert in_code.constraint_names == []
    in_code.add_weld("left_foot_weld", "l_foot_sole")
    in_code.add_connect("right_hand", "r_hand", point1=[0.0, 0.1, 0.0])
    for a, b in zip(from_yaml.constraints, in_code.constraints):
        assert np.array_equal(a.placement1, b.placement1) and np.array_equal(a.placement2, b.placement2)

    sims = [loopsim.Simulation(s) for s in (from_yaml, in_code)]
    for _ in range(100):
        assert all(sim.step() for sim in sims)
    assert np.array_equal(sims[0].q, sims[1].q)
    assert np.array_equal(sims[0].lambda_, sims[1].lambda_)

    Q, V, TAU = loopsim.sample_states(from_yaml, 20, seed=5)
    for solver in ("kkt", "pv"):
        a = loopsim.evaluate(from_yaml, Q, V, TAU, solver=solver)
        b = loopsim.evaluate(in_code, Q, V, TAU, solver=solver)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
