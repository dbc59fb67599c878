#!/usr/bin/env python3
"""Generates assets/robots/cassie/cassie_rigid_springs.xml.

Figures (link poses, joint poses, axes, limits, damping, masses, centres of
mass, inertias and the loop-closing joints' places) are read from the
reference SDF cassie_v2.sdf (see ../shared/models/README.md for its source and
licence). Everything else is written here: the spanning tree, the loop
closures as connect constraints, our own primitive geometry, no meshes.

The SDF writes the leg loops as ordinary joints, so its link graph has
cycles. From the pelvis the tree takes, per leg: hip roll, yaw, pitch; the
achilles rod on a ball at the hip pitch (the SDF's pitch-rod joint, its
parent and child swapped); knee, shin, tarsus, heel spring; the foot crank,
the plantar rod on the crank, the foot. The achilles rod's far end meets the
heel spring and the plantar rod's far end meets the foot. The achilles
closure is a connect here (3 rows, as MuJoCo's Cassie writes it), at the
rod's far end on its axis, and the rod's ball at its origin: the SDF's
places sit 1-2 mm and 0.04 mm off the axis, which would let the connect's
force turn the rod about its own axis, a motion nothing else holds. The
plantar loop (tarsus, crank, rod, foot) turns about parallel axes: a 3-row
connect there repeats one row, so it is left to the scenes, as a connect
with the two in-plane rows (scenes/cassie_standing.yaml: the anchors below,
printed by this script). The springs' rigid
variant: the knee-shin and heel-spring joints are removed (each body welded
at the spring's rest angle 0). nq 7 + 2 (3 hinges + 4 + 4 + ball 4) = 29,
nv 6 + 2 (11) = 28.

Usage: scripts/assets/make_cassie.py [--reference FILE] [--out DIR]
  defaults: --reference ../shared/models/cassie/cassie_v2.sdf (beside the
  repository), --out assets/robots/cassie. A developer tool, not a build step:
  the generated file is committed.
"""

from __future__ import annotations

import argparse
import math
import os
import xml.etree.ElementTree as ET

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_REFERENCE = os.path.join(os.path.dirname(REPO), "shared", "models", "cassie", "cassie_v2.sdf")
RIGID_SPRINGS = ("knee-shin-joint", "tarsus-spring-joint")     # per side: removed (welded at rest)
SWAPPED = ("pitch-rod-joint",)                                 # per side: the tree runs child -> parent
LOOPS = ("achilles-spring-joint",)                              # per side: connect constraints here
PLANAR_LOOPS = ("plantar-foot-joint",)                           # per side: left to the scenes (below)
COLOURS = {"pelvis": "0.2 0.21 0.23 1.0", "rod": "0.72 0.74 0.78 1.0", "spring": "0.95 0.55 0.1 1.0",
           "link": "0.8 0.81 0.83 1.0", "foot": "0.1 0.1 0.11 1.0"}

# ------------------------------------------------------------------ maths


def rpy_matrix(r: float, p: float, y: float):
    """SDF's roll-pitch-yaw: R = Rz(y) Ry(p) Rx(r)."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr]]


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mat_vec(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def transpose(a):
    return [[a[j][i] for j in range(3)] for i in range(3)]


class Pose:
    def __init__(self, rotation, translation):
        self.R, self.t = rotation, translation

    @staticmethod
    def parse(text: str | None) -> "Pose":
        v = [float(x) for x in (text or "0 0 0 0 0 0").split()]
        return Pose(rpy_matrix(v[3], v[4], v[5]), v[:3])

    def __mul__(self, other: "Pose") -> "Pose":
        return Pose(mat_mul(self.R, other.R), [a + b for a, b in zip(mat_vec(self.R, other.t), self.t)])

    def inverse(self) -> "Pose":
        rt = transpose(self.R)
        return Pose(rt, [-x for x in mat_vec(rt, self.t)])

    def point(self, p):
        return [a + b for a, b in zip(mat_vec(self.R, p), self.t)]


def quaternion(R):
    """(w, x, y, z) of a rotation matrix, w >= 0."""
    tr = R[0][0] + R[1][1] + R[2][2]
    if tr > 0.0:
        s = 2.0 * math.sqrt(1.0 + tr)
        q = [0.25 * s, (R[2][1] - R[1][2]) / s, (R[0][2] - R[2][0]) / s, (R[1][0] - R[0][1]) / s]
    elif R[0][0] > R[1][1] and R[0][0] > R[2][2]:
        s = 2.0 * math.sqrt(1.0 + R[0][0] - R[1][1] - R[2][2])
        q = [(R[2][1] - R[1][2]) / s, 0.25 * s, (R[0][1] + R[1][0]) / s, (R[0][2] + R[2][0]) / s]
    elif R[1][1] > R[2][2]:
        s = 2.0 * math.sqrt(1.0 + R[1][1] - R[0][0] - R[2][2])
        q = [(R[0][2] - R[2][0]) / s, (R[0][1] + R[1][0]) / s, 0.25 * s, (R[1][2] + R[2][1]) / s]
    else:
        s = 2.0 * math.sqrt(1.0 + R[2][2] - R[0][0] - R[1][1])
        q = [(R[1][0] - R[0][1]) / s, (R[0][2] + R[2][0]) / s, (R[1][2] + R[2][1]) / s, 0.25 * s]
    if q[0] < 0.0:
        q = [-x for x in q]
    n = math.sqrt(sum(x * x for x in q))
    return [x / n for x in q]


def fmt(values) -> str:
    return " ".join(f"{round(v, 12):.12g}" for v in values)

# ------------------------------------------------------------------ reading


class Link:
    def __init__(self, element):
        self.name = element.get("name")
        self.pose = Pose.parse(element.findtext("pose"))  # in the model frame
        inertial = element.find("inertial")
        self.com_pose = Pose.parse(inertial.findtext("pose"))
        self.mass = float(inertial.findtext("mass"))
        i = inertial.find("inertia")
        self.inertia = [[float(i.findtext("ixx")), float(i.findtext("ixy")), float(i.findtext("ixz"))],
                        [float(i.findtext("ixy")), float(i.findtext("iyy")), float(i.findtext("iyz"))],
                        [float(i.findtext("ixz")), float(i.findtext("iyz")), float(i.findtext("izz"))]]
        self.children: list[tuple[Link, "Joint | None"]] = []


class Joint:
    def __init__(self, element):
        self.name = element.get("name")
        self.type = element.get("type")
        self.pose = Pose.parse(element.findtext("pose"))  # in the child link's frame (SDF 1.6)
        self.parent = element.findtext("parent").strip()
        self.child = element.findtext("child").strip()
        self.axis = [float(x) for x in (element.findtext("axis/xyz") or "0 0 1").split()]
        limit = element.find("axis/limit")
        self.lower = float(limit.findtext("lower")) if limit is not None and limit.findtext("lower") else None
        self.upper = float(limit.findtext("upper")) if limit is not None and limit.findtext("upper") else None
        damping = element.findtext("axis/dynamics/damping")
        self.damping = float(damping) if damping else 0.0


def side_name(joint: str) -> str:
    return joint.split("-", 1)[1]


def read(path: str):
    model = ET.parse(path).getroot().find("model")
    links = {e.get("name"): Link(e) for e in model.findall("link")}
    joints = [Joint(e) for e in model.findall("joint")]
    return links, joints

# ------------------------------------------------------------------ writing


def inertial_xml(link: Link, frame: Pose) -> str:
    """The link's inertial in `frame` (a body frame given in the link's frame)."""
    com = frame.inverse() * link.com_pose
    inertia = mat_mul(mat_mul(com.R, link.inertia), transpose(com.R))
    full = [inertia[0][0], inertia[1][1], inertia[2][2], inertia[0][1], inertia[0][2], inertia[1][2]]
    return f"<inertial pos='{fmt(com.t)}' mass='{link.mass:g}' fullinertia='{fmt(full)}'/>"


def body_xml(link: Link, joint: Joint | None, parent_world: Pose, depth: int) -> list[str]:
    pad = "  " * depth
    world = link.pose
    local = parent_world.inverse() * world
    out = [f"{pad}<body name='{link.name}' pos='{fmt(local.t)}' quat='{fmt(quaternion(local.R))}'>",
           f"{pad}  {inertial_xml(link, Pose([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0]))}"]
    if joint is None and depth == 2:
        out.append(f"{pad}  <freejoint name='base_joint'/>")
    elif joint is not None and side_name(joint.name) in SWAPPED:
        # The SDF's ball sits 0.04 mm off the rod's origin: here at the origin, on the rod's axis,
        # so that the rod's spin about its own axis is a free motion no force turns (as the far end).
        out.append(f"{pad}  <joint name='{link.name}' type='ball' pos='0 0 0' damping='{joint.damping:g}'/>")
    elif joint is not None:
        axis = mat_vec(joint.pose.R, joint.axis)
        # The reference's range of the foot and its crank, [-2.4435, -0.6109], leaves out its own
        # zero pose (the link poses it gives): a range for another zero, left out here.
        in_range = joint.lower is not None and joint.upper is not None and joint.lower <= 0.0 <= joint.upper
        limits = f" limited='true' range='{joint.lower:.12g} {joint.upper:.12g}'" if in_range else ""
        out.append(f"{pad}  <joint name='{joint.name}' type='hinge' pos='{fmt(joint.pose.t)}' axis='{fmt(axis)}'"
                   f"{limits} damping='{joint.damping:g}'/>")
    out += geometry(link, pad + "  ")
    for child, child_joint in link.children:
        out += body_xml(child, child_joint, world, depth + 1)
    out.append(f"{pad}</body>")
    return out


def geometry(link: Link, pad: str) -> list[str]:
    """Our primitives: a bone to each child's origin, a rod along the rods' x axis, a box pelvis and feet."""
    name = link.name
    if name == "pelvis":
        return [f"{pad}<geom type='box' pos='0.03 0 0.03' size='0.09 0.12 0.07' rgba='{COLOURS['pelvis']}'/>"]
    if name.endswith("achilles-rod"):
        return [f"{pad}<geom type='capsule' fromto='0 0 0 0.501187 0 0' size='0.006' rgba='{COLOURS['rod']}'/>"]
    if name.endswith("plantar-rod"):
        return [f"{pad}<geom type='capsule' fromto='0 0 0 0.35012 0 0' size='0.006' rgba='{COLOURS['rod']}'/>"]
    if name.endswith("foot"):
        return [f"{pad}<geom type='box' pos='0.01 0.045 0' size='0.02 0.09 0.02' quat='{fmt(quaternion(rpy_matrix(0, 0, -0.695)))}' "
                f"rgba='{COLOURS['foot']}'/>"]
    colour = COLOURS["spring"] if name.endswith("heel-spring") else COLOURS["link"]
    out = []
    for child, _ in link.children:
        end = (link.pose.inverse() * child.pose).t
        if math.sqrt(sum(x * x for x in end)) > 1e-6:
            out.append(f"{pad}<geom type='capsule' fromto='0 0 0 {fmt(end)}' size='0.02' rgba='{colour}'/>")
    if not out:
        end = link.com_pose.t
        out.append(f"{pad}<geom type='capsule' fromto='0 0 0 {fmt([2 * x for x in end])}' size='0.015' rgba='{colour}'/>")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", default=DEFAULT_REFERENCE)
    parser.add_argument("--out", default=os.path.join(REPO, "assets", "robots", "cassie"))
    args = parser.parse_args()
    if not os.path.isfile(args.reference):
        raise SystemExit(f"reference model not found: {args.reference} (pass --reference)")
    links, joints = read(args.reference)
    loops, planar = [], []
    for j in joints:
        kind = side_name(j.name)
        if kind in LOOPS:
            loops.append(j)
        elif kind in PLANAR_LOOPS:
            planar.append(j)
        elif kind in RIGID_SPRINGS:
            links[j.parent].children.append((links[j.child], None))
        elif kind in SWAPPED:
            links[j.child].children.append((links[j.parent], j))
        else:
            links[j.parent].children.append((links[j.child], j))
    total = sum(l.mass for l in links.values())
    lines = ["<!-- Agility Cassie for loopsim, springs rigid (knee-shin and heel-spring joints removed): nq 31, nv 28;",
             "     the achilles loops closed here, the plantar loops (planar: 2 rows) by the scenes.",
             "     Generated by scripts/assets/make_cassie.py from the figures of cassie_v2.sdf",
             "     (see README.md for provenance); do not edit by hand. Units: SI, radians. -->",
             "<mujoco model='cassie_rigid_springs'>",
             "  <compiler angle='radian' inertiafromgeom='false'/>",
             "  <option gravity='0 0 -9.81'/>",
             "  <default>",
             "    <geom contype='0' conaffinity='0' group='1'/>",
             "  </default>",
             "  <worldbody>"]
    identity = Pose([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0])
    lines += body_xml(links["pelvis"], None, identity, 2)
    lines += ["  </worldbody>", "  <equality>"]
    for j in loops:
        # The rod's far end on its axis, at the closing joint's distance (the SDF's joint sits 1-2 mm
        # off the axis; MuJoCo's Cassie puts it on the axis too): a point of both links at the
        # reference pose, given in the heel spring's frame.
        on_axis = [(links[j.child].pose.inverse() * links[j.child].pose * j.pose).t[0], 0.0, 0.0]
        world_point = links[j.child].pose.point(on_axis)
        anchor = links[j.parent].pose.inverse().point(world_point)
        lines.append(f"    <connect name='{j.name}' body1='{j.parent}' body2='{j.child}' anchor='{fmt(anchor)}'/>")
    lines += ["  </equality>", "</mujoco>", ""]
    for j in planar:
        world_point = (links[j.child].pose * j.pose).t
        anchor = links[j.parent].pose.inverse().point(world_point)
        print(f"planar loop {j.name}: connect body1 {j.parent} at {fmt(anchor)}, body2 {j.child}, rows x y")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "cassie_rigid_springs.xml")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines))
    print(f"{path}: {len(links)} bodies, mass {total:.6f} kg, {len(loops)} connects, {len(planar)} planar loops")


if __name__ == "__main__":
    main()
