#include <cmath>

#include <loopsim/model/model_builder.hpp>
#include <loopsim/scene/generators.hpp>
#include <loopsim/scene/generators/mechanism_parts.hpp>

namespace loopsim {

using generators::require;

GeneratedMechanism pendulumChain(const PendulumChainParams& p) {
  const std::string gen = "pendulum_chain";
  require(p.links >= 2 && p.links <= 1000, gen, "links must be in [2, 1000], got " + std::to_string(p.links));
  require(!p.weld_tip || p.links >= 7, gen,
          "a welded tip needs links >= 7 (6 to span the weld, one more to move), got " + std::to_string(p.links));
  for (double x : {p.length, p.width, p.mass_per_length}) {
    require(std::isfinite(x) && x > 0.0, gen, "length, width and mass_per_length must be > 0");
  }
  require(std::isfinite(p.bend) && std::abs(p.bend) > 0.05 && std::abs(p.bend) < 1.5, gen,
          "bend must be in (0.05, 1.5) rad: a straight chain cannot translate along itself (singular weld)");

  ModelBuilder builder(gen);
  const SE3 step(Matrix3::Identity(), Vector3(0, 0, -p.length));
  generators::RodSpec rod{p.length, p.width, p.mass_per_length, -Vector3::UnitZ(), {}};
  VectorX q0(p.links);
  int body = 0;
  for (int i = 1; i <= p.links; ++i) {
    // Horizontal directions 2.4 rad apart with z components of alternating
    // sign: no two axes parallel, and twists about the links are included.
    const double angle = 2.4 * i;
    const Vector3 axis(std::cos(angle), std::sin(angle), i % 2 == 0 ? 0.5 : -0.5);
    const double shade = static_cast<double>(i - 1) / p.links;
    rod.rgba = {0.9 - 0.5 * shade, 0.55, 0.25 + 0.6 * shade, 1.0};
    body = generators::addRevoluteRod(builder, body, "link_" + std::to_string(i), axis,
                                      i == 1 ? SE3::Identity() : step, rod);
    q0[i - 1] = p.bend * std::sin(1.7 * i + 0.4);  // a fixed, well-bent pattern
  }
  const SE3 tip(Matrix3::Identity(), Vector3(0, 0, -p.length));
  builder.addFrame("tip", body, tip);

  GeneratedMechanism out;
  out.model = std::move(builder).build();
  out.q0 = q0;
  if (p.weld_tip) {
    Constraint weld;
    weld.name = "tip_weld";
    weld.kind = ConstraintKind::Weld;
    weld.body1 = body;
    weld.placement1 = tip;
    weld.body2 = 0;
    weld.placement2 = generators::worldPlacement(out.model, out.q0, body, tip);
    out.constraints.push_back(weld);
    out.constraint_dim = out.constraint_rank = 6;
  }
  out.doc = "pendulum chain of " + std::to_string(p.links) + " revolute links with non-parallel axes" +
            (p.weld_tip ? ", tip welded to the world where it hangs at q0: constraint dimension 6, rank 6; " +
                              std::to_string(p.links - 6) + " dof"
                        : ", free tip: no constraints");
  return out;
}

}  // namespace loopsim
