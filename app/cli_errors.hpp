#pragma once
// Command-line parse errors, reported one way: CLI11's message (or a better
// one for an unknown command) and exit code 1, never CLI11's 104-114.
#include <CLI/CLI.hpp>

namespace loopsim::app {

/// Prints the error for `e` to stderr and returns the exit code (0 for --help
/// and --version, else kExitInputError).
int reportParseError(const CLI::App& cli, const CLI::ParseError& e, int argc, char** argv);

}  // namespace loopsim::app
