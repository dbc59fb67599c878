#pragma once
// The ImGui panels, laid out like MuJoCo's simulate: controls on the left
// (file, simulation, solver, settings, rendering), information and plots on
// the right, the F1 help overlay and an error banner.
#include "gui/comparison_view.hpp"
#include "gui/gui_state.hpp"
#include "gui/record_timeline.hpp"
#include "gui/sim_session.hpp"

namespace loopsim::app {

/// session may be null (nothing loaded yet, or the first load failed).
void drawControlPanel(GuiState& state, SimulationSession* session);
void drawInfoPanel(GuiState& state, SimulationSession* session);
/// The record timeline: play / pause, the time slider, speed, the rows shown and their divergence.
void drawTimelinePanel(GuiState& state, RecordTimeline& timeline);
/// The comparison's legend, table per solver and divergence plot (bottom of the window).
void drawComparisonPanel(GuiState& state, ComparisonView& view);
/// Which colour is which compared run, over the top left of the 3D view.
void drawViewLegend(const GuiState& state, const ComparisonView& view);
void drawHelpOverlay(GuiState& state);
/// The error, divergence and warning messages, docked at the top of the free area.
void drawMessages(GuiState& state);
/// The last action's outcome, docked at the bottom between the side panels.
void drawStatusLine(GuiState& state);

/// The keyboard and mouse reference shown by F1 (key, action).
const std::vector<std::pair<const char*, const char*>>& shortcutList();

}  // namespace loopsim::app
