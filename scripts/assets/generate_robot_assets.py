#!/usr/bin/env python3
"""Generates assets/robots/{atlas,go1,iiwa,allegro,mini_cheetah,mit_humanoid,tello}/*.urdf from the reference models.

Kinematics (joint origins, axes, limits, damping) and mass properties come
from the reference URDFs; fixed links are lumped into their moving parents;
meshes are replaced by primitives chosen here so that the robot stays
recognisable. The output is deterministic and self-contained.

Usage: scripts/assets/generate_robot_assets.py [--models DIR] [--out DIR]
  DIR defaults: --models ../shared/models (beside the repository), --out assets/robots.
This is a developer tool, not a build step: the generated URDFs are committed.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from urdf_assembly import (ExtraFrame, Pose, Visual, bone, box, check_inertias, check_total_mass,  # noqa: E402
                           RigidInertia, cylinder, parse_origin, read_reference, symmetric_eigenvalues, reduce_to_moving_tree, rpy_to_matrix, sphere,
                           write_urdf)

HALF_PI = math.pi / 2.0
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# -------------------------------------------------------------------- Atlas

ATLAS_MATERIALS = {
    "atlas_dark_grey": [0.22, 0.23, 0.25, 1.0],
    "atlas_black": [0.07, 0.07, 0.08, 1.0],
    "atlas_orange": [0.93, 0.45, 0.09, 1.0],
    "atlas_sensor_grey": [0.6, 0.62, 0.65, 1.0],
}


def atlas_side(prefix: str) -> dict[str, list[Visual]]:
    """Visuals of one side; the reference mirrors left and right through the
    joint frames (l_clav is yawed by pi), so the link-frame shapes differ only
    where the reference's own numbers do (feet)."""
    s = 1.0 if prefix == "l" else -1.0
    dark, black, orange = "atlas_dark_grey", "atlas_black", "atlas_orange"
    return {
        f"{prefix}_uglut": [sphere([0.005, 0.0, 0.0], 0.055, black)],
        f"{prefix}_lglut": [cylinder([0.02, s * 0.015, -0.03], 0.05, 0.09, black, [HALF_PI, 0, 0])],
        f"{prefix}_uleg": [bone([0.0, 0.0, -0.02], [-0.05, 0.0, -0.36], 0.075, orange),
                           cylinder([0.0, 0.0, 0.0], 0.055, 0.12, black, [HALF_PI, 0, 0])],
        f"{prefix}_lleg": [bone([0.0, 0.0, -0.03], [0.0, 0.0, -0.40], 0.06, orange),
                           cylinder([0.0, 0.0, 0.0], 0.06, 0.12, black, [HALF_PI, 0, 0])],
        f"{prefix}_talus": [cylinder([0.0, 0.0, 0.0], 0.035, 0.08, black, [HALF_PI, 0, 0])],
        # Spans the reference's contact corners: x -0.0876..0.1728, y -0.0626..0.066 (mirrored on the right).
        f"{prefix}_foot": [box([0.0426, s * 0.0017, -0.0532], [0.2604, 0.1286, 0.0465], dark),
                           box([0.0, 0.0, -0.02], [0.08, 0.07, 0.05], black)],
        f"{prefix}_clav": [bone([0.0, 0.0, 0.0], [0.0, -0.11, -0.245], 0.045, black)],
        f"{prefix}_scap": [bone([0.0, 0.0, 0.0], [0.0, -0.187, -0.016], 0.05, dark)],
        f"{prefix}_uarm": [bone([0.0, -0.02, 0.0], [0.0, -0.119, 0.0092], 0.055, orange)],
        f"{prefix}_larm": [bone([0.0, 0.04, 0.0], [0.0, -0.11, -0.003], 0.045, orange)],
        f"{prefix}_ufarm": [bone([0.0, 0.02, 0.0], [0.0, 0.17, 0.0], 0.045, orange)],
        f"{prefix}_lfarm": [cylinder([0.0, -0.025, 0.0], 0.04, 0.05, black, [HALF_PI, 0, 0])],
        f"{prefix}_hand": [box([0.0, -0.085, 0.0], [0.085, 0.1, 0.045], black),
                           cylinder([0.0, -0.04, 0.0], 0.04, 0.03, dark, [HALF_PI, 0, 0])],
    }


def atlas_visuals() -> dict[str, list[Visual]]:
    dark, black, grey = "atlas_dark_grey", "atlas_black", "atlas_sensor_grey"
    visuals = {
        "pelvis": [box([0.0, 0.0, 0.01], [0.2, 0.27, 0.12], dark)],
        "ltorso": [cylinder([0.0, 0.0, 0.08], 0.06, 0.14, black, [0, 0, 0])],
        "mtorso": [sphere([0.0, 0.0, 0.03], 0.06, black)],
        # Chest, shoulders bar and the backpack (battery and pump).
        "utorso": [box([0.0, 0.0, 0.27], [0.3, 0.36, 0.58], dark),
                   box([0.13, 0.0, 0.48], [0.1, 0.5, 0.1], black),
                   box([-0.21, 0.0, 0.3], [0.16, 0.34, 0.5], black)],
        "head": [box([-0.07, 0.0, 0.02], [0.13, 0.14, 0.12], black),
                 cylinder([-0.0446, 0.0, 0.105], 0.038, 0.05, grey, [0, 0, 0]),
                 cylinder([0.0, 0.0, 0.0], 0.02, 0.1, grey, [HALF_PI, 0, 0])],
    }
    visuals.update(atlas_side("l"))
    visuals.update(atlas_side("r"))
    return visuals


def atlas_collisions() -> dict[str, list[Visual]]:
    """The soles: boxes whose bottom faces span the reference's eight contact corners
    (the reference collides with those points; a box also gives the edges between them)."""
    return {f"{prefix}_foot": [box([0.0426, s * 0.0017, -0.0532], [0.2604, 0.1286, 0.0465], "")]
            for prefix, s in (("l", 1.0), ("r", -1.0))}


def atlas_frames() -> list[ExtraFrame]:
    """Named frames without mass. The sole / toe / hand-mount frames are the
    reference's Drake <frame> tags; the corners are its outer contact points."""
    frames = []
    for prefix, s in (("l", 1.0), ("r", -1.0)):
        outer, inner = (0.066, -0.0626) if s > 0 else (-0.066, 0.0626)
        frames.append(ExtraFrame(f"{prefix}_foot_sole", f"{prefix}_foot", Pose(translation=[0.0426, s * 0.0017, -0.07645])))
        frames.append(ExtraFrame(f"{prefix}_foot_toe", f"{prefix}_foot", Pose(translation=[0.1728, s * 0.0017, -0.07645])))
        for corner, x, y in (("front_outer", 0.1728, outer), ("front_inner", 0.1728, inner),
                             ("back_outer", -0.0876, outer), ("back_inner", -0.0876, inner)):
            frames.append(ExtraFrame(f"{prefix}_foot_{corner}", f"{prefix}_foot", Pose(translation=[x, y, -0.07645])))
        frames.append(ExtraFrame(f"{prefix}_hand_mount", f"{prefix}_hand",
                                 Pose(rpy_to_matrix(0.0, -HALF_PI, 3.1415926535897), [0.0, -0.195, 0.0])))
    return frames


def make_atlas(models: str, out: str) -> None:
    source = os.path.join(models, "atlas", "atlas_minimal_contact.urdf")
    ref = read_reference(source)
    reduced = reduce_to_moving_tree(ref, keep_links=["l_hand_force_torque", "r_hand_force_torque"])
    reduced.frames += atlas_frames()
    check_inertias(reduced)
    assert len(reduced.moving_joints) == 30, len(reduced.moving_joints)
    header = f"""Atlas (Boston Dynamics, DRC v5), loopsim asset. GENERATED FILE: edit
scripts/assets/generate_robot_assets.py instead and re-run it.
Kinematics and mass properties: Drake examples/atlas/urdf/atlas_minimal_contact.urdf
(BSD-3-Clause); fixed links lumped into their moving parents:
  {lumped_summary(reduced)}.
Geometry: loopsim's own primitives; collision: the feet's soles. 30 revolute joints; root 'pelvis' (floating by convention)."""
    text, mass = write_urdf(reduced, atlas_visuals(), ATLAS_MATERIALS, header, keep_dynamics=("damping",),
                            collisions=atlas_collisions())
    check_total_mass(reduced, ref.total_mass(), mass)
    write(os.path.join(out, "atlas", "atlas.urdf"), text)
    print(f"atlas: {len(reduced.moving_joints)} revolute joints, mass {mass:.6f} kg (reference {ref.total_mass():.6f})")


# --------------------------------------------------------------------- Go1

GO1_MATERIALS = {
    "go1_body_grey": [0.16, 0.17, 0.19, 1.0],
    "go1_silver": [0.7, 0.75, 0.84, 1.0],
    "go1_black": [0.05, 0.05, 0.05, 1.0],
    "go1_lens": [0.25, 0.4, 0.55, 1.0],
}


def go1_visuals() -> dict[str, list[Visual]]:
    body, silver, black, lens = "go1_body_grey", "go1_silver", "go1_black", "go1_lens"
    visuals: dict[str, list[Visual]] = {
        # Trunk extents are the reference's collision box; the head reaches the face camera (x 0.2785).
        "base": [box([0.0, 0.0, 0.0], [0.3762, 0.0935, 0.114], body),
                 box([0.2375, 0.0, 0.0], [0.105, 0.09, 0.08], black),
                 cylinder([0.293, 0.0125, 0.0167], 0.012, 0.006, lens, [0, HALF_PI, 0])],
    }
    for leg in ("FR", "FL", "RR", "RL"):
        s = 1.0 if leg[1] == "L" else -1.0
        # Hip, thigh and calf shapes follow the reference's collision primitives.
        visuals[f"{leg}_hip"] = [cylinder([0.0, s * 0.08, 0.0], 0.046, 0.04, black, [HALF_PI, 0, 0]),
                                 cylinder([0.0, 0.0, 0.0], 0.046, 0.08, body, [0, HALF_PI, 0])]
        visuals[f"{leg}_thigh"] = [box([0.0, 0.0, -0.1065], [0.213, 0.0245, 0.034], silver, [0, HALF_PI, 0])]
        visuals[f"{leg}_calf"] = [box([0.0, 0.0, -0.1065], [0.213, 0.016, 0.016], black, [0, HALF_PI, 0]),
                                  sphere([0.0, 0.0, -0.213], 0.02, black)]
    return visuals


def go1_collisions() -> dict[str, list[Visual]]:
    """The reference's collision primitives of the trunk (a box), the thighs (boxes) and the feet
    (spheres, radius 0.02, at the foot frames), so a Go1 that falls lies on its trunk and thighs.
    The hips' and calves' primitives are left out: standing, each calf's box passes under its hip
    within the detection's margin, a distance query every step for a pair that never touches."""
    collisions: dict[str, list[Visual]] = {"base": [box([0.0, 0.0, 0.0], [0.3762, 0.0935, 0.114], "")]}
    for leg in ("FR", "FL", "RR", "RL"):
        collisions[f"{leg}_thigh"] = [box([0.0, 0.0, -0.1065], [0.213, 0.0245, 0.034], "", [0, HALF_PI, 0])]
        collisions[f"{leg}_foot"] = [sphere([0.0, 0.0, 0.0], 0.02, "")]
    return collisions


def make_go1(models: str, out: str) -> None:
    source = os.path.join(models, "go1", "go1.urdf")
    ref = read_reference(source)
    feet = [f"{leg}_foot" for leg in ("FR", "FL", "RR", "RL")]
    reduced = reduce_to_moving_tree(ref, keep_links=["trunk", "imu_link"] + feet)
    check_inertias(reduced)
    assert len(reduced.moving_joints) == 12, len(reduced.moving_joints)
    header = f"""Unitree Go1, loopsim asset. GENERATED FILE: edit
scripts/assets/generate_robot_assets.py instead and re-run it.
Kinematics and mass properties: Gepetto/example-robot-data robots/go1_description/urdf/go1.urdf
(repository BSD-3-Clause; upstream unitreerobotics/unitree_ros go1_description, MPL-2.0);
fixed links lumped into their moving parents:
  {lumped_summary(reduced)}.
Geometry: loopsim's own primitives; collision: the trunk, thighs and foot spheres. 12 revolute joints; root 'base' (floating by convention)."""
    text, mass = write_urdf(reduced, go1_visuals(), GO1_MATERIALS, header, keep_dynamics=("damping", "friction"),
                            collisions=go1_collisions())
    check_total_mass(reduced, ref.total_mass(), mass)
    write(os.path.join(out, "go1", "go1.urdf"), text)
    print(f"go1: {len(reduced.moving_joints)} revolute joints, mass {mass:.6f} kg (reference {ref.total_mass():.6f})")


# --------------------------------------------------------------------- Iiwa

IIWA_MATERIALS = {
    "iiwa_orange": [0.96, 0.45, 0.07, 1.0],
    "iiwa_grey": [0.55, 0.56, 0.58, 1.0],
    "iiwa_flange": [0.2, 0.2, 0.22, 1.0],
}

# Where the next joint (or the flange) sits in each link's frame: the reference's joint origins.
IIWA_NEXT = {"base": [0.0, 0.0, 0.1575], "iiwa_link_1": [0.0, 0.0, 0.2025], "iiwa_link_2": [0.0, 0.2045, 0.0],
             "iiwa_link_3": [0.0, 0.0, 0.2155], "iiwa_link_4": [0.0, 0.1845, 0.0],
             "iiwa_link_5": [0.0, 0.0, 0.2155], "iiwa_link_6": [0.0, 0.081, 0.0], "iiwa_link_7": [0.0, 0.0, 0.045]}


def iiwa_visuals() -> dict[str, list[Visual]]:
    """A rounded bone from each joint to the next, orange on the links that carry a motor housing
    (the odd ones, as the robot's livery alternates), and a dark flange at the tool."""
    visuals: dict[str, list[Visual]] = {}
    radii = {"base": 0.075, "iiwa_link_1": 0.065, "iiwa_link_2": 0.065, "iiwa_link_3": 0.06,
             "iiwa_link_4": 0.06, "iiwa_link_5": 0.055, "iiwa_link_6": 0.05, "iiwa_link_7": 0.04}
    for k, (link, end) in enumerate(IIWA_NEXT.items()):
        material = "iiwa_grey" if k % 2 == 0 else "iiwa_orange"
        visuals[link] = [bone([0.0, 0.0, 0.0], end, radii[link], material)]
    visuals["iiwa_link_7"].append(cylinder([0.0, 0.0, 0.04], 0.035, 0.012, "iiwa_flange", [0, 0, 0]))
    return visuals


def make_iiwa(models: str, out: str) -> None:
    source = os.path.join(models, "extras", "iiwa14_no_collision.urdf")
    ref = read_reference(source)
    reduced = reduce_to_moving_tree(ref, keep_links=["iiwa_link_ee"])
    check_inertias(reduced)
    assert len(reduced.moving_joints) == 7, len(reduced.moving_joints)
    header = f"""KUKA LBR iiwa 14, loopsim asset. GENERATED FILE: edit
scripts/assets/generate_robot_assets.py instead and re-run it.
Kinematics, limits and mass properties: RobotLocomotion/drake
manipulation/models/iiwa_description/urdf/iiwa14_no_collision.urdf @ c5175473 (iiwa_stack BSD,
(c) 2015 Krug & Stoyanov; Drake BSD-3-Clause); fixed links lumped into their moving parents:
  {lumped_summary(reduced)}.
Geometry: loopsim's own primitives, no collision shapes. 7 revolute joints; root 'base', fixed to the world as loaded
(no floating joint); frame 'iiwa_link_ee' is the tool flange."""
    text, mass = write_urdf(reduced, iiwa_visuals(), IIWA_MATERIALS, header, keep_dynamics=("damping", "friction"))
    check_total_mass(reduced, ref.total_mass(), mass)
    write(os.path.join(out, "iiwa", "iiwa.urdf"), text)
    print(f"iiwa: {len(reduced.moving_joints)} revolute joints, mass {mass:.6f} kg (reference {ref.total_mass():.6f})")


# ------------------------------------------------------------------ Allegro

ALLEGRO_MATERIALS = {
    "allegro_black": [0.12, 0.12, 0.13, 1.0],
    "allegro_white": [0.9, 0.9, 0.9, 1.0],
}
ALLEGRO_TIPS = [f"link_{k}.0_tip" for k in (3, 7, 11, 15)]


def allegro_visuals(ref) -> dict[str, list[Visual]]:
    """The palm as the reference's collision box; each phalanx a black bone to the next joint
    (or to its tip); each fingertip a white sphere of the reference's collision radius."""
    visuals: dict[str, list[Visual]] = {"palm_link": [box([-0.0093, 0.0, -0.0475], [0.0408, 0.113, 0.095],
                                                          "allegro_black")]}
    tips = {}
    for j in ref.joints:
        end = parse_origin(j.origin).translation
        if j.child in ALLEGRO_TIPS:
            tips[j.parent] = end
        if j.parent == "palm_link":
            continue
        visuals.setdefault(j.parent, []).append(bone([0.0, 0.0, 0.0], end, 0.0095, "allegro_black"))
    for link, end in tips.items():
        visuals[link].append(sphere(end, 0.012, "allegro_white"))
    return visuals


def allegro_rod_inertias(ref) -> list[str]:
    """The reference's rotational inertias of the phalanges are not physical (their principal
    moments violate the triangle inequality, e.g. link_1.0: 1.3e-5, 7.1e-5, 1.0e-4 kg m^2), which
    MuJoCo and loopsim's strict loading refuse. Each phalanx keeps its mass and centre of mass and
    gets the inertia of a solid rod of radius 9.5 mm along its bone (to its next joint or tip).
    Returns the links changed."""
    changed = []
    for j in ref.joints:
        if j.parent == "palm_link" or j.child in ALLEGRO_TIPS:
            continue
        link = j.parent
        inertia = ref.inertias[link]
        end = parse_origin(j.origin).translation
        length = math.sqrt(sum(x * x for x in end))
        u = [x / length for x in end]
        radius = 0.0095
        across = inertia.mass * (3.0 * radius * radius + length * length) / 12.0
        along = inertia.mass * radius * radius / 2.0
        tensor = [[across * ((1.0 if a == b else 0.0) - u[a] * u[b]) + along * u[a] * u[b] for b in range(3)]
                  for a in range(3)]
        ref.inertias[link] = RigidInertia(inertia.mass, inertia.com, tensor)
        changed.append(link)
    return changed


def make_allegro(models: str, out: str) -> None:
    source = os.path.join(models, "extras", "allegro_right_hand.urdf")
    ref = read_reference(source)
    reshaped = allegro_rod_inertias(ref)
    reduced = reduce_to_moving_tree(ref, keep_links=ALLEGRO_TIPS)
    check_inertias(reduced)
    assert len(reduced.moving_joints) == 16, len(reduced.moving_joints)
    header = f"""Wonik Allegro hand (right), loopsim asset. GENERATED FILE: edit
scripts/assets/generate_robot_assets.py instead and re-run it.
Kinematics, limits and mass properties: Gepetto/example-robot-data
robots/allegro_hand_description/urdf/allegro_right_hand.urdf @ 39aa9437 (repository BSD-3-Clause);
fixed links lumped into their moving parents:
  {lumped_summary(reduced)}.
The reference's phalanx inertias are not physical: {len(reshaped)} phalanges keep their masses and centres and take
the inertia of a solid rod (radius 9.5 mm) along their bones.
Joint damping as the reference; its Coulomb friction is left out (loopsim models none in joints).
Geometry: loopsim's own primitives, no collision shapes. 16 revolute joints (4 per finger; the thumb is
joints 12-15); root 'palm_link', fixed to the world as loaded; frames 'link_3.0_tip', 'link_7.0_tip',
'link_11.0_tip' (index, middle, ring) and 'link_15.0_tip' (thumb) are the fingertip centres."""
    text, mass = write_urdf(reduced, allegro_visuals(ref), ALLEGRO_MATERIALS, header, keep_dynamics=("damping",))
    check_total_mass(reduced, ref.total_mass(), mass)
    write(os.path.join(out, "allegro", "allegro_right_hand.urdf"), text)
    print(f"allegro: {len(reduced.moving_joints)} revolute joints, mass {mass:.6f} kg "
          f"(reference {ref.total_mass():.6f})")


# ------------------------------------------- Mini Cheetah, MIT Humanoid and Tello

# Robots of paper 004 with their rotors as bodies of their own: the rotor joints are ordinary
# revolute joints here, and the transmissions (the reference's <coupling> elements) become
# coupling constraints in the scenes (scenes/mini_cheetah_standing.yaml, mit_humanoid_standing.yaml,
# tello_standing.yaml).
ROTOR_MATERIALS = {
    "rbda_body": [0.25, 0.27, 0.3, 1.0],
    "rbda_link": [0.75, 0.76, 0.78, 1.0],
    "rbda_rotor": [0.85, 0.35, 0.1, 1.0],
}


def floating_root(ref, root_name: str):
    """Drops the reference's explicit floating joint (loopsim floats a root by convention) and
    renames the floating body ("Floating Base") to root_name."""
    floating = [j for j in ref.joints if j.type == "floating"]
    assert len(floating) == 1, floating
    old = floating[0].child
    ref.joints = [j for j in ref.joints if j.type != "floating"]
    del ref.inertias[floating[0].parent]
    ref.inertias[root_name] = ref.inertias.pop(old)
    for j in ref.joints:
        if j.parent == old:
            j.parent = root_name
    ref.root = root_name


def is_rotor(link: str) -> bool:
    """A rotor's link: 'rotor' a word of its name ('FR_hip_rotor', 'left-hip-rotor-1')."""
    return "rotor" in link.replace("-", "_").split("_")


def rotor_robot_visuals(ref, root_box: list[Visual], tips: dict[str, Vec]) -> dict[str, list[Visual]]:
    """A light bone from each link to its next link joint (or its tip), an orange disc for each
    rotor about its axis, and the trunk as root_box."""
    visuals: dict[str, list[Visual]] = {ref.root: root_box}
    for j in ref.joints:
        if is_rotor(j.child):
            a = j.axis
            rpy = [0.0, HALF_PI, 0.0] if abs(a[0]) > 0.5 else ([HALF_PI, 0.0, 0.0] if abs(a[1]) > 0.5 else [0, 0, 0])
            visuals.setdefault(j.child, []).append(cylinder([0.0, 0.0, 0.0], 0.03, 0.02, "rbda_rotor", rpy))
        elif j.parent != ref.root:
            end = parse_origin(j.origin).translation
            if math.hypot(*end) > 1e-9:  # a joint at its parent's origin (Tello's gimbal) needs no bone
                visuals.setdefault(j.parent, []).append(bone([0.0, 0.0, 0.0], end, 0.018, "rbda_link"))
    for link, end in tips.items():
        visuals.setdefault(link, []).append(bone([0.0, 0.0, 0.0], end, 0.018, "rbda_link"))
        visuals[link].append(sphere(end, 0.02, "rbda_body"))
    return visuals


def make_rotor_robot(models: str, out: str, name: str, root_box: list[Visual], tips: dict[str, Vec],
                     title: str, source_name: str | None = None, tip_frames: dict[str, str] | None = None) -> None:
    """tip_frames names the frame at each tip (default: the link's name without '_link', then '_foot')."""
    source_name = source_name or name
    source = os.path.join(models, "extras", f"{source_name}.urdf")
    massless: list[str] = []
    ref = read_reference_lenient(source, massless)
    floating_root(ref, "body")
    mended = mend_triangle_inequality(ref)
    for j in ref.joints:
        if is_rotor(j.child):  # a motor turns without end: no position range
            j.type = "continuous"
            j.limit = {k: v for k, v in j.limit.items() if k not in ("lower", "upper")}
    reduced = reduce_to_moving_tree(ref, keep_links=[])
    for link, end in tips.items():
        frame = (tip_frames or {}).get(link, link.replace("_link", "") + "_foot")
        reduced.frames.append(ExtraFrame(frame, link, Pose(translation=list(end))))
    check_inertias(reduced)
    rotors = sum(1 for j in reduced.moving_joints if is_rotor(j.child))
    massless_note = (f"\nRotors of zero mass in the reference (their inertia only) take {MASSLESS_ROTOR_MASS * 1000:g} g: "
                     f"{', '.join(massless)}." if massless else "")
    header = f"""{title}, loopsim asset. GENERATED FILE: edit
scripts/assets/generate_robot_assets.py instead and re-run it.
Kinematics and mass properties: ROAM-Lab-ND/generalized_rbda robot-models/{source_name}.urdf @ 45fa7c46 (MIT);
its floating joint is dropped (loopsim floats the root, renamed 'body') and its <coupling> transmissions
are left to the scenes, as coupling constraints. {len(reduced.moving_joints) - rotors} joints and {rotors} rotors,
each rotor a continuous joint of its own; the joints' limits are the reference's (+-10 rad: none in effect).
Inertias whose principal moments break the triangle inequality (a + b < c) take the deficit c - a - b on
each principal moment (an isotropic addition, so the axes stay): {mended}.{massless_note}
Geometry: loopsim's own primitives, no collision shapes; frames '*_foot' mark the feet."""
    text, mass = write_urdf(reduced, rotor_robot_visuals(ref, root_box, tips), ROTOR_MATERIALS, header,
                            keep_dynamics=("damping",))
    check_total_mass(reduced, ref.total_mass(), mass)
    write(os.path.join(out, name, f"{name}.urdf"), text)
    print(f"{name}: {len(reduced.moving_joints)} revolute joints ({rotors} rotors), mass {mass:.6f} kg "
          f"(reference {ref.total_mass():.6f})")


def mend_triangle_inequality(ref) -> str:
    """Adds the deficit d = c - a - b (a <= b <= c, the principal moments) times 1.000001 to
    each diagonal entry of every inertia that breaks the triangle inequality; returns what changed."""
    changed = []
    for link, inertia in ref.inertias.items():
        if inertia.mass <= 0.0:
            continue
        a, b, c = symmetric_eigenvalues(inertia.inertia)
        deficit = c - a - b
        if deficit <= 0.0:
            continue
        add = deficit * 1.000001
        tensor = [[inertia.inertia[i][j] + (add if i == j else 0.0) for j in range(3)] for i in range(3)]
        ref.inertias[link] = RigidInertia(inertia.mass, inertia.com, tensor)
        changed.append(f"{link} +{add:.3g} kg m^2 ({100.0 * add / c:.1f} % of its largest)")
    return "; ".join(changed) if changed else "none"


MASSLESS_ROTOR_MASS = 0.001  # kg: a massless rotor of the reference (its inertia only) takes 1 g


def read_reference_lenient(path: str, massless_rotors: list[str] | None = None):
    """read_reference, after taking out what it does not know: generalized_rbda's <coupling>
    elements and 'independent' attributes (parsed by the scenes instead). A rotor link of zero
    mass takes MASSLESS_ROTOR_MASS (its inertia kept) and is listed in massless_rotors."""
    import tempfile
    import xml.etree.ElementTree as ET
    tree = ET.parse(path)
    root = tree.getroot()
    for c in root.findall("coupling"):
        root.remove(c)
    for link in root.findall("link"):
        mass = link.find("inertial/mass")
        if mass is not None and is_rotor(link.get("name", "")) and float(mass.get("value")) == 0.0:
            mass.set("value", str(MASSLESS_ROTOR_MASS))
            if massless_rotors is not None:
                massless_rotors.append(link.get("name"))
    with tempfile.NamedTemporaryFile("wb", suffix=".urdf", delete=False) as f:
        tree.write(f)
        name = f.name
    try:
        return read_reference(name)
    finally:
        os.remove(name)


def make_mini_cheetah(models: str, out: str) -> None:
    tips = {f"{leg}_knee_link": [0.0, 0.0, -0.19] for leg in ("FR", "FL", "HR", "HL")}
    make_rotor_robot(models, out, "mini_cheetah", [box([0.0, 0.0, 0.0], [0.38, 0.1, 0.1], "rbda_body")], tips,
                     "MIT Mini Cheetah with its 12 rotors")


def make_mit_humanoid(models: str, out: str) -> None:
    tips = {f"{side}_ankle_link": [0.03, 0.0, -0.04] for side in ("right", "left")}
    make_rotor_robot(models, out, "mit_humanoid", [box([0.0, 0.0, 0.12], [0.16, 0.3, 0.3], "rbda_body")], tips,
                     "MIT Humanoid with its 18 rotors")


def make_tello(models: str, out: str) -> None:
    # The sole: below the ankle joint, under the foot's centre of mass (the reference has no foot frame).
    tips = {f"{side}-foot": [0.0042, 0.0, -0.05] for side in ("left", "right")}
    make_rotor_robot(models, out, "tello", [box([0.0, 0.0, 0.1], [0.12, 0.28, 0.34], "rbda_body")], tips,
                     "UIUC Tello Humanoid with its 18 rotors", source_name="tello_humanoid",
                     tip_frames={f"{side}-foot": f"{side}_foot" for side in ("left", "right")})


# ------------------------------------------------------------------ common

def lumped_summary(reduced) -> str:
    parts = [f"{body} <- {', '.join(links)}" for body, links in reduced.lumped.items() if links]
    return "\n  ".join(textwrap.wrap("; ".join(parts) if parts else "none", 96))


def write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=os.path.join(os.path.dirname(REPO), "shared", "models"),
                        help="folder holding atlas/atlas_minimal_contact.urdf, go1/go1.urdf and extras/ (iiwa, allegro)")
    parser.add_argument("--out", default=os.path.join(REPO, "assets", "robots"))
    args = parser.parse_args()
    if not os.path.isdir(args.models):
        raise SystemExit(f"reference models not found in {args.models} (pass --models)")
    make_atlas(args.models, args.out)
    make_go1(args.models, args.out)
    make_iiwa(args.models, args.out)
    make_allegro(args.models, args.out)
    make_mini_cheetah(args.models, args.out)
    make_mit_humanoid(args.models, args.out)
    make_tello(args.models, args.out)


if __name__ == "__main__":
    main()
