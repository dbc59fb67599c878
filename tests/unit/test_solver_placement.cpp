// Every registered solver returns the same bits wherever it and its buffers
// land in memory. Eigen peels a loop of run-time length to the first aligned
// element; fixed-size storage (Matrix6, Vector6) is only 16-byte aligned by
// type in the native build (CMakeLists.txt), so without packet-aligned
// buffers (AlignedVector) a solver built after another allocation rounds
// differently. A record then replays bit for bit only in the process that
// wrote it, and the GUI's overlaid copies of one solver drift apart.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/registry.hpp>

#include "quiet_log.hpp"
#include "tree_test_cases.hpp"

namespace loopsim::test {
namespace {

// Scenes with world constraints, internal loops and both, so every solver
// runs on at least one.
const std::vector<std::string> kScenes = {"digit_box.yaml", "chain_of_loops.yaml", "atlas_2f2h.yaml"};

TEST(SolverPlacement, ResultsDoNotDependOnWhereTheSolverLands) {
  const QuietLog quiet;
  int compared = 0;
  for (const std::string& file : kScenes) {
    const Scene scene = loadScene(scenesDir() / file);
    const TreeCase c{scene.name, *scene.model, scene.constraints, scene.q0, 0.05, scene.held_joints};
    std::mt19937 rng(4100);
    const TreeState s = sampleTreeState(c, rng);
    const ConstraintSet set(c.model, s.constraints);
    const int nv = c.model.nv, m = set.dimension();
    for (const SolverInfo& info : solverRegistry()) {
      if (!missingCapability(info.capabilities, set).empty()) continue;
      if (info.capabilities.needs_independent_joints && scene.solver_settings.independent_dofs.empty()) continue;
      const SolverSettings& settings = scene.solver_settings;  // the clusters' independent dofs
      VectorX vdot_first(nv), lambda_first(m);
      // Pads of 16·k bytes shift where the next allocations start modulo
      // Eigen's widest packet (64 bytes with AVX-512); every solver and pad
      // stays alive, so none reuses another's freed memory.
      std::vector<std::unique_ptr<char[]>> pads;
      std::vector<std::unique_ptr<ConstrainedSolver>> solvers;
      for (int pad = 0; pad < 8; ++pad) {
        pads.push_back(std::make_unique<char[]>(static_cast<std::size_t>(16 * pad + 8)));
        solvers.push_back(info.make(set, settings));
        VectorX vdot(nv), lambda(m);
        solvers.back()->solve(s.q, s.v, s.tau, s.fext, vdot, lambda);
        if (pad == 0) {
          vdot_first = vdot;
          lambda_first = lambda;
          continue;
        }
        EXPECT_EQ(vdot, vdot_first) << info.name << " on " << file << ", pad " << 16 * pad + 8 << " bytes";
        EXPECT_EQ(lambda, lambda_first) << info.name << " on " << file << ", pad " << 16 * pad + 8 << " bytes";
      }
      ++compared;
    }
  }
  EXPECT_GE(compared, static_cast<int>(solverRegistry().size()));  // about each solver once a scene
}

}  // namespace
}  // namespace loopsim::test
