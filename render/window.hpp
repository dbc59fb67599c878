#pragma once
// The application window: GLFW, an OpenGL 3.3 core context and Dear ImGui.
// Creating one without a display throws DisplayUnavailable (never a GLFW abort),
// so the caller can say why and exit cleanly.
#include <array>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

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
  /// A rectangle in ImGui's coordinates (pixels from the top left, x1 and y1 past the end).
  struct UiRect {
    float x0, y0, x1, y1;
  };
  /// Fills these rectangles with the opaque window background behind this frame's ImGui windows
  /// (call between beginFrame and renderUi). For panels that draw no background of their own
  /// (ImGuiCol_WindowBg transparent while they begin): ImGui would blend its background over
  /// the scene through the font atlas, which a software rasteriser pays for at every pixel.
  void fillBehindUi(std::span<const UiRect> rects);
  void swapBuffers();
  void framebufferSize(int& width, int& height) const;
  void setTitle(const std::string& title);

  /// The modifier bits (GLFW_MOD_*) held when `key` was pressed during the last
  /// event poll (auto-repeats count when `repeat`), or -1 when it was not.
  /// ImGui 1.86 samples key state once per frame, so a press and release
  /// inside one slow frame (software rendering, a loaded machine) never
  /// reaches ImGui::IsKeyPressed; GLFW's key events always arrive here.
  int keyPressMods(int key, bool repeat = false) const;
  /// How many times `key` was pressed (with its auto-repeats when `repeat`)
  /// during the last event poll: presses that arrive faster than frames are
  /// queued, not merged into one.
  int keyPressCount(int key, bool repeat = false) const;
  /// F5: the window covers its monitor, or returns to its size and place.
  void toggleFullscreen();

 private:
  static void onKey(GLFWwindow* window, int key, int scancode, int action, int mods);
  void clearBackdrops() const;

  static constexpr int kKeyCount = 349;  // GLFW_KEY_LAST + 1
  GLFWwindow* window_ = nullptr;
  bool ignore_mouse_ = false;
  std::array<short, kKeyCount> pressed_mods_{};   // mods + 1 of a press in the last poll, 0 if none
  std::array<short, kKeyCount> repeated_mods_{};  // the same for a press or an auto-repeat
  std::array<int, kKeyCount> press_counts_{};     // presses in the last poll
  std::array<int, kKeyCount> repeat_counts_{};    // presses and auto-repeats in the last poll
  int windowed_x_ = 0, windowed_y_ = 0, windowed_width_ = 0, windowed_height_ = 0;  // before fullscreen
  std::vector<UiRect> backdrops_;                  // fillBehindUi's, until renderUi draws them
};

/// True when an X11 or Wayland display is named by the environment.
bool displayAvailable();

}  // namespace loopsim::render
