#pragma once
// `loopsim replay`, `loopsim eval` and `loopsim bench`: the commands that
// work on records and measure solvers (docs/records.md, docs/performance.md). `run --record` lives with run.
#include <CLI/CLI.hpp>

#include "command.hpp"

namespace loopsim::app {

Command registerReplayCommand(CLI::App& parent);
Command registerEvalCommand(CLI::App& parent);
Command registerBenchCommand(CLI::App& parent);

}  // namespace loopsim::app
