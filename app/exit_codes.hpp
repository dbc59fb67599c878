#pragma once
// The process exit codes of every loopsim command (docs/cli.md, "Exit codes").
namespace loopsim::app {

constexpr int kExitOk = 0;
constexpr int kExitInputError = 1;     // usage error (bad option, missing argument) or invalid input file
constexpr int kExitNoDisplay = 2;      // a graphical command found no display
constexpr int kExitDiverged = 3;       // the simulation diverged
constexpr int kExitVerifyMismatch = 4; // replay --verify found a difference
// A run stopped by SIGINT or SIGTERM exits with 128 + the signal (130, 143), the shell's convention.

}  // namespace loopsim::app
