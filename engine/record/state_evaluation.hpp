#pragma once
// `loopsim eval`: the constrained dynamics at given states, without stepping.
// Input: a CSV with the record's q:…, v:… columns, tau:… for every actuated
// joint (or tau_default_zero), optionally "t" (copied through). A record is
// accepted as is: its output columns (vdot:…, lambda:…, statistics) are
// recognised and not read. Any other column is an error naming the nearest
// valid name; so are a non-unit quaternion and a non-finite result (the row
// is named). Output: t (if given), vdot:… and lambda:… per row. τ is the
// applied force: passive joint forces (damping, springs) are added as in a
// simulation step, and with the scene's implicit damping (the default) the
// solver sees M + dt·D, so that a record's rows are reproduced bit for bit.
#include <filesystem>
#include <string>

#include "scene/scene.hpp"

namespace loopsim {

struct EvalOptions {
  std::string solver;          // empty: the scene's solver
  bool stabilization = true;   // false: Baumgarte gains 0 (k = -J̇v)
  bool overwrite = false;
  bool tau_default_zero = false;  // actuated joints without a tau: column get τ = 0 (else an error)
};

/// Returns the number of rows evaluated.
long evaluateStates(const Scene& scene, const std::filesystem::path& states_csv, const std::filesystem::path& out_csv,
                    const EvalOptions& options);

}  // namespace loopsim
