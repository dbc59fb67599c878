#include <loopsim/sim/contact_support.hpp>

#include <spdlog/fmt/fmt.h>
#include <spdlog/fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/collision/collision_detection.hpp>

namespace loopsim {

std::vector<Support> supportsAt(const Scene& scene, const Eigen::Ref<const VectorX>& q) {
  std::vector<Support> supports;
  if (!scene.geometry) return supports;
  const Model& model = *scene.model;
  GeometryModel reach = *scene.geometry;
  CollisionSettings settings = reach.settings();
  settings.margin = std::max(settings.margin, kSupportReach);
  reach.setSettings(settings);
  CollisionData collision(reach);
  Data data(model);
  forwardKinematics(model, data, q);
  const std::vector<ContactPoint>& contacts = computeContacts(reach, data, collision);
  std::map<std::pair<int, int>, double> nearest;  // per geometry pair
  for (const ContactPoint& c : contacts) {
    const auto [at, fresh] = nearest.try_emplace({c.geometry_a, c.geometry_b}, c.distance);
    if (!fresh) at->second = std::min(at->second, c.distance);
  }
  for (const ContactPoint& c : contacts) {
    if (c.distance > nearest[{c.geometry_a, c.geometry_b}] + kRestingFaceTolerance) continue;
    // Frame A on the body the support pushes (b, the normal's head; a when b is the world).
    const bool on_b = c.body_b != 0;
    const int body = on_b ? c.body_b : c.body_a;
    const int other = on_b ? c.body_a : c.body_b;
    const SE3& oMb = data.oMi[static_cast<std::size_t>(body)];
    const Vector3 point = oMb.actPoint(on_b ? c.position_in_b : c.position_in_a);
    Support s;
    s.constraint.name = "support " + reach.geometry(c.geometry_a).name + "/" + reach.geometry(c.geometry_b).name +
                        " " + std::to_string(supports.size());
    s.constraint.kind = ConstraintKind::Connect;
    s.constraint.body1 = body;
    s.constraint.placement1 = SE3(oMb.R.transpose(), on_b ? c.position_in_b : c.position_in_a);
    s.constraint.body2 = other;
    const SE3& oMo = data.oMi[static_cast<std::size_t>(other)];
    s.constraint.placement2 = SE3(oMo.R.transpose(), oMo.actInvPoint(point));
    s.normal = on_b ? c.normal : Vector3(-c.normal);
    s.friction = c.friction;
    supports.push_back(std::move(s));
  }
  return supports;
}

std::vector<Constraint> holdingConstraints(const Scene& scene, const std::vector<Support>& supports) {
  std::vector<Constraint> all = scene.constraints;
  for (const Support& s : supports) all.push_back(s.constraint);
  return all;
}

std::vector<std::string> supportWarnings(const Scene& scene, const std::vector<Support>& supports,
                                         const HoldingForces& hold) {
  // One warning per kind, listing every support (a humanoid's sole has several corners).
  std::vector<std::string> pulling, sliding;
  Eigen::Index row = hold.lambda.size() - 3 * static_cast<Eigen::Index>(supports.size());
  const double weight = scene.model->totalMass() * scene.model->gravity.norm();
  for (const Support& s : supports) {
    // λ: the force on body1 in frame A's axes, world-aligned at q.
    const Vector3 force = hold.lambda.segment<3>(row);
    row += 3;
    const double normal = force.dot(s.normal);
    const double tangential = (force - normal * s.normal).norm();
    if (normal < -1e-6 * std::max(weight, 1.0)) {
      pulling.push_back(fmt::format("{} {:.4g} N", s.constraint.name, -normal));
    } else if (tangential > s.friction * normal + 1e-6 * std::max(weight, 1.0)) {
      sliding.push_back(fmt::format("{} {:.4g} N against mu {:.4g} x {:.4g} N", s.constraint.name, tangential, s.friction, normal));
    }
  }
  std::vector<std::string> warnings;
  if (!pulling.empty()) {
    warnings.push_back(fmt::format("hold: the pose needs {} {} to pull ({}): it cannot stand on its contacts as it is",
                                   pulling.size(), pulling.size() == 1 ? "support" : "supports", fmt::join(pulling, ", ")));
  }
  if (!sliding.empty()) {
    warnings.push_back(fmt::format("hold: the pose needs more friction than the supports allow at {} ({}): it will slide",
                                   sliding.size() == 1 ? "one" : std::to_string(sliding.size()), fmt::join(sliding, ", ")));
  }
  return warnings;
}

}  // namespace loopsim
