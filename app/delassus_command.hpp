#pragma once
// `loopsim delassus SCENE --algorithm NAME [--bench]` (issue 10).
#include <CLI/CLI.hpp>

#include "command.hpp"

namespace loopsim::app {

Command registerDelassusCommand(CLI::App& parent);

}  // namespace loopsim::app
