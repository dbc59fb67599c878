#include "gui/gui_mode.hpp"

#include <GLFW/glfw3.h>

namespace loopsim::app {

bool KeyPresses::ctrlPressed(int key) const {
  const int mods = window_.keyPressMods(key);
  return mods >= 0 && (mods & GLFW_MOD_CONTROL) != 0;
}

void GuiMode::simulationKeys(const KeyPresses& keys, bool viewing_past, GuiRequests& requests) {
  if (keys.pressed(GLFW_KEY_SPACE)) requests.toggle_running = true;
  if (keys.pressed(GLFW_KEY_RIGHT, true)) {
    if (viewing_past) requests.view_delta += 1;
    else requests.step = true;
  }
  if (keys.pressed(GLFW_KEY_LEFT, true)) requests.view_delta -= 1;
  if (keys.pressed(GLFW_KEY_ENTER) || keys.pressed(GLFW_KEY_KP_ENTER)) requests.resume_from_view = true;
  if (keys.pressed(GLFW_KEY_BACKSPACE)) requests.reset = true;
}

}  // namespace loopsim::app
