#include "gui/joint_sliders.hpp"

#include <imgui.h>

#include <cmath>
#include <numbers>
#include <utility>

namespace loopsim::app {

std::pair<double, double> jointSliderRange(const Model& model, int joint) {
  const auto j = static_cast<std::size_t>(joint);
  const auto iq = static_cast<Eigen::Index>(model.idx_q[j]);
  const double lower = model.lower_position_limit[iq], upper = model.upper_position_limit[iq];
  if (std::isfinite(lower) && std::isfinite(upper) && lower < upper) return {lower, upper};
  const double half = model.joint_types[j] == JointType::Revolute ? std::numbers::pi : 1.0;
  return {-half, half};
}

void jointSlidersSection(GuiState& state, SimulationSession* session) {
  if (session == nullptr || state.timeline || state.comparing) return;
  const bool open = ImGui::CollapsingHeader("Joints");
  state.widgets.noteLastItem("Joints");
  if (!open) return;
  const Simulation& sim = session->simulation();
  const Model& model = sim.model();
  const bool editable = !state.running && !session->viewingPast();
  if (!editable) {
    ImGui::TextColored(ImVec4(0.6f, 0.6f, 0.6f, 1.0f), "pause (Space) at the newest state to set joints");
  } else if (sim.constraints().dimension() > 0) {
    ImGui::TextColored(ImVec4(0.6f, 0.6f, 0.6f, 1.0f), "the other joints follow to keep the loops closed");
  }
  ImGui::BeginDisabled(!editable);
  for (int joint = 1; joint <= model.njoints(); ++joint) {
    const auto j = static_cast<std::size_t>(joint);
    if (model.joint_nq[j] != 1) continue;  // floating and spherical joints: quaternions, no slider
    const auto [lower, upper] = jointSliderRange(model, joint);
    float value = static_cast<float>(sim.q()[model.idx_q[j]]);
    ImGui::SetNextItemWidth(170.0f);
    if (ImGui::SliderFloat(model.joint_names[j].c_str(), &value, static_cast<float>(lower), static_cast<float>(upper), "%.4f")) {
      state.requests.set_joint = std::make_pair(joint, static_cast<double>(value));
    }
    state.widgets.noteLastItem(model.joint_names[j]);
  }
  ImGui::EndDisabled();
}

void controlSlidersSection(GuiState& state, SimulationSession* session) {
  if (session == nullptr || state.timeline || state.comparing) return;
  const bool open = ImGui::CollapsingHeader("Controls");
  state.widgets.noteLastItem("Controls");
  if (!open) return;
  const Simulation& sim = session->simulation();
  const Model& model = sim.model();
  const VectorX& target = sim.controller().heldPose();
  const ImVec4 dim(0.6f, 0.6f, 0.6f, 1.0f);
  int shown = 0;
  for (int joint = 1; joint <= model.njoints(); ++joint) {
    const auto j = static_cast<std::size_t>(joint);
    if (model.joint_nq[j] != 1 || !session->controlRefusal(joint).empty()) continue;
    if (shown++ == 0) ImGui::TextColored(dim, "PD targets of the actuated joints (live)");
    const auto [lower, upper] = jointSliderRange(model, joint);
    float value = static_cast<float>(target[model.idx_q[j]]);
    ImGui::SetNextItemWidth(170.0f);
    const std::string label = model.joint_names[j] + "##control";
    if (ImGui::SliderFloat(label.c_str(), &value, static_cast<float>(lower), static_cast<float>(upper), "%.4f")) {
      state.requests.set_control = std::make_pair(joint, static_cast<double>(value));
    }
    state.widgets.noteLastItem(label);
  }
  if (shown == 0) {
    ImGui::PushTextWrapPos(0.0f);
    const ControllerSpec::Kind kind = sim.controller().spec().kind;
    const bool has_targets = kind == ControllerSpec::Kind::PdHold || kind == ControllerSpec::Kind::Sinusoid;
    ImGui::TextColored(dim, "no control sliders: %s",
                       has_targets ? "no actuated 1-dof joint without a drive" : session->controlRefusal(0).c_str());
    ImGui::PopTextWrapPos();
  }
}

}  // namespace loopsim::app
