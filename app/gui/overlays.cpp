#include "gui/overlays.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/model_view.hpp"

namespace loopsim::app {

namespace {

// World placement of a constraint's frame on one of its ends (body 0 = world).
SE3 endPlacement(const Data& data, int body, const SE3& placement) {
  return body == 0 ? placement : data.oMi[body] * placement;
}

// λ of one constraint as a force in world axes (its translational rows; a
// coupling has none). Rows are the constraint's own, in frame A's axes.
Vector3 constraintForce(const Constraint& c, const VectorX& lambda, int offset, const SE3& frame_a) {
  Vector3 f = Vector3::Zero();
  for (int r = 0; r < c.dimension(); ++r) {
    const int full = c.fullRow(r);
    int axis = -1;
    if (c.kind == ConstraintKind::Weld && full >= 3) axis = full - 3;
    if ((c.kind == ConstraintKind::Connect || c.kind == ConstraintKind::RevoluteLoop) && full < 3) axis = full;
    if (axis >= 0 && offset + r < lambda.size()) f[axis] = lambda[offset + r];
  }
  return frame_a.R * f;
}

// Unit meshes: box of full extents 1; cylinder of radius 1 and length 1 along z,
// centred; cone of base radius 1 at z = 0, apex at z = 1.
Eigen::Matrix4f scaledPose(const SE3& pose, const Eigen::Vector3f& scale) {
  return render::transformMatrix(pose.R.cast<float>(), pose.t.cast<float>(), scale);
}

const Eigen::Vector4f kCollisionColour{0.25f, 0.8f, 0.95f, 0.4f};
const Eigen::Vector4f kFrictionConeColour{1.0f, 0.6f, 0.1f, 0.22f};

void drawGeometry(render::Renderer& renderer, const Geometry& g, const SE3& pose) {
  const Eigen::Vector3f size = g.size.cast<float>();
  switch (g.shape) {
    case GeometryShape::box: renderer.drawSolid(renderer.box(), scaledPose(pose, size), kCollisionColour, {}); break;
    case GeometryShape::sphere:
      renderer.drawSolid(renderer.sphere(), scaledPose(pose, Eigen::Vector3f::Constant(size.x())), kCollisionColour, {});
      break;
    case GeometryShape::cylinder:
      renderer.drawSolid(renderer.cylinder(), scaledPose(pose, {size.x(), size.x(), size.y()}), kCollisionColour, {});
      break;
    case GeometryShape::capsule:
      renderer.drawSolid(renderer.cylinder(), scaledPose(pose, {size.x(), size.x(), size.y()}), kCollisionColour, {});
      for (double end : {-0.5, 0.5}) {
        SE3 cap = pose;
        cap.t += pose.R.col(2) * (end * g.size.y());
        if (end < 0.0) cap.R = cap.R * Eigen::Vector3d(1.0, -1.0, -1.0).asDiagonal();
        renderer.drawSolid(renderer.hemisphere(), scaledPose(cap, Eigen::Vector3f::Constant(size.x())),
                           kCollisionColour, {});
      }
      break;
    case GeometryShape::convex: {
      // The hull itself is not meshed here: its vertices' box, in wireframe.
      Eigen::Vector3d lo = Eigen::Vector3d::Constant(1e300), hi = -lo;
      for (const Vector3& v : g.vertices) {
        lo = lo.cwiseMin(v);
        hi = hi.cwiseMax(v);
      }
      SE3 centre = pose;
      centre.t = pose.actPoint(0.5 * (lo + hi));
      render::SolidStyle wire;
      wire.wireframe = true;
      renderer.drawSolid(renderer.box(), scaledPose(centre, (hi - lo).cast<float>()), kCollisionColour, wire);
      break;
    }
    case GeometryShape::halfspace: break;  // the ground is drawn as the floor
  }
}

}  // namespace

void drawCollisionGeometry(render::Renderer& renderer, const SimulationSession& session) {
  const Scene& scene = session.simulation().scene();
  if (scene.geometry == nullptr) return;
  const Data& data = session.kinematics();
  for (const Geometry& g : scene.geometry->geometries()) {
    if (g.body == 0) continue;
    drawGeometry(renderer, g, data.oMi[g.body] * g.placement);
  }
}

float closureErrorLength(double error) {
  if (!(error >= 1e-9)) return 0.0f;
  return static_cast<float>(0.02 * std::max(0.0, 1.0 + std::log10(error / 1e-6)) + (error < 1e-6 ? 0.005 : 0.0));
}

double drawOverlays(render::Renderer& renderer, const SimulationSession& session, const OverlayToggles& toggles,
                    float scale) {
  const Simulation& sim = session.simulation();
  const Model& model = sim.model();
  const Data& data = session.kinematics();
  const float frame_length = 0.12f * scale;

  if (toggles.body_frames) {
    for (int i = 1; i < model.nbodies(); ++i) renderer.drawFrame(render::poseMatrix(data.oMi[i]), frame_length);
  }
  if (toggles.centers_of_mass) {
    for (int i = 1; i < model.nbodies(); ++i) {
      const Inertia& inertia = model.body_inertias[i];
      if (!(inertia.mass > 0.0)) continue;
      const Eigen::Vector3f com = data.oMi[i].actPoint(inertia.com).cast<float>();
      renderer.drawSolid(renderer.sphere(), render::transformMatrix(Eigen::Matrix3f::Identity(), com, Eigen::Vector3f::Constant(0.025f * scale)),
                         {1.0f, 0.85f, 0.1f, 1.0f}, render::kMarkerStyle);
    }
  }

  const ConstraintSet& constraints = sim.constraints();
  if (toggles.constraint_frames) {
    std::vector<Eigen::Vector3f> error_lines;
    for (int k = 0; k < constraints.size(); ++k) {
      const Constraint& c = constraints[k];
      if (c.kind == ConstraintKind::Coupling) continue;
      const SE3 a = endPlacement(data, c.body1, c.placement1);
      const SE3 b = endPlacement(data, c.body2, c.placement2);
      renderer.drawFrame(render::poseMatrix(a), 0.6f * frame_length);
      renderer.drawFrame(render::poseMatrix(b), 0.4f * frame_length);
      const Vector3 error = b.t - a.t;
      const float length = closureErrorLength(error.norm());
      if (length > 0.0f) {
        const Eigen::Vector3f from = a.t.cast<float>();
        error_lines.push_back(from);
        error_lines.push_back(from + length * error.normalized().cast<float>());
      }
    }
    renderer.drawLines(error_lines, {1.0f, 0.35f, 0.9f, 1.0f}, true);
  }

  double newtons_per_metre = 0.0;
  // One scale for all arrows: the largest force is drawn 0.4 model lengths long.
  std::vector<std::pair<Eigen::Vector3f, Eigen::Vector3f>> arrows, normal_arrows, friction_arrows;
  double largest = 0.0;
  if (toggles.friction_cones) {
    // Apex at the contact point, opening along the normal into the body the
    // normal force pushes, half-angle atan μ; a fixed height (the force's
    // direction must lie inside).
    const float height = 0.15f * scale;
    for (const ContactPoint& c : sim.contacts()) {
      if (!std::isfinite(c.friction)) continue;
      const double sign = c.body_b == 0 ? -1.0 : 1.0;
      const Eigen::Vector3f normal = (sign * c.frame.col(2)).cast<float>().normalized();
      const Eigen::Vector3f apex = c.position.cast<float>();
      const Eigen::Matrix3f R =
          Eigen::Quaternionf::FromTwoVectors(Eigen::Vector3f::UnitZ(), -normal).toRotationMatrix();
      const float radius = height * static_cast<float>(c.friction);
      renderer.drawSolid(renderer.cone(), render::transformMatrix(R, apex + height * normal, {radius, radius, height}),
                         kFrictionConeColour, {});
    }
  }
  if (toggles.contacts) {
    const std::vector<ContactPoint>& contacts = sim.contacts();
    for (const ContactPoint& c : contacts) {
      renderer.drawSolid(renderer.sphere(),
                         render::transformMatrix(Eigen::Matrix3f::Identity(), c.position.cast<float>(),
                                                 Eigen::Vector3f::Constant(0.012f * scale)),
                         {0.1f, 0.9f, 0.95f, 1.0f}, render::kMarkerStyle);
    }
    const UnilateralStep* step = sim.unilateralStep();
    const auto impulses = step ? step->contactImpulses() : VectorX().head(0);
    if (impulses.size() == 3 * static_cast<Eigen::Index>(contacts.size()) && sim.scene().dt > 0.0) {
      for (std::size_t k = 0; k < contacts.size(); ++k) {
        const ContactPoint& c = contacts[k];
        // The force on body b (pushed along the normal, from a to b); drawn as the
        // force on the moving body when the other is the world.
        const double sign = c.body_b == 0 ? -1.0 : 1.0;
        const Vector3 local = impulses.segment<3>(static_cast<Eigen::Index>(3 * k)) * (sign / sim.scene().dt);
        const Vector3 normal = c.frame.col(2) * local.z();
        const Vector3 friction = c.frame.col(0) * local.x() + c.frame.col(1) * local.y();
        largest = std::max(largest, (normal + friction).norm());
        normal_arrows.emplace_back(c.position.cast<float>(), normal.cast<float>());
        friction_arrows.emplace_back(c.position.cast<float>(), friction.cast<float>());
      }
    }
  }
  if (toggles.constraint_forces && constraints.dimension() > 0) {
    for (int k = 0; k < constraints.size(); ++k) {
      const Constraint& c = constraints[k];
      if (c.kind == ConstraintKind::Coupling) continue;
      const SE3 a = endPlacement(data, c.body1, c.placement1);
      const Vector3 f = constraintForce(c, sim.lambda(), constraints.rowOffset(k), a);
      largest = std::max(largest, f.norm());
      arrows.emplace_back(a.t.cast<float>(), f.cast<float>());
    }
  }
  if (largest > 0.0) {
    newtons_per_metre = largest / (0.4 * scale);
    const auto draw = [&](const auto& list, const Eigen::Vector4f& rgba) {
      for (const auto& [origin, force] : list) {
        if (force.norm() < 1e-3 * largest) continue;
        renderer.drawArrow(origin, origin + force / static_cast<float>(newtons_per_metre), 0.008f * scale, rgba);
      }
    };
    draw(arrows, {0.95f, 0.3f, 0.6f, 1.0f});
    draw(normal_arrows, {0.2f, 0.85f, 0.3f, 1.0f});
    draw(friction_arrows, {1.0f, 0.6f, 0.1f, 1.0f});
  }
  return newtons_per_metre;
}

}  // namespace loopsim::app
