#!/usr/bin/env python3
"""Generates assets/robots/digit/digit.xml and digit_rigid_springs.xml.

Figures (body positions and orientations, joint axes, limits, damping,
armature, spring stiffness, masses, centres of mass, inertias, loop anchors,
motor gears and control ranges) are read from the reference MJCF
digit-v3.xml (see ../shared/models/README.md for its source and licence).
Everything else is written here: the file layout, our own primitive geometry
coloured per part, radians and quaternions instead of the reference's
degrees and Euler angles, and no meshes, textures or contact settings.

  digit.xml                 the shin and heel springs are compliant joints:
                            nq 61, nv 54 (free base 7/6, 30 hinges, 6 balls)
  digit_rigid_springs.xml   the four spring joints removed (bodies welded at
                            the spring's rest angle 0): nq 57, nv 50

Usage: scripts/assets/make_digit.py [--reference FILE] [--out DIR]
  defaults: --reference ../shared/models/digit/digit-v3.xml (beside the
  repository), --out assets/robots/digit. A developer tool, not a build step:
  the generated files are committed.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import xml.etree.ElementTree as ET

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_REFERENCE = os.path.join(os.path.dirname(REPO), "shared", "models", "digit", "digit-v3.xml")
SPRING_JOINTS = ("left-shin", "left-heel-spring", "right-shin", "right-heel-spring")
REFERENCE_TOTAL_MASS = 47.925  # kg, sum of the reference's body masses (checked below)

# ------------------------------------------------------------------ maths


def quat_mul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw)


def euler_xyz_deg_to_quat(euler):
    """MuJoCo eulerseq 'xyz' (lower case: rotating axes), degrees -> [w x y z]."""
    q = (1.0, 0.0, 0.0, 0.0)
    for axis, angle in enumerate(euler):
        half = math.radians(angle) / 2.0
        r = [math.cos(half), 0.0, 0.0, 0.0]
        r[1 + axis] = math.sin(half)
        q = quat_mul(q, tuple(r))
    return q


def numbers(text, count=None):
    values = [float(x) for x in text.split()]
    if count is not None and len(values) != count:
        raise ValueError(f"expected {count} numbers in '{text}'")
    return values


def fmt(x: float) -> str:
    """Shortest round-trip text; -0 -> 0."""
    if x == 0.0:
        return "0"
    return repr(float(x))


def vec(values) -> str:
    return " ".join(fmt(v) for v in values)


# ------------------------------------------------------------------ reference


class Body:
    def __init__(self, element: ET.Element):
        self.name = element.get("name")
        self.pos = numbers(element.get("pos", "0 0 0"), 3)
        self.quat = euler_xyz_deg_to_quat(numbers(element.get("euler", "0 0 0"), 3))
        inertial = element.find("inertial")
        self.mass = float(inertial.get("mass")) if inertial is not None else 0.0
        self.com = numbers(inertial.get("pos"), 3) if inertial is not None else None
        self.fullinertia = numbers(inertial.get("fullinertia"), 6) if inertial is not None else None
        self.joint = None
        joint = element.find("joint")
        if joint is not None:
            self.joint = {
                "name": joint.get("name"),
                "type": joint.get("type", "hinge"),
                "axis": numbers(joint.get("axis", "0 0 1"), 3),
                "pos": numbers(joint.get("pos", "0 0 0"), 3),
                "limited": joint.get("limited", "false") == "true",
                "range": [math.radians(v) for v in numbers(joint.get("range", "0 0"), 2)],
                "stiffness": float(joint.get("stiffness", "0")),
                "damping": float(joint.get("damping", "0")),
                "armature": float(joint.get("armature", "0")),
            }
            if any(self.joint["pos"]):
                raise ValueError(f"{self.name}: joint anchor off the body origin is not expected")
        self.children = [Body(child) for child in element.findall("body")]

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


def read_reference(path: str):
    root = ET.parse(path).getroot()
    compiler = root.find("compiler")
    if compiler is None or compiler.get("angle") != "degree" or compiler.get("eulerseq") != "xyz":
        raise ValueError("expected <compiler angle='degree' eulerseq='xyz'> in the reference")
    base = Body(root.find("worldbody").find("body"))
    connects = [{"name": c.get("name"), "body1": c.get("body1"), "body2": c.get("body2"),
                 "anchor": numbers(c.get("anchor"), 3)} for c in root.find("equality").findall("connect")]
    motors = [{"name": m.get("name"), "joint": m.get("joint"), "gear": float(m.get("gear")),
               "ctrlrange": numbers(m.get("ctrlrange"), 2)} for m in root.find("actuator").findall("motor")]
    return base, connects, motors


# ------------------------------------------------------------------ our geometry

COLOURS = {
    "torso": (0.20, 0.21, 0.23, 1.0),
    "head": (0.08, 0.08, 0.09, 1.0),
    "housing": (0.10, 0.10, 0.11, 1.0),   # motor housings and cranks
    "shell": (0.80, 0.81, 0.83, 1.0),     # thigh, shin, arm shells
    "tarsus": (0.55, 0.57, 0.60, 1.0),
    "rod": (0.72, 0.74, 0.78, 1.0),       # achilles and toe rods
    "spring": (0.95, 0.55, 0.10, 1.0),    # shin and heel leaf springs
    "foot": (0.16, 0.17, 0.18, 1.0),
    "hand": (0.95, 0.55, 0.10, 1.0),
}


def capsule(a, b, radius, colour):
    return f"<geom type='capsule' fromto='{vec(list(a) + list(b))}' size='{fmt(radius)}' rgba='{vec(COLOURS[colour])}'/>"


def cylinder(a, b, radius, colour):
    return f"<geom type='cylinder' fromto='{vec(list(a) + list(b))}' size='{fmt(radius)}' rgba='{vec(COLOURS[colour])}'/>"


def box(pos, half, colour, quat=None, name=None, contact=""):
    q = f" quat='{vec(quat)}'" if quat is not None else ""
    n = f"name='{name}' " if name is not None else ""
    return f"<geom {n}type='box' pos='{vec(pos)}' size='{vec(half)}'{q} rgba='{vec(COLOURS[colour])}'{contact}/>"


# The soles collide, with the reference's masks (robot geoms 4 / 3: never with
# each other, always with a ground of contype 1) and sliding friction.
SOLE_CONTACT = " contype='4' conaffinity='3' condim='3' friction='0.7 0.01 0.005'"


def sphere(pos, radius, colour):
    return f"<geom type='sphere' pos='{vec(pos)}' size='{fmt(radius)}' rgba='{vec(COLOURS[colour])}'/>"


def axis_housing(radius, half_length, colour="housing"):
    """A motor housing centred on the joint axis (z)."""
    return cylinder([0, 0, -half_length], [0, 0, half_length], radius, colour)


def geometry(body: Body, side: float):
    """Primitives in the body frame. side = +1 left, -1 right (mirror in y)."""
    part = body.name.split("-", 1)[1] if body.name.startswith(("left-", "right-")) else body.name
    child = {c.name.split("-", 1)[1]: c.pos for c in body.children}
    o = [0.0, 0.0, 0.0]
    if part == "base":
        return [box([0.008, 0.0, 0.21], [0.0975, 0.087, 0.245], "torso"),
                cylinder([0.02, 0.0, 0.46], [0.02, 0.0, 0.52], 0.05, "head"),
                sphere([0.095, 0.0, 0.40], 0.03, "head")]
    if part == "hip-roll":
        return [axis_housing(0.045, 0.03), capsule(o, child["hip-yaw"], 0.035, "housing")]
    if part == "hip-yaw":
        return [axis_housing(0.04, 0.025), capsule(o, child["hip-pitch"], 0.035, "housing")]
    if part == "hip-pitch":
        return [cylinder([0, 0, -0.1], [0, 0, 0.02], 0.05, "housing"),
                box([0.06, 0.0, -0.04], [0.06, 0.045, 0.06], "shell"),
                cylinder([0.12, 0, -0.1], [0.12, 0, 0.02], 0.05, "housing")]
    if part in ("achilles-rod", "toe-A-rod", "toe-B-rod"):
        length = 2.0 * body.com[0]  # uniform rods: the centre of mass is mid-length
        return [capsule(o, [length, 0, 0], 0.006, "rod"), sphere(o, 0.012, "housing")]
    if part == "knee":
        return [axis_housing(0.04, 0.03), capsule(o, child["shin"], 0.03, "shell")]
    if part == "shin":
        return [capsule(o, child["tarsus"], 0.03, "shell"),
                capsule([0.05, side * 0.03, 0.0], [0.2, side * 0.015, 0.0], 0.008, "spring")]
    if part == "tarsus":
        return [capsule(o, child["toe-pitch"], 0.022, "tarsus"), axis_housing(0.03, 0.025, "tarsus"),
                capsule(child["toe-A"], child["toe-B"], 0.018, "housing")]
    if part == "heel-spring":
        return [capsule(o, [0.1138, -side * 0.011, 0.0], 0.008, "spring")]
    if part in ("toe-A", "toe-B"):
        return [capsule(o, child[part + "-rod"], 0.01, "housing")]
    if part == "toe-pitch":
        return [sphere(o, 0.015, "housing")]
    if part == "toe-roll":
        # The sole plate, tilted like the reference's foot.
        tilt = euler_xyz_deg_to_quat([-side * 60.0, 0.0, 0.0])
        name = ("left" if side > 0 else "right") + "-sole"
        return [box([0.0, -side * 0.0437, -0.0255], [0.04, 0.1175, 0.0115], "foot", tilt, name, SOLE_CONTACT)]
    if part == "shoulder-roll":
        return [axis_housing(0.04, 0.03), capsule(o, child["shoulder-pitch"], 0.03, "housing")]
    if part == "shoulder-pitch":
        return [capsule(o, child["shoulder-yaw"], 0.038, "shell")]
    if part == "shoulder-yaw":
        return [capsule([0, 0, 0.02], child["elbow"], 0.035, "shell")]
    if part == "elbow":
        return [axis_housing(0.035, 0.025), capsule(o, child["hand"], 0.025, "shell"),
                sphere(child["hand"], 0.03, "hand")]
    if part in ("foot", "hand"):
        return []
    raise ValueError(f"no geometry for {body.name}")


# ------------------------------------------------------------------ writer


def write_body(out, body: Body, depth: int, rigid: bool):
    ind = "  " * depth
    side = -1.0 if body.name.startswith("right-") else 1.0
    out.append(f"{ind}<body name='{body.name}' pos='{vec(body.pos)}' quat='{vec(body.quat)}'>")
    if body.fullinertia is not None:
        out.append(f"{ind}  <inertial pos='{vec(body.com)}' mass='{fmt(body.mass)}' "
                   f"fullinertia='{vec(body.fullinertia)}'/>")
    j = body.joint
    if j is not None and j["type"] == "free":
        out.append(f"{ind}  <freejoint name='base_joint'/>")
    elif j is not None and not (rigid and j["name"] in SPRING_JOINTS):
        attrs = [f"name='{j['name']}'", f"type='{j['type']}'"]
        if j["type"] == "hinge":
            attrs.append(f"axis='{vec(j['axis'])}'")
            if j["limited"]:
                attrs.append(f"limited='true' range='{vec(j['range'])}'")
            if j["stiffness"]:
                attrs.append(f"stiffness='{fmt(j['stiffness'])}'")
        if j["damping"]:
            attrs.append(f"damping='{fmt(j['damping'])}'")
        if j["armature"]:
            attrs.append(f"armature='{fmt(j['armature'])}'")
        out.append(f"{ind}  <joint {' '.join(attrs)}/>")
    for g in geometry(body, side):
        out.append(f"{ind}  {g}")
    for child in body.children:
        write_body(out, child, depth + 1, rigid)
    out.append(f"{ind}</body>")


def generate(base: Body, connects, motors, rigid: bool) -> str:
    variant = ("springs rigid (shin and heel-spring joints removed): nq 57, nv 50" if rigid
               else "springs as compliant joints: nq 61, nv 54")
    out = [
        "<!-- Agility Digit v3 for loopsim, " + variant + ".",
        "     Generated by scripts/assets/make_digit.py from the figures of digit-v3.xml",
        "     (see README.md for provenance); do not edit by hand. Units: SI, radians. -->",
        f"<mujoco model='{'digit_rigid_springs' if rigid else 'digit'}'>",
        "  <compiler angle='radian' inertiafromgeom='false'/>",
        "  <option gravity='0 0 -9.81'/>",
        "  <default>",
        "    <!-- Drawing only, except the soles (their geoms say so). -->",
        "    <geom contype='0' conaffinity='0' group='1'/>",
        "  </default>",
        "  <worldbody>",
    ]
    write_body(out, base, 2, rigid)
    out += ["  </worldbody>", "  <equality>"]
    for c in connects:
        out.append(f"    <connect name='{c['name']}' body1='{c['body1']}' body2='{c['body2']}' "
                   f"anchor='{vec(c['anchor'])}'/>")
    out += ["  </equality>", "  <actuator>"]
    for m in motors:
        out.append(f"    <motor name='{m['name']}' joint='{m['joint']}' gear='{fmt(m['gear'])}' "
                   f"ctrllimited='true' ctrlrange='{vec(m['ctrlrange'])}'/>")
    out += ["  </actuator>", "</mujoco>", ""]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", default=DEFAULT_REFERENCE)
    parser.add_argument("--out", default=os.path.join(REPO, "assets", "robots", "digit"))
    args = parser.parse_args()
    if not os.path.exists(args.reference):
        print(f"make_digit: reference {args.reference} not found (needed to regenerate)", file=sys.stderr)
        return 1
    base, connects, motors = read_reference(args.reference)

    bodies = list(base.walk())
    total = sum(b.mass for b in bodies)
    if abs(total - REFERENCE_TOTAL_MASS) > 0.02 * REFERENCE_TOTAL_MASS:
        print(f"make_digit: total mass {total} kg is not within 2 % of {REFERENCE_TOTAL_MASS}", file=sys.stderr)
        return 1
    kinds = [b.joint["type"] for b in bodies if b.joint]
    counts = {k: kinds.count(k) for k in ("free", "hinge", "ball")}
    if counts != {"free": 1, "hinge": 30, "ball": 6} or len(connects) != 6:
        print(f"make_digit: unexpected joints {counts} / {len(connects)} loops", file=sys.stderr)
        return 1

    os.makedirs(args.out, exist_ok=True)
    for rigid, name in ((False, "digit.xml"), (True, "digit_rigid_springs.xml")):
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write(generate(base, connects, motors, rigid))
    print(f"make_digit: wrote digit.xml and digit_rigid_springs.xml to {args.out} "
          f"({len(bodies)} bodies, total mass {total:.6f} kg)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
