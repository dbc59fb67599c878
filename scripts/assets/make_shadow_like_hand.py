#!/usr/bin/env python3
"""Generates assets/robots/shadow_like_hand/shadow_like_hand.urdf.

A hand with the Shadow Dexterous Hand's joint structure (paper 002 Fig. 6's
hand: 24 joints) written from our own figures: no Shadow description is in
../shared/models, so lengths, masses and ranges here are ours, human-hand
sized. Joints, from the wrist mount:
  wrist: deviation (WRJ2), flexion (WRJ1);
  first, middle, ring fingers: abduction J4, then flexion J3, J2, J1;
  little finger: a metacarpal joint LFJ5 in the palm, then J4 .. J1;
  thumb: rotation TH5, abduction TH4, TH3, flexion TH2, TH1.
2 + 3 x 4 + 5 + 5 = 24 joints. The fingers point along +z of the mount, the
palm faces -y, the fingers flex about x (curling toward -y). Each finger's
tip is a frame '<finger>_tip' 2 mm inside its distal segment's end.
Segments are solid cylinders of radius 9 mm (the knuckles 7 mm spheres).

Usage: scripts/assets/make_shadow_like_hand.py [--out DIR]
A developer tool, not a build step: the generated file is committed.
"""

from __future__ import annotations

import argparse
import math
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RADIUS = 0.009
LIMIT = {"flex": (-0.26, 1.57), "abd": (-0.35, 0.35), "wrist_flex": (-0.79, 0.61), "wrist_dev": (-0.52, 0.17),
         "th_rot": (-1.05, 1.05), "th_abd": (0.0, 1.22), "th_3": (-0.21, 0.21), "th_2": (-0.70, 0.70),
         "lf_meta": (0.0, 0.79)}
COLOURS = {"palm": "0.25 0.27 0.3 1", "segment": "0.8 0.81 0.83 1", "knuckle": "0.1 0.1 0.11 1"}


def rod_inertial(mass: float, length: float) -> str:
    """A solid cylinder along z from the link origin to `length`."""
    ixx = mass * (3 * RADIUS ** 2 + length ** 2) / 12.0
    izz = mass * RADIUS ** 2 / 2.0
    return (f"<inertial><origin xyz='0 0 {length / 2:.6g}'/><mass value='{mass:g}'/>"
            f"<inertia ixx='{ixx:.6g}' iyy='{ixx:.6g}' izz='{izz:.6g}' ixy='0' ixz='0' iyz='0'/></inertial>")


def sphere_inertial(mass: float, radius: float) -> str:
    i = 0.4 * mass * radius ** 2
    return (f"<inertial><origin xyz='0 0 0'/><mass value='{mass:g}'/>"
            f"<inertia ixx='{i:.6g}' iyy='{i:.6g}' izz='{i:.6g}' ixy='0' ixz='0' iyz='0'/></inertial>")


class Writer:
    def __init__(self):
        self.lines: list[str] = []

    def link(self, name: str, inertial: str, visual: str) -> None:
        self.lines.append(f"  <link name='{name}'>{inertial}<visual>{visual}</visual></link>")

    def joint(self, name: str, parent: str, child: str, xyz, axis, limits) -> None:
        self.lines.append(
            f"  <joint name='{name}' type='revolute'><parent link='{parent}'/><child link='{child}'/>"
            f"<origin xyz='{xyz[0]:.6g} {xyz[1]:.6g} {xyz[2]:.6g}'/><axis xyz='{axis[0]} {axis[1]} {axis[2]}'/>"
            f"<limit lower='{limits[0]}' upper='{limits[1]}' effort='10' velocity='5'/>"
            f"<dynamics damping='0.01'/></joint>")

    def fixed(self, name: str, parent: str, child: str, xyz) -> None:
        self.lines.append(f"  <link name='{child}'/>")
        self.lines.append(f"  <joint name='{name}' type='fixed'><parent link='{parent}'/><child link='{child}'/>"
                          f"<origin xyz='{xyz[0]:.6g} {xyz[1]:.6g} {xyz[2]:.6g}'/></joint>")


def rod_visual(length: float) -> str:
    return (f"<origin xyz='0 0 {length / 2:.6g}'/><geometry><cylinder radius='{RADIUS}' length='{length:.6g}'/>"
            f"</geometry><material name='segment'/>")


def finger(w: Writer, prefix: str, parent: str, base, lengths, masses, metacarpal: bool) -> None:
    """Abduction J4 and flexion J3 at the knuckle, then J2 and J1; the tip frame."""
    if metacarpal:  # the little finger's LFJ5: the knuckle's base turns in the palm
        w.link(f"{prefix}_metacarpal", rod_inertial(0.03, base[2] - 0.03), rod_visual(base[2] - 0.03))
        w.joint(f"{prefix.upper()}J5", parent, f"{prefix}_metacarpal", (base[0], base[1], 0.03),
                (0.57, 0, 0.82), LIMIT["lf_meta"])
        parent, base = f"{prefix}_metacarpal", (0.0, 0.0, base[2] - 0.03)
    w.link(f"{prefix}_knuckle", sphere_inertial(0.008, 0.007),
           "<geometry><sphere radius='0.011'/></geometry><material name='knuckle'/>")
    w.joint(f"{prefix.upper()}J4", parent, f"{prefix}_knuckle", base, (0, 1, 0), LIMIT["abd"])
    segments = ("proximal", "middle", "distal")
    previous, at = f"{prefix}_knuckle", (0.0, 0.0, 0.0)
    for k, (segment, length, mass) in enumerate(zip(segments, lengths, masses)):
        name = f"{prefix}_{segment}"
        w.link(name, rod_inertial(mass, length), rod_visual(length))
        w.joint(f"{prefix.upper()}J{3 - k}", previous, name, at, (1, 0, 0), LIMIT["flex"])
        previous, at = name, (0.0, 0.0, length)
    w.fixed(f"{prefix}_tip_joint", previous, f"{prefix}_tip", (0.0, 0.0, lengths[-1] - 0.002))


def thumb(w: Writer, parent: str) -> None:
    base = (0.034, -0.009, 0.029)
    w.link("th_base", sphere_inertial(0.01, 0.01), "<geometry><sphere radius='0.012'/></geometry><material name='knuckle'/>")
    w.joint("THJ5", parent, "th_base", base, (0, 0.57, 0.82), LIMIT["th_rot"])
    w.link("th_proximal", rod_inertial(0.03, 0.038), rod_visual(0.038))
    w.joint("THJ4", "th_base", "th_proximal", (0, 0, 0), (0, 1, 0), LIMIT["th_abd"])
    w.link("th_hub", sphere_inertial(0.005, 0.006), "<geometry><sphere radius='0.009'/></geometry><material name='knuckle'/>")
    w.joint("THJ3", "th_proximal", "th_hub", (0, 0, 0.038), (1, 0, 0), LIMIT["th_3"])
    w.link("th_middle", rod_inertial(0.02, 0.032), rod_visual(0.032))
    w.joint("THJ2", "th_hub", "th_middle", (0, 0, 0), (0, 1, 0), LIMIT["th_2"])
    w.link("th_distal", rod_inertial(0.015, 0.0275), rod_visual(0.0275))
    w.joint("THJ1", "th_middle", "th_distal", (0, 0, 0.032), (0, 1, 0), LIMIT["flex"])
    w.fixed("th_tip_joint", "th_distal", "th_tip", (0.0, 0.0, 0.0255))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(REPO, "assets", "robots", "shadow_like_hand"))
    args = parser.parse_args()
    w = Writer()
    w.lines.append("  <link name='hand_mount'/>")
    w.link("wrist", sphere_inertial(0.1, 0.02), "<geometry><sphere radius='0.02'/></geometry><material name='knuckle'/>")
    w.joint("WRJ2", "hand_mount", "wrist", (0, 0, 0), (0, 1, 0), LIMIT["wrist_dev"])
    palm_inertial = ("<inertial><origin xyz='0 0 0.05'/><mass value='0.3'/>"
                     "<inertia ixx='0.00026' iyy='0.00045' izz='0.0002' ixy='0' ixz='0' iyz='0'/></inertial>")
    w.link("palm", palm_inertial,
           "<origin xyz='0 0 0.05'/><geometry><box size='0.09 0.022 0.1'/></geometry><material name='palm'/>")
    w.joint("WRJ1", "wrist", "palm", (0, 0, 0.034), (1, 0, 0), LIMIT["wrist_flex"])
    proximal, middle, distal = (0.045, 0.025, 0.026), (0.045, 0.025, 0.026), (0.04, 0.023, 0.024)
    masses = (0.03, 0.02, 0.015)
    finger(w, "ff", "palm", (0.033, 0.0, 0.1), proximal, masses, False)
    finger(w, "mf", "palm", (0.011, 0.0, 0.103), middle, masses, False)
    finger(w, "rf", "palm", (-0.011, 0.0, 0.1), proximal, masses, False)
    finger(w, "lf", "palm", (-0.033, 0.0, 0.095), distal, masses, True)
    thumb(w, "palm")
    joints = sum(1 for line in w.lines if "type='revolute'" in line)
    assert joints == 24, joints
    header = """<?xml version="1.0"?>
<!--
A hand with the Shadow Dexterous Hand's 24-joint structure, loopsim asset. GENERATED FILE: edit
scripts/assets/make_shadow_like_hand.py instead and re-run it. No Shadow description is in the
reference models: lengths, masses, inertias (solid cylinders and spheres) and ranges are ours,
human-hand sized; only the joint structure follows the Shadow hand (wrist 2; first, middle, ring
fingers 4; little finger 5; thumb 5). Frames '<finger>_tip' at the fingertips.
-->
<robot name="shadow_like_hand">"""
    materials = "".join(f"\n  <material name='{k}'><color rgba='{v}'/></material>" for k, v in COLOURS.items())
    text = header + materials + "\n" + "\n".join(w.lines) + "\n</robot>\n"
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "shadow_like_hand.urdf")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"{path}: {joints} joints")


if __name__ == "__main__":
    main()
