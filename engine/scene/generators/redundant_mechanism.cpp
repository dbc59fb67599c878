#include <loopsim/scene/generators.hpp>

namespace loopsim {

GeneratedMechanism redundantMechanism(const RedundantMechanismParams& p) {
  if (p.variant == RedundantMechanismParams::Variant::PlanarConnect) {
    // A planar mechanism closed by all three point rows: the z row of J is
    // identically zero (every velocity stays in the plane).
    GeneratedMechanism out = fourBar();
    Constraint& loop = out.constraints.front();
    loop.kind = ConstraintKind::Connect;
    loop.row_mask.clear();
    out.constraint_dim = 3;
    out.constraint_rank = 2;
    out.doc =
        "redundant planar four-bar: loop closed by a full 3D connect whose z row is identically zero; constraint "
        "dimension 3, rank 2; 1 dof";
    return out;
  }
  GeneratedMechanism out = spatialChain();
  Constraint copy = out.constraints.front();
  copy.name = "loop_copy";
  out.constraints.push_back(copy);
  out.constraint_dim = 6;
  out.constraint_rank = 3;
  out.doc = "redundant spatial chain: 6 links closed twice by identical connects; constraint dimension 6, rank 3; 3 dof";
  return out;
}

}  // namespace loopsim
