#pragma once
// `--threads N` of eval and bench: a whole number >= 1, default every core.
#include <CLI/CLI.hpp>

namespace loopsim::app {

/// Adds --threads to `sub`, storing into `threads` (set to the core count
/// here, the default); returns the option so a command can ask whether it was given.
CLI::Option* addThreadsOption(CLI::App* sub, int& threads, const std::string& description);

}  // namespace loopsim::app
