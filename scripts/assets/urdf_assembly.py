"""Shared tools for generating loopsim's robot URDFs from reference models.

A reference URDF is reduced to its moving tree: every link attached by fixed
joints is lumped (mass, centre of mass, inertia) into the nearest moving
ancestor. The result keeps the reference joint placements, axes, limits and
damping, replaces meshes with primitives sized by hand, and keeps a few named
frames as zero-mass fixed links. Pure standard library: no numpy.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

Vec = list[float]
Mat = list[list[float]]


# ---------------------------------------------------------------- 3D algebra

def rpy_to_matrix(roll: float, pitch: float, yaw: float) -> Mat:
    """URDF convention: R = Rz(yaw) Ry(pitch) Rx(roll)."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr]]


def mat_mul(a: Mat, b: Mat) -> Mat:
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mat_vec(a: Mat, x: Vec) -> Vec:
    return [sum(a[i][k] * x[k] for k in range(3)) for i in range(3)]


def transpose(a: Mat) -> Mat:
    return [[a[j][i] for j in range(3)] for i in range(3)]


def identity() -> Mat:
    return [[1.0 if i == j else 0.0 for j in range(3)] for i in range(3)]


@dataclass
class Pose:
    """Placement of a child frame in a parent frame: p_parent = R p_child + t."""
    rotation: Mat = field(default_factory=identity)
    translation: Vec = field(default_factory=lambda: [0.0, 0.0, 0.0])

    def compose(self, child: "Pose") -> "Pose":
        return Pose(mat_mul(self.rotation, child.rotation),
                    [a + b for a, b in zip(mat_vec(self.rotation, child.translation), self.translation)])

    def apply(self, point: Vec) -> Vec:
        return [a + b for a, b in zip(mat_vec(self.rotation, point), self.translation)]


def matrix_to_rpy(r: Mat) -> Vec:
    """Inverse of rpy_to_matrix (pitch in [-pi/2, pi/2])."""
    pitch = math.asin(max(-1.0, min(1.0, -r[2][0])))
    if abs(abs(r[2][0]) - 1.0) < 1e-12:  # gimbal lock: put everything in yaw
        return [0.0, pitch, math.atan2(-r[0][1], r[1][1])]
    return [math.atan2(r[2][1], r[2][2]), pitch, math.atan2(r[1][0], r[0][0])]


def symmetric_eigenvalues(a: Mat) -> Vec:
    """Eigenvalues of a symmetric 3x3 matrix, ascending (closed form)."""
    p1 = a[0][1] ** 2 + a[0][2] ** 2 + a[1][2] ** 2
    q = (a[0][0] + a[1][1] + a[2][2]) / 3.0
    if p1 == 0.0:
        return sorted([a[0][0], a[1][1], a[2][2]])
    p2 = sum((a[i][i] - q) ** 2 for i in range(3)) + 2.0 * p1
    p = math.sqrt(p2 / 6.0)
    b = [[(a[i][j] - (q if i == j else 0.0)) / p for j in range(3)] for i in range(3)]
    det_b = (b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1])
             - b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0])
             + b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]))
    phi = math.acos(max(-1.0, min(1.0, det_b / 2.0))) / 3.0
    largest = q + 2.0 * p * math.cos(phi)
    smallest = q + 2.0 * p * math.cos(phi + 2.0 * math.pi / 3.0)
    return sorted([smallest, 3.0 * q - largest - smallest, largest])


# ------------------------------------------------------------ rigid inertia

@dataclass
class RigidInertia:
    """Mass, centre of mass and rotational inertia about the centre of mass,
    all expressed in one link frame."""
    mass: float = 0.0
    com: Vec = field(default_factory=lambda: [0.0, 0.0, 0.0])
    inertia: Mat = field(default_factory=lambda: [[0.0] * 3 for _ in range(3)])

    def transformed(self, pose: Pose) -> "RigidInertia":
        """The same body seen from a frame in which this frame sits at pose."""
        r = pose.rotation
        return RigidInertia(self.mass, pose.apply(self.com), mat_mul(mat_mul(r, self.inertia), transpose(r)))

    def __add__(self, other: "RigidInertia") -> "RigidInertia":
        mass = self.mass + other.mass
        if mass == 0.0:
            return RigidInertia()
        com = [(self.mass * a + other.mass * b) / mass for a, b in zip(self.com, other.com)]
        total = [[0.0] * 3 for _ in range(3)]
        for part in (self, other):
            d = [c - g for c, g in zip(part.com, com)]  # parallel-axis shift to the joint com
            dd = sum(x * x for x in d)
            for i in range(3):
                for j in range(3):
                    total[i][j] += part.inertia[i][j] + part.mass * ((dd if i == j else 0.0) - d[i] * d[j])
        return RigidInertia(mass, com, total)


# ---------------------------------------------------------------- reference

def _floats(text: str | None, default: str) -> Vec:
    return [float(x) for x in (text or default).split()]


def parse_origin(element: ET.Element | None) -> Pose:
    if element is None:
        return Pose()
    return Pose(rpy_to_matrix(*_floats(element.get("rpy"), "0 0 0")), _floats(element.get("xyz"), "0 0 0"))


def parse_inertial(link: ET.Element) -> RigidInertia:
    inertial = link.find("inertial")
    if inertial is None:
        return RigidInertia()
    mass = float(inertial.find("mass").get("value"))
    frame = parse_origin(inertial.find("origin"))
    t = inertial.find("inertia")
    g = {k: float(t.get(k, "0")) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    tensor = [[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]], [g["ixz"], g["iyz"], g["izz"]]]
    return RigidInertia(mass, [0.0, 0.0, 0.0], tensor).transformed(frame)


@dataclass
class ReferenceJoint:
    name: str
    type: str
    parent: str
    child: str
    origin: ET.Element | None
    axis: Vec
    limit: dict[str, str]
    dynamics: dict[str, str]


@dataclass
class ReferenceRobot:
    name: str
    root: str
    inertias: dict[str, RigidInertia]
    joints: list[ReferenceJoint]

    def total_mass(self) -> float:
        return sum(i.mass for i in self.inertias.values())


def read_reference(path: str) -> ReferenceRobot:
    robot = ET.parse(path).getroot()
    inertias = {link.get("name"): parse_inertial(link) for link in robot.findall("link")}
    joints = []
    for j in robot.findall("joint"):
        axis = j.find("axis")
        limit = j.find("limit")
        dynamics = j.find("dynamics")
        joints.append(ReferenceJoint(
            j.get("name"), j.get("type"), j.find("parent").get("link"), j.find("child").get("link"), j.find("origin"),
            _floats(axis.get("xyz") if axis is not None else None, "1 0 0"),
            dict(limit.attrib) if limit is not None else {}, dict(dynamics.attrib) if dynamics is not None else {}))
    children = {j.child for j in joints}
    roots = [name for name in inertias if name not in children]
    if len(roots) != 1:
        raise SystemExit(f"{path}: expected one root link, found {roots}")
    return ReferenceRobot(robot.get("name"), roots[0], inertias, joints)


# --------------------------------------------------------------- reduction

@dataclass
class Visual:
    shape: str               # box | cylinder | sphere
    size: Vec                # box: extents; cylinder: (radius, length); sphere: (radius,)
    material: str
    pose: Pose = field(default_factory=Pose)


def bone(start: Vec, end: Vec, radius: float, material: str) -> Visual:
    """A cylinder whose axis runs from start to end (both in the link frame)."""
    d = [b - a for a, b in zip(start, end)]
    length = math.sqrt(sum(x * x for x in d))
    pitch = math.acos(max(-1.0, min(1.0, d[2] / length)))
    yaw = math.atan2(d[1], d[0]) if abs(d[0]) + abs(d[1]) > 1e-12 else 0.0
    mid = [(a + b) / 2.0 for a, b in zip(start, end)]
    return Visual("cylinder", [radius, length], material, Pose(rpy_to_matrix(0.0, pitch, yaw), mid))


def box(center: Vec, extents: Vec, material: str, rpy: Vec | None = None) -> Visual:
    return Visual("box", extents, material, Pose(rpy_to_matrix(*(rpy or [0, 0, 0])), center))


def sphere(center: Vec, radius: float, material: str) -> Visual:
    return Visual("sphere", [radius], material, Pose(identity(), center))


def cylinder(center: Vec, radius: float, length: float, material: str, rpy: Vec) -> Visual:
    return Visual("cylinder", [radius, length], material, Pose(rpy_to_matrix(*rpy), center))


@dataclass
class ExtraFrame:
    """A zero-mass fixed link kept as a named frame on a moving link."""
    name: str
    parent: str
    pose: Pose


def reattached(joint: ReferenceJoint, body: str, pose: Pose) -> ReferenceJoint:
    """The joint with its parent replaced by `body`, where its old parent sits at pose."""
    placed = pose.compose(parse_origin(joint.origin))
    origin = ET.Element("origin", xyz=" ".join(repr(x) for x in placed.translation),
                        rpy=" ".join(repr(x) for x in matrix_to_rpy(placed.rotation)))
    return ReferenceJoint(joint.name, joint.type, body, joint.child, origin, joint.axis, joint.limit, joint.dynamics)


@dataclass
class ReducedRobot:
    name: str
    root: str
    moving_joints: list[ReferenceJoint]
    inertias: dict[str, RigidInertia]      # per moving link, lumped, in its frame
    frames: list[ExtraFrame]
    lumped: dict[str, list[str]]           # moving link -> fixed links merged into it


def reduce_to_moving_tree(ref: ReferenceRobot, keep_links: list[str]) -> ReducedRobot:
    """Lumps every fixed-joint link into its nearest moving ancestor. Links in
    keep_links stay as zero-mass frames (their mass is lumped all the same)."""
    by_child = {j.child: j for j in ref.joints}
    owner: dict[str, tuple[str, Pose]] = {ref.root: (ref.root, Pose())}

    def resolve(link: str) -> tuple[str, Pose]:
        if link not in owner:
            joint = by_child[link]
            if joint.type == "fixed":
                body, pose = resolve(joint.parent)
                owner[link] = (body, pose.compose(parse_origin(joint.origin)))
            else:
                owner[link] = (link, Pose())
        return owner[link]

    # Depth-first from the root, siblings in file order, walking through fixed
    # links so that a moving joint below one is re-attached to the moving body.
    moving: list[ReferenceJoint] = []

    def visit(link: str) -> None:
        for j in ref.joints:
            if j.parent != link:
                continue
            if j.type != "fixed":
                body, pose = resolve(link)
                if body != link:
                    j = reattached(j, body, pose)
                moving.append(j)
            visit(j.child)

    visit(ref.root)
    bodies = [ref.root] + [j.child for j in moving]
    inertias = {b: RigidInertia() for b in bodies}
    lumped: dict[str, list[str]] = {b: [] for b in bodies}
    for link, inertia in ref.inertias.items():  # reference file order: deterministic
        body, pose = resolve(link)
        inertias[body] = inertias[body] + inertia.transformed(pose)
        if link != body and inertia.mass > 0.0:
            lumped[body].append(link)
    frames = []
    for link in keep_links:
        body, pose = resolve(link)
        frames.append(ExtraFrame(link, body, pose))
    return ReducedRobot(ref.name, ref.root, moving, inertias, frames, lumped)


def check_inertias(robot: ReducedRobot) -> None:
    """Every moving body needs a positive mass and a physical inertia
    (positive principal moments obeying the triangle inequality); MuJoCo and
    loopsim's strict mode reject anything else."""
    for body, inertia in robot.inertias.items():
        moments = symmetric_eigenvalues(inertia.inertia)
        if inertia.mass <= 0.0 or moments[0] <= 0.0:
            raise SystemExit(f"{body}: mass {inertia.mass}, principal moments {moments}")
        if moments[0] + moments[1] < moments[2] * (1.0 - 1e-12):
            raise SystemExit(f"{body}: principal moments {moments} violate the triangle inequality")


def check_total_mass(robot: ReducedRobot, reference_mass: float, written_mass: float) -> None:
    if abs(written_mass - reference_mass) > 0.02 * reference_mass:
        raise SystemExit(f"{robot.name}: total mass {written_mass} differs from the reference {reference_mass} by > 2%")


# ------------------------------------------------------------------ output

def fmt(x: float) -> str:
    text = f"{x:.10g}"
    return "0" if text in ("-0", "0") else text


def fmt_vec(v: Vec) -> str:
    return " ".join(fmt(x) for x in v)


def origin_xml(pose: Pose, indent: str) -> str:
    return f'{indent}<origin xyz="{fmt_vec(pose.translation)}" rpy="{fmt_vec(matrix_to_rpy(pose.rotation))}"/>\n'


def joint_origin_xml(element: ET.Element | None, indent: str) -> str:
    """Keeps the reference's own xyz / rpy numbers (no round trip through a matrix)."""
    xyz = _floats(element.get("xyz") if element is not None else None, "0 0 0")
    rpy = _floats(element.get("rpy") if element is not None else None, "0 0 0")
    return f'{indent}<origin xyz="{fmt_vec(xyz)}" rpy="{fmt_vec(rpy)}"/>\n'


def geometry_xml(v: Visual) -> str:
    if v.shape == "box":
        return f'<box size="{fmt_vec(v.size)}"/>'
    if v.shape == "cylinder":
        return f'<cylinder radius="{fmt(v.size[0])}" length="{fmt(v.size[1])}"/>'
    return f'<sphere radius="{fmt(v.size[0])}"/>'


def write_urdf(robot: ReducedRobot, visuals: dict[str, list[Visual]], materials: dict[str, Vec],
               header: str, keep_dynamics: tuple[str, ...],
               collisions: dict[str, list[Visual]] | None = None) -> tuple[str, float]:
    """Returns the URDF text and the total mass as written (parsed back from the text).
    collisions: <collision> primitives per link (their material is unused)."""
    out = ['<?xml version="1.0"?>\n', f"<!--\n{header.rstrip()}\n-->\n", f'<robot name="{robot.name}">\n']
    for name, rgba in materials.items():
        out.append(f'  <material name="{name}"><color rgba="{fmt_vec(rgba)}"/></material>\n')

    def link_xml(name: str, inertia: RigidInertia | None) -> None:
        out.append(f'  <link name="{name}">\n')
        if inertia is not None:
            i = inertia.inertia
            out.append("    <inertial>\n")
            out.append(f'      <origin xyz="{fmt_vec(inertia.com)}" rpy="0 0 0"/>\n')
            out.append(f'      <mass value="{fmt(inertia.mass)}"/>\n')
            out.append(f'      <inertia ixx="{fmt(i[0][0])}" ixy="{fmt(i[0][1])}" ixz="{fmt(i[0][2])}" '
                       f'iyy="{fmt(i[1][1])}" iyz="{fmt(i[1][2])}" izz="{fmt(i[2][2])}"/>\n')
            out.append("    </inertial>\n")
        for v in visuals.get(name, []):
            out.append("    <visual>\n")
            out.append(origin_xml(v.pose, "      "))
            out.append(f"      <geometry>{geometry_xml(v)}</geometry>\n")
            out.append(f'      <material name="{v.material}"/>\n')
            out.append("    </visual>\n")
        for c in (collisions or {}).get(name, []):
            out.append("    <collision>\n")
            out.append(origin_xml(c.pose, "      "))
            out.append(f"      <geometry>{geometry_xml(c)}</geometry>\n")
            out.append("    </collision>\n")
        out.append("  </link>\n")

    frames_of: dict[str, list[ExtraFrame]] = {}
    for f in robot.frames:
        frames_of.setdefault(f.parent, []).append(f)

    def frames_xml(body: str) -> None:
        for f in frames_of.get(body, []):
            link_xml(f.name, None)
            out.append(f'  <joint name="{f.name}_fixed" type="fixed">\n')
            out.append(origin_xml(f.pose, "    "))
            out.append(f'    <parent link="{body}"/>\n    <child link="{f.name}"/>\n  </joint>\n')

    link_xml(robot.root, robot.inertias[robot.root])
    frames_xml(robot.root)
    for j in robot.moving_joints:
        link_xml(j.child, robot.inertias[j.child])
        out.append(f'  <joint name="{j.name}" type="{j.type}">\n')
        out.append(joint_origin_xml(j.origin, "    "))
        out.append(f'    <parent link="{j.parent}"/>\n    <child link="{j.child}"/>\n')
        out.append(f'    <axis xyz="{fmt_vec(j.axis)}"/>\n')
        if j.limit:
            attrs = " ".join(f'{k}="{fmt(float(j.limit[k]))}"' for k in ("lower", "upper", "effort", "velocity")
                             if k in j.limit)
            out.append(f"    <limit {attrs}/>\n")
        dyn = {k: j.dynamics[k] for k in keep_dynamics if k in j.dynamics and float(j.dynamics[k]) != 0.0}
        if dyn:
            attrs = " ".join(f'{k}="{fmt(float(v))}"' for k, v in dyn.items())
            out.append(f"    <dynamics {attrs}/>\n")
        out.append("  </joint>\n")
        frames_xml(j.child)
    out.append("</robot>\n")
    text = "".join(out)
    written = ET.fromstring(text.encode())
    mass = sum(float(m.get("value")) for m in written.iter("mass"))
    return text, mass
