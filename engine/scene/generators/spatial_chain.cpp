#include <cmath>
#include <numbers>

#include <loopsim/model/model_builder.hpp>
#include <loopsim/scene/generators.hpp>
#include <loopsim/scene/generators/mechanism_parts.hpp>

namespace loopsim {

using generators::require;

namespace {
// Spreads successive axis directions evenly around z: no two parallel.
constexpr double kGoldenAngle = 2.399963229728653;

Vector3 tiltedAxis(double tilt, int k) {
  return Vector3(std::sin(tilt) * std::cos(k * kGoldenAngle), std::sin(tilt) * std::sin(k * kGoldenAngle),
                 std::cos(tilt));
}
}  // namespace

GeneratedMechanism spatialChain(const SpatialChainParams& p) {
  const std::string gen = "spatial_chain";
  require(p.links >= 6, gen, "links must be >= 6, got " + std::to_string(p.links));
  require(p.links <= 1000, gen, "links must be <= 1000");
  for (double x : {p.length, p.width, p.mass_per_length}) {
    require(std::isfinite(x) && x > 0.0, gen, "length, width and mass_per_length must be > 0");
  }
  require(std::isfinite(p.tilt) && p.tilt > 0.05 && p.tilt < 1.5, gen,
          "tilt must be in (0.05, 1.5) rad so that the axes are neither parallel nor in the polygon's plane");

  ModelBuilder builder(gen);
  const double turn = 2.0 * std::numbers::pi / p.links;
  const SE3 step(Eigen::AngleAxisd(turn, Vector3::UnitZ()).toRotationMatrix(), Vector3(p.length, 0, 0));
  generators::RodSpec rod{p.length, p.width, p.mass_per_length, Vector3::UnitX(), {}};
  int body = 0;
  for (int i = 1; i <= p.links; ++i) {
    const double hue = static_cast<double>(i - 1) / p.links;
    rod.rgba = {0.3 + 0.6 * hue, 0.45, 0.9 - 0.6 * hue, 1.0};
    body = generators::addRevoluteRod(builder, body, "link_" + std::to_string(i), tiltedAxis(p.tilt, i),
                                      i == 1 ? SE3::Identity() : step, rod);
  }
  const SE3 tip(p.revolute_closure ? generators::frameWithZ(tiltedAxis(p.tilt, p.links + 1)) : Matrix3::Identity(),
                Vector3(p.length, 0, 0));
  builder.addFrame("tip", body, tip);

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = VectorX::Zero(p.links);  // the regular polygon: the tip is back on the first pivot

  Constraint loop;
  loop.name = "loop";
  loop.kind = p.revolute_closure ? ConstraintKind::RevoluteLoop : ConstraintKind::Connect;
  loop.body1 = body;
  loop.placement1 = tip;
  loop.body2 = 0;
  loop.placement2 = generators::worldPlacement(out.model, out.q0, body, tip);
  out.constraints.push_back(loop);
  out.constraint_dim = out.constraint_rank = p.revolute_closure ? 5 : 3;
  out.doc = "spatial closed chain of " + std::to_string(p.links) +
            " revolute links with non-parallel axes, tip closed to the first pivot by " +
            (p.revolute_closure ? "a revolute loop: constraint dimension 5, rank 5; " + std::to_string(p.links - 5)
                                : "a connect: constraint dimension 3, rank 3; " + std::to_string(p.links - 3)) +
            " dof";
  return out;
}

}  // namespace loopsim
