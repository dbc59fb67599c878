#pragma once
// `loopsim run`, `loopsim solvers` and `loopsim check`: the simulation
// commands (docs/cli.md).
#include <CLI/CLI.hpp>

#include "command.hpp"
#include "exit_codes.hpp"

namespace loopsim::app {

Command registerRunCommand(CLI::App& parent);
Command registerSolversCommand(CLI::App& parent);
Command registerCheckCommand(CLI::App& parent);
/// `loopsim compare`: solvers in lockstep on one scene (docs/cli.md; its outputs: docs/records.md).
Command registerCompareCommand(CLI::App& parent);

}  // namespace loopsim::app
