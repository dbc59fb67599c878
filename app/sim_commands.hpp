#pragma once
// `loopsim run`, `loopsim solvers` and `loopsim check`: the simulation
// commands (issue 3).
#include <CLI/CLI.hpp>

#include "command.hpp"

namespace loopsim::app {

/// Exit code of `run` when the simulation diverges (NaN, Inf or a constraint
/// violation beyond the threshold).
constexpr int kExitDiverged = 3;

Command registerRunCommand(CLI::App& parent);
Command registerSolversCommand(CLI::App& parent);
Command registerCheckCommand(CLI::App& parent);

}  // namespace loopsim::app
