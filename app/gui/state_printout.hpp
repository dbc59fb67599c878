#pragma once
// "Print model" and "Print data" (as MuJoCo simulate's): the open scene's model
// and the current state as text files in the working directory, each under a
// new name (an existing file is never replaced).
#include <filesystem>
#include <string>

#include "gui/sim_session.hpp"

namespace loopsim::app {

/// The model (sizes, bodies and joints, frames), the scene's constraints, controller and step.
std::string modelPrintout(const SimulationSession& session);
/// The current state: time, q and v per joint, vdot, applied torques, λ per constraint row,
/// energy, violations and, on scenes with contact geometry or limits, the active rows.
std::string dataPrintout(const SimulationSession& session);
/// Writes `text` to a new file loopsim-KIND-YYYYmmdd-HHMMSS[-N].txt in `dir` (created
/// exclusively: never an existing name) and returns its path; throws std::runtime_error
/// naming the file when it cannot be written.
std::filesystem::path writeNewTextFile(const std::filesystem::path& dir, const std::string& kind, const std::string& text);

}  // namespace loopsim::app
