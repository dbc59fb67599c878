#pragma once
// The "Joints" panel section (as MuJoCo simulate's joint panel): one slider
// per 1-dof joint that sets its position while the simulation is paused. The
// panel only requests the change (GuiRequests::set_joint); the session applies
// it, re-projecting the loops (SimulationSession::setJointPosition).
#include "gui/gui_state.hpp"
#include "gui/sim_session.hpp"

namespace loopsim::app {

/// The slider range of a 1-dof joint: its position limits, else ±π (revolute) or ±1 m (prismatic).
std::pair<double, double> jointSliderRange(const Model& model, int joint);

/// The Controls section: a slider per actuated 1-dof joint moving its PD target while the
/// simulation runs (as MuJoCo's actuator sliders); requests GuiRequests::set_control.
void controlSlidersSection(GuiState& state, SimulationSession* session);
void jointSlidersSection(GuiState& state, SimulationSession* session);

}  // namespace loopsim::app
