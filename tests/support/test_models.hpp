#pragma once
// Test models built in code with ModelBuilder, shared by the unit tests and
// the benchmarks. Inertias are random but valid (fixed seeds, positive mass,
// principal moments satisfying the triangle inequality).
#include <loopsim/model/model.hpp>

namespace loopsim::test {

/// Joint armature, damping and springs on (true) or all zero (false, for
/// conservation tests: armature is joint-space inertia outside the bodies'
/// momentum, damping dissipates).
enum class Passive { On, Off };

/// Fixed-base serial chain of 7 revolute joints with non-parallel axes and
/// link offsets; a "tool" site on the last body and a "mid" site on body 4.
Model fixedChain7(Passive passive = Passive::On);

/// Fixed-base branching tree mixing revolute, prismatic and spherical joints
/// (10 bodies, nv 16); sites on several branches.
Model branchingTree(Passive passive = Passive::On);

/// Floating-base humanoid-sized tree: pelvis (free flyer), two legs of 6,
/// torso of 3, neck of 2, two arms of 7 revolute joints (31 revolute, nv 37,
/// about 75 kg); foot-sole, hand and head sites.
Model floatingHumanoid(Passive passive = Passive::On);

}  // namespace loopsim::test
