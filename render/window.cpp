#include "render/window.hpp"

#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"

namespace loopsim::render {

namespace {

// GLFW reports failures through this callback; the last message explains a
// failed glfwInit or window creation in our exception.
std::string& lastGlfwError() {
  static std::string message;
  return message;
}

void recordGlfwError(int code, const char* description) {
  lastGlfwError() = std::string(description ? description : "unknown error") + " (GLFW error " + std::to_string(code) + ")";
}

}  // namespace

bool displayAvailable() {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  return (x11 != nullptr && *x11 != '\0') || (wayland != nullptr && *wayland != '\0');
}

Window::Window(const WindowOptions& options) : ignore_mouse_(options.ignore_mouse) {
  glfwSetErrorCallback(recordGlfwError);
  if (!displayAvailable()) throw DisplayUnavailable("no display (neither DISPLAY nor WAYLAND_DISPLAY is set)");
  if (glfwInit() != GLFW_TRUE) throw DisplayUnavailable("cannot open the display: " + lastGlfwError());
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, options.visible ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_SAMPLES, 0);  // MSAA happens in the renderer's own framebuffer
  glfwWindowHint(GLFW_DEPTH_BITS, 24);  // without MSAA the renderer draws into the window's buffers
  window_ = glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
  if (window_ == nullptr) {
    const std::string why = lastGlfwError();
    glfwTerminate();
    throw DisplayUnavailable("cannot create an OpenGL 3.3 core window: " + why);
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(options.vsync ? 1 : 0);
  static_assert(kKeyCount == GLFW_KEY_LAST + 1);
  glfwSetWindowUserPointer(window_, this);
  glfwSetKeyCallback(window_, &Window::onKey);  // before ImGui's, which chains to it

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // layout is ours; never write imgui.ini into the user's folder
  ImGui::StyleColorsDark();
  ImGui::GetStyle().WindowRounding = 4.0f;
  // Opaque panels (as MuJoCo's): the 3D view is then not drawn under them at all
  // (Renderer::beginScene's covered rectangles), a third of the window at 1280x720.
  ImGui::GetStyle().Colors[ImGuiCol_WindowBg].w = 1.0f;
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  // The font atlas sampled at the nearest texel: glyphs sit on whole pixels at 1:1, so it
  // looks the same, and a software rasteriser (llvmpipe) samples it for every pixel of
  // every panel, where the nearest texel is the cheaper lookup (docs/performance.md). Lines are
  // then anti-aliased by their geometry, not by the atlas' baked ramps (which need filtering).
  ImGui_ImplOpenGL3_CreateDeviceObjects();  // now, not in the first NewFrame, to set the filter once
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(reinterpret_cast<std::intptr_t>(ImGui::GetIO().Fonts->TexID)));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindTexture(GL_TEXTURE_2D, 0);
  ImGui::GetStyle().AntiAliasedLinesUseTex = false;
}

Window::~Window() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

bool Window::shouldClose() const { return glfwWindowShouldClose(window_) != 0; }
void Window::requestClose() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }

void Window::onKey(GLFWwindow* window, int key, int /*scancode*/, int action, int mods) {
  auto* self = static_cast<Window*>(glfwGetWindowUserPointer(window));
  if (self == nullptr || key < 0 || key >= kKeyCount) return;
  const auto latched = static_cast<short>(mods + 1);
  const auto k = static_cast<std::size_t>(key);
  if (action == GLFW_PRESS) self->pressed_mods_[k] = latched, ++self->press_counts_[k];
  if (action == GLFW_PRESS || action == GLFW_REPEAT) self->repeated_mods_[k] = latched, ++self->repeat_counts_[k];
}

int Window::keyPressCount(int key, bool repeat) const {
  if (key < 0 || key >= kKeyCount) return 0;
  return (repeat ? repeat_counts_ : press_counts_)[static_cast<std::size_t>(key)];
}

void Window::toggleFullscreen() {
  if (glfwGetWindowMonitor(window_) != nullptr) {
    glfwSetWindowMonitor(window_, nullptr, windowed_x_, windowed_y_, windowed_width_, windowed_height_, GLFW_DONT_CARE);
    return;
  }
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = monitor != nullptr ? glfwGetVideoMode(monitor) : nullptr;
  if (mode == nullptr) return;  // no monitor to cover (some virtual displays)
  glfwGetWindowPos(window_, &windowed_x_, &windowed_y_);
  glfwGetWindowSize(window_, &windowed_width_, &windowed_height_);
  glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
}

int Window::keyPressMods(int key, bool repeat) const {
  if (key < 0 || key >= kKeyCount) return -1;
  const auto& latch = repeat ? repeated_mods_ : pressed_mods_;
  return latch[static_cast<std::size_t>(key)] - 1;
}

void Window::beginFrame() {
  pressed_mods_.fill(0);
  repeated_mods_.fill(0);
  press_counts_.fill(0);
  repeat_counts_.fill(0);
  glfwPollEvents();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  if (ignore_mouse_) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    for (bool& down : io.MouseDown) down = false;
    io.MouseWheel = io.MouseWheelH = 0.0f;
  }
  ImGui::NewFrame();
}

void Window::fillBehindUi(std::span<const UiRect> rects) {
  backdrops_.assign(rects.begin(), rects.end());
  if (backdrops_.empty()) return;
  // Behind every window: the background list renders first.
  ImGui::GetBackgroundDrawList()->AddCallback(
      [](const ImDrawList*, const ImDrawCmd* cmd) { static_cast<const Window*>(cmd->UserCallbackData)->clearBackdrops(); },
      this);
  ImGui::GetBackgroundDrawList()->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

void Window::clearBackdrops() const {
  // A scissored clear: no blending and no texture, unlike ImGui's own rectangle.
  const ImDrawData* data = ImGui::GetDrawData();
  const float sx = data->FramebufferScale.x, sy = data->FramebufferScale.y;
  const float height = data->DisplaySize.y * sy;
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glEnable(GL_SCISSOR_TEST);
  for (const UiRect& r : backdrops_) {
    const auto x0 = static_cast<GLint>(std::lround((r.x0 - data->DisplayPos.x) * sx));
    const auto x1 = static_cast<GLint>(std::lround((r.x1 - data->DisplayPos.x) * sx));
    const auto y0 = static_cast<GLint>(std::lround(height - (r.y1 - data->DisplayPos.y) * sy));
    const auto y1 = static_cast<GLint>(std::lround(height - (r.y0 - data->DisplayPos.y) * sy));
    if (x1 <= x0 || y1 <= y0) continue;
    glScissor(x0, y0, x1 - x0, y1 - y0);
    glClear(GL_COLOR_BUFFER_BIT);
  }
}

void Window::renderUi() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::swapBuffers() { glfwSwapBuffers(window_); }

void Window::framebufferSize(int& width, int& height) const { glfwGetFramebufferSize(window_, &width, &height); }

void Window::setTitle(const std::string& title) { glfwSetWindowTitle(window_, title.c_str()); }

}  // namespace loopsim::render
