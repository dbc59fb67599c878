#include <cmath>
#include <sstream>

#include <loopsim/model/model_builder.hpp>
#include <loopsim/scene/generators.hpp>
#include <loopsim/scene/generators/mechanism_parts.hpp>

namespace loopsim {

using generators::require;

GeneratedMechanism fourBar(const FourBarParams& p) {
  const std::string gen = "four_bar";
  for (double x : {p.ground, p.crank, p.coupler, p.rocker, p.width, p.mass_per_length}) {
    require(std::isfinite(x) && x > 0.0, gen, "lengths, width and mass_per_length must be > 0");
  }
  require(std::isfinite(p.crank_angle), gen, "crank_angle must be finite");

  // Closing angles in closed form: the rocker tip C is where the circle of
  // radius `coupler` about the crank tip B meets the circle of radius `rocker`
  // about the ground pivot D ("elbow up": C left of the line B -> D).
  const Eigen::Vector2d B = p.crank * Eigen::Vector2d(std::cos(p.crank_angle), std::sin(p.crank_angle));
  const Eigen::Vector2d D(p.ground, 0.0);
  const double d = (D - B).norm();
  if (d > p.coupler + p.rocker || d < std::abs(p.coupler - p.rocker) || d == 0.0) {
    std::ostringstream os;
    os << "cannot assemble at crank_angle " << p.crank_angle << ": crank tip to rocker pivot " << d
       << " m is out of the coupler/rocker reach [" << std::abs(p.coupler - p.rocker) << ", " << p.coupler + p.rocker
       << "]";
    require(false, gen, os.str());
  }
  const Eigen::Vector2d u = (D - B) / d;
  const double along = (p.coupler * p.coupler - p.rocker * p.rocker + d * d) / (2.0 * d);
  const double across = std::sqrt(std::max(0.0, p.coupler * p.coupler - along * along));
  const Eigen::Vector2d C = B + along * u + across * Eigen::Vector2d(-u.y(), u.x());
  const double coupler_abs = std::atan2(C.y() - B.y(), C.x() - B.x());
  const double rocker_abs = std::atan2(C.y() - D.y(), C.x() - D.x());

  ModelBuilder builder(gen);
  generators::RodSpec rod{p.crank, p.width, p.mass_per_length, Vector3::UnitX(), {0.85, 0.35, 0.2, 1.0}};
  const int crank = generators::addRevoluteRod(builder, 0, "crank", Vector3::UnitZ(), SE3::Identity(), rod);
  rod.length = p.coupler;
  rod.rgba = {0.25, 0.55, 0.85, 1.0};
  const int coupler = generators::addRevoluteRod(builder, crank, "coupler", Vector3::UnitZ(),
                                                 SE3(Matrix3::Identity(), Vector3(p.crank, 0, 0)), rod);
  rod.length = p.rocker;
  rod.rgba = {0.3, 0.7, 0.35, 1.0};
  const int rocker = generators::addRevoluteRod(builder, 0, "rocker", Vector3::UnitZ(),
                                                SE3(Matrix3::Identity(), Vector3(p.ground, 0, 0)), rod);
  const SE3 coupler_tip(Matrix3::Identity(), Vector3(p.coupler, 0, 0));
  const SE3 rocker_tip(Matrix3::Identity(), Vector3(p.rocker, 0, 0));
  builder.addFrame("coupler_tip", coupler, coupler_tip);
  builder.addFrame("rocker_tip", rocker, rocker_tip);

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0.resize(3);
  out.q0 << p.crank_angle, coupler_abs - p.crank_angle, rocker_abs;

  Constraint loop;
  loop.name = "loop";
  loop.kind = ConstraintKind::RevoluteLoop;
  loop.body1 = coupler;
  loop.placement1 = coupler_tip;
  loop.body2 = rocker;
  loop.placement2 = rocker_tip;
  loop.row_mask = {0, 1};  // x, y: the in-plane rows
  out.constraints.push_back(loop);
  out.constraint_dim = 2;
  out.constraint_rank = 2;
  out.doc =
      "planar four-bar (xy plane, revolute z axes): crank, coupler, rocker; loop closed by revolute 'loop' with "
      "in-plane rows {x, y}; constraint dimension 2, rank 2; 1 dof";
  return out;
}

}  // namespace loopsim
