#pragma once
// `loopsim info MODEL.urdf [--floating] [--strict]`: loads a model and prints
// its sizes, bodies/joints, frames and loader warnings.
#include <CLI/CLI.hpp>
#include <ostream>

#include "command.hpp"
#include <loopsim/model/model.hpp>

namespace loopsim::app {

Command registerInfoCommand(CLI::App& parent);

/// The report printed by `info` (exposed for reuse by other commands).
void printModelInfo(const Model& model, std::ostream& out);

}  // namespace loopsim::app
