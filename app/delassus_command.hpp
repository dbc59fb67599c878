#pragma once
// `loopsim delassus SCENE --algorithm NAME [--bench]`: the Delassus algorithms of papers 000, 002 and 004
// (docs/cli.md, "delassus").
#include <CLI/CLI.hpp>

#include "command.hpp"

namespace loopsim::app {

Command registerDelassusCommand(CLI::App& parent);

}  // namespace loopsim::app
