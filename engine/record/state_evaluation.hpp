#pragma once
// `loopsim eval`: the constrained dynamics at given states, without stepping.
// Input: a CSV with the record's q:…, v:… columns (tau:… optional, zero when
// absent; a "t" column is copied through). Output: t (if given), vdot:… and
// lambda:… per row. τ is the applied force: passive joint forces (damping,
// springs) are added as in a simulation step, and with the scene's implicit
// damping (the default) the solver sees M + dt·D, so that a record's rows are
// reproduced bit for bit.
#include <filesystem>
#include <string>

#include "scene/scene.hpp"

namespace loopsim {

struct EvalOptions {
  std::string solver;          // empty: the scene's solver
  bool stabilization = true;   // false: Baumgarte gains 0 (k = -J̇v)
  bool overwrite = false;
};

/// Returns the number of rows evaluated.
long evaluateStates(const Scene& scene, const std::filesystem::path& states_csv, const std::filesystem::path& out_csv,
                    const EvalOptions& options);

}  // namespace loopsim
