#pragma once
// How far a placed shape reaches along a direction: its support value
// min over the shape's points p of n·p, in closed form per shape. Used to
// place a ground plane under a model's collision geometry.
#include <loopsim/collision/geometry.hpp>

namespace loopsim {

/// min over the points p of `geometry` placed at `world` (its placement in the
/// world, the body's placement times the geometry's) of n·p, for a unit n.
/// A half-space is unbounded below: -infinity unless n is its inward normal.
double lowestAlong(const Geometry& geometry, const SE3& world, const Vector3& n);

/// The lowest world height (along +z) of every geometry attached to a body
/// (half-spaces and the world's geometries left out), the bodies at oMi
/// (Data::oMi after forwardKinematics); +infinity when there is none.
double lowestBodyGeometryHeight(const GeometryModel& geometry, const std::vector<SE3>& oMi);

}  // namespace loopsim
