#include "gui/perturbation_input.hpp"

#include <imgui.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "gui/gui_app.hpp"

namespace loopsim::app {

void PerturbationInput::attach(const Model& model) {
  perturbation_.end();
  scratch_ = std::make_unique<Data>(model);
  scripted_body_ = 0;
}

void PerturbationInput::beforeStep(Simulation& simulation) {
  if (scripted_body_ > 0) {
    const double dt = simulation.scene().dt;
    const long step = simulation.stepCount();
    const bool inside = step >= std::llround(options_.perturb_t0 / dt) && step < std::llround(options_.perturb_t1 / dt);
    if (inside && !perturbation_.active()) {
      const auto& p = options_.perturb_target;
      perturbation_.beginTranslation(simulation.model(), scripted_body_, Eigen::Vector3d(p[0], p[1], p[2]));
    } else if (!inside && perturbation_.active()) {
      perturbation_.end();
    }
  }
  perturbation_.apply(simulation, *scratch_);
}

void PerturbationInput::grab(const Model& model, int body, const Eigen::Matrix4f& pose, bool mujoco_buttons) {
  const ImGuiIO& io = ImGui::GetIO();
  // MuJoCo's simulate: Ctrl+left turns, Ctrl+right pulls; the other way when asked.
  const ImGuiMouseButton pull = mujoco_buttons ? ImGuiMouseButton_Right : ImGuiMouseButton_Left;
  const ImGuiMouseButton turn = mujoco_buttons ? ImGuiMouseButton_Left : ImGuiMouseButton_Right;
  const auto drag_name = [](ImGuiMouseButton b) { return b == ImGuiMouseButton_Left ? "Ctrl+drag" : "Ctrl+right-drag"; };
  if (ImGui::IsMouseClicked(pull)) {
    held_button_ = pull;
    grab_plane_point_ = pose.block<3, 1>(0, 3).cast<double>();
    perturbation_.beginTranslation(model, body, grab_plane_point_);
    spdlog::info("perturbation: pulling body '{}' toward the cursor ({})", model.body_names[static_cast<std::size_t>(body)],
                 drag_name(pull));
  } else if (ImGui::IsMouseClicked(turn)) {
    held_button_ = turn;
    rotate_start_mouse_ = {io.MousePos.x, io.MousePos.y};
    perturbation_.beginRotation(model, body, pose.block<3, 3>(0, 0).cast<double>());
    spdlog::info("perturbation: turning body '{}' ({})", model.body_names[static_cast<std::size_t>(body)], drag_name(turn));
  }
}

bool PerturbationInput::drag(const render::OrbitCamera& camera) {
  if (!perturbation_.active() || scripted_body_ > 0) return false;
  const ImGuiIO& io = ImGui::GetIO();
  if (perturbation_.mode() == MousePerturbation::Mode::Translation) {
    if (!ImGui::IsMouseDown(held_button_)) {
      perturbation_.end();
      spdlog::info("perturbation: released");
      return false;
    }
    // The target: where the cursor's ray meets the plane through the grab point facing the camera.
    const float width = io.DisplaySize.x, height = std::max(1.0f, io.DisplaySize.y);
    const render::Ray ray = camera.pixelRay(io.MousePos.x, io.MousePos.y, width, height);
    const Eigen::Vector3d normal = (camera.lookat - camera.eye()).normalized().cast<double>();
    const Eigen::Vector3d origin = ray.origin.cast<double>(), direction = ray.direction.cast<double>();
    const double along = normal.dot(direction);
    if (std::abs(along) > 1e-6) perturbation_.setTarget(origin + normal.dot(grab_plane_point_ - origin) / along * direction);
  } else {
    if (!ImGui::IsMouseDown(held_button_)) {
      perturbation_.end();
      spdlog::info("perturbation: released");
      return false;
    }
    // Turn about the view's up axis (horizontal drag) and right axis (vertical drag), 0.01 rad per pixel.
    const Eigen::Vector3d forward = (camera.lookat - camera.eye()).normalized().cast<double>();
    Eigen::Vector3d right = forward.cross(Eigen::Vector3d::UnitZ());
    if (right.norm() < 1e-6) right = Eigen::Vector3d::UnitX();
    right.normalize();
    const Eigen::Vector3d up = right.cross(forward);
    perturbation_.setRotation(0.01 * (up * (io.MousePos.x - rotate_start_mouse_.x()) + right * (io.MousePos.y - rotate_start_mouse_.y())));
  }
  return true;
}

void PerturbationInput::draw(render::Renderer& renderer, float model_scale) const {
  if (!perturbation_.active()) return;
  const Eigen::Vector3f origin = perturbation_.lastOrigin().cast<float>();
  const Eigen::Vector4f colour(0.95f, 0.2f, 0.85f, 1.0f);
  if (perturbation_.mode() == MousePerturbation::Mode::Translation) {
    renderer.drawArrow(origin, perturbation_.target().cast<float>(), 0.01f * model_scale, colour);
  } else if (perturbation_.lastWorldVector().norm() > 0.0) {
    const Eigen::Vector3f axis = perturbation_.lastWorldVector().normalized().cast<float>();
    renderer.drawArrow(origin, origin + 0.25f * model_scale * axis, 0.01f * model_scale, colour);
  }
}

}  // namespace loopsim::app
