#include "gui/gui_mode.hpp"

#include <GLFW/glfw3.h>

namespace loopsim::app {

bool KeyPresses::ctrlPressed(int key) const {
  const int mods = window_.keyPressMods(key);
  return mods >= 0 && (mods & GLFW_MOD_CONTROL) != 0;
}

void GuiMode::simulationKeys(const KeyPresses& keys, bool viewing_past, GuiRequests& requests) {
  if (keys.pressed(GLFW_KEY_SPACE)) requests.toggle_running = true;
  // Every press counts, however many arrive within one frame.
  if (const int right = keys.count(GLFW_KEY_RIGHT, true); right > 0) {
    if (viewing_past) requests.view_delta += right;
    else requests.steps += right;
  }
  requests.view_delta -= keys.count(GLFW_KEY_LEFT, true);
  if (keys.pressed(GLFW_KEY_ENTER) || keys.pressed(GLFW_KEY_KP_ENTER)) requests.resume_from_view = true;
  if (keys.pressed(GLFW_KEY_BACKSPACE)) requests.reset = true;
}

}  // namespace loopsim::app
