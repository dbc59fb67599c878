#pragma once
// `loopsim gui` (docs/gui.md), and what plain `loopsim` does: the GUI on the
// default scene when a display is available, else a headless run of it.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "command.hpp"

namespace loopsim::app {

Command registerGuiCommand(CLI::App& parent);

/// Plain `loopsim` stands for `loopsim gui scenes/digit_standing.yaml` when a
/// display is available; otherwise it says so (stderr) and stands for
/// `loopsim run scenes/digit_standing.yaml`. Returns the full argument list.
std::vector<std::string> defaultJobArguments(const std::string& program);

}  // namespace loopsim::app
