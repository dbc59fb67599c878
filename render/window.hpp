#pragma once
// The application window: GLFW, an OpenGL 3.3 core context and Dear ImGui.
// Creating one without a display throws DisplayUnavailable (never a GLFW abort),
// so the caller can say why and exit cleanly.
#include <stdexcept>
#include <string>

struct GLFWwindow;

namespace loopsim::render {

class DisplayUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct WindowOptions {
  int width = 1280;
  int height = 720;
  std::string title = "loopsim";
  bool visible = true;
  bool vsync = true;
  bool ignore_mouse = false;  // scripted runs: the pointer (wherever the X server has it) never hovers or clicks
};

class Window {
 public:
  explicit Window(const WindowOptions& options);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* handle() const { return window_; }
  bool shouldClose() const;
  void requestClose();
  /// Polls events and starts an ImGui frame.
  void beginFrame();
  /// Renders ImGui's draw data over the scene (call before swap).
  void renderUi();
  void swapBuffers();
  void framebufferSize(int& width, int& height) const;
  void setTitle(const std::string& title);

 private:
  GLFWwindow* window_ = nullptr;
  bool ignore_mouse_ = false;
};

/// True when an X11 or Wayland display is named by the environment.
bool displayAvailable();

}  // namespace loopsim::render
