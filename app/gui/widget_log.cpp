#include "gui/widget_log.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // the windows' display order and clip rectangles, to tell a hidden widget
#include <spdlog/spdlog.h>

#include <cmath>

namespace loopsim::app {

namespace {

// The top-level window a click at (x, y) reaches: the frontmost one that takes mouse input there.
ImGuiWindow* windowAt(float x, float y) {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  for (int k = g.Windows.Size - 1; k >= 0; --k) {
    ImGuiWindow* w = g.Windows[k];
    if (!w->Active || w->Hidden || (w->Flags & ImGuiWindowFlags_NoMouseInputs) != 0) continue;
    if (w->OuterRectClipped.Contains(ImVec2(x, y))) return w->RootWindow;
  }
  return nullptr;
}

}  // namespace

void WidgetLog::beginFrame() {
  for (auto& [label, noted] : widgets_) noted.seen = false;
}

void WidgetLog::noteLastItem(const std::string& label) {
  if (!enabled_) return;
  Noted& noted = widgets_[label];
  // The box a click acts on: a slider's or a text field's frame without the label beside it (which
  // takes no click); a button's, checkbox's or header's whole rectangle (ImGui's item navigation box).
  const ImRect& box = ImGui::GetCurrentContext()->LastItemData.NavRect;
  noted.x0 = box.Min.x;
  noted.y0 = box.Min.y;
  noted.x1 = box.Max.x;
  noted.y1 = box.Max.y;
  noted.window = ImGui::GetCurrentWindow();
  noted.disabled = (ImGui::GetCurrentContext()->LastItemData.InFlags & ImGuiItemFlags_Disabled) != 0;
  noted.active = ImGui::IsItemActive();
  noted.clipped = true;
  noted.seen = true;
}

void WidgetLog::noteTitleBar(const std::string& label) {
  if (!enabled_) return;
  Noted& noted = widgets_[label];
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  const ImRect bar = window->TitleBarRect();
  noted.x0 = bar.Min.x;
  noted.y0 = bar.Min.y;
  noted.x1 = bar.Max.x;
  noted.y1 = bar.Max.y;
  noted.window = window;
  noted.disabled = false;
  noted.active = false;
  noted.clipped = false;
  noted.seen = true;
}

void WidgetLog::endFrame() {
  if (!enabled_) return;
  for (auto& [label, noted] : widgets_) {
    std::string line;
    if (!noted.seen) {
      if (noted.printed.empty()) continue;
      line = "gone";
    } else if (noted.window->RootWindow->Hidden) {
      line = "hidden (panel not shown yet)";  // an auto-sized panel's first frame
    } else {
      // Clickable: its window's visible area holds it from top to bottom and its centre (a
      // Selectable's rectangle reaches past the clip rectangle's sides by half the item spacing),
      // and that window is in front at its centre.
      const ImRect& clip = noted.window->InnerClipRect;
      const float cx = 0.5f * (noted.x0 + noted.x1), cy = 0.5f * (noted.y0 + noted.y1);
      const bool inside = !noted.clipped || (cx >= clip.Min.x && noted.y0 >= clip.Min.y && cx <= clip.Max.x &&
                                             noted.y1 <= clip.Max.y);
      const bool in_front = windowAt(cx, cy) == noted.window->RootWindow;
      if (!inside) line = noted.y0 < clip.Min.y ? "hidden (scrolled out above)" : "hidden (scrolled out below)";
      else if (!in_front) line = "hidden (under a window)";
      else line = fmt::format("at {} {} {} {}{}", std::lround(noted.x0), std::lround(noted.y0), std::lround(noted.x1),
                              std::lround(noted.y1), noted.disabled ? " disabled" : noted.active ? " active" : "");
    }
    if (line == noted.printed) continue;
    noted.printed = line == "gone" ? std::string() : line;
    spdlog::info("widget: '{}' {}", label, line);
  }
}

}  // namespace loopsim::app
