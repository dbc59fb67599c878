#pragma once
// Checks of numeric options that say what is allowed and quote the value as
// typed (CLI11's own range checks print the double range's 309 digits).
#include <CLI/CLI.hpp>

namespace loopsim::app {

/// A finite number > 0.
CLI::Validator positiveNumberCheck();
/// A whole number >= 1 that fits the option's int.
CLI::Validator wholeNumberAtLeastOneCheck();

/// Throws ModelError "OPTION: must be at least 1, got N" for a count < 1 (an
/// option whose default the command may replace, so it is checked after parsing).
void requireAtLeastOne(int value, const char* option);

}  // namespace loopsim::app
