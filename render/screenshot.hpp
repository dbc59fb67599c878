#pragma once
// Saving what the window shows as PNG (libpng), never replacing a file.
#include <cstdint>
#include <filesystem>
#include <vector>

namespace loopsim::render {

struct RgbImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> pixels;  // RGB, top row first
};

/// The window's framebuffer (after the scene and the UI were drawn).
RgbImage readFramebuffer(int width, int height);

/// Writes `image` to `path`, which must not exist (created exclusively, so a
/// file appearing meanwhile is not replaced either). Throws std::runtime_error
/// naming the path on failure; a partial file is removed.
void writePngExclusive(const std::filesystem::path& path, const RgbImage& image);

/// "loopsim-YYYYMMDD-HHMMSS.png" in `dir`, with "-2", "-3", … when taken.
std::filesystem::path freeScreenshotPath(const std::filesystem::path& dir);

}  // namespace loopsim::render
