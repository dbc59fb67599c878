#pragma once
// `loopsim eval --inverse`: inverse dynamics with loops (C-RNEA, paper 004
// §VI) at given states, one output row per input row.
//
// Input CSV columns (state_columns.hpp names):
//   q:…       every configuration coordinate of the scene's model
//   v:…       every velocity coordinate (a constraint-consistent state)
//   vdot:…    the independent coordinates' accelerations ÿ only: the dofs of
//             the scene's `independent` joints and of every joint in no loop
//   t         optional, copied to the output
// Unknown, duplicate or missing columns, and vdot of a dependent joint, are
// errors naming the file and column.
// Output: [t,] tau:… over the independent coordinates: the applied torques
//   τ_y = Gᵀ (M q̈ + h - τ_passive(q, v)),  q̈ = G ÿ + g,
// that produce ÿ with zero torque on the dependent joints (explicit passive
// forces as `eval` without implicit damping; g from the Baumgarte-stabilised
// loop target, or from J q̈ = -J̇ q̇ with stabilization off).
#include <filesystem>
#include <functional>
#include <optional>

#include <loopsim/scene/scene.hpp>

namespace loopsim {

/// Returns the number of rows written, or nothing when `stop_requested`
/// (polled every 256 rows: the CLI's SIGINT/SIGTERM) stopped the run: then no
/// output and no temporary file remain. Throws ModelError on bad input (file,
/// line or column) and when a row's state is singular for the declared
/// independent joints.
std::optional<long> evaluateInverseDynamics(const Scene& scene, const std::filesystem::path& states_csv,
                                            const std::filesystem::path& out_csv, bool overwrite,
                                            bool stabilization = true,
                                            const std::function<bool()>& stop_requested = {});

}  // namespace loopsim
