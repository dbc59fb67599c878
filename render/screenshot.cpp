#include "render/screenshot.hpp"

#include <GL/gl.h>
#include <fcntl.h>
#include <png.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

namespace loopsim::render {

namespace fs = std::filesystem;

RgbImage readFramebuffer(int width, int height) {
  RgbImage image{width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height * 3)};
  std::vector<std::uint8_t> bottom_up(image.pixels.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, bottom_up.data());
  const std::size_t row = static_cast<std::size_t>(width) * 3;
  for (int y = 0; y < height; ++y) {
    std::memcpy(image.pixels.data() + static_cast<std::size_t>(y) * row,
                bottom_up.data() + static_cast<std::size_t>(height - 1 - y) * row, row);
  }
  return image;
}

void writePngExclusive(const fs::path& path, const RgbImage& image) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == EEXIST) throw std::runtime_error(path.string() + ": exists; not overwritten (choose another name)");
    throw std::runtime_error(path.string() + ": cannot create: " + std::strerror(err));
  }
  FILE* file = ::fdopen(fd, "wb");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  bool ok = file != nullptr && png != nullptr && info != nullptr;
  if (ok && setjmp(png_jmpbuf(png)) != 0) ok = false;  // libpng reports errors by longjmp
  if (ok) {
    png_init_io(png, file);
    png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 9);
    png_write_info(png, info);
    for (int y = 0; y < image.height; ++y) {
      png_write_row(png, image.pixels.data() + static_cast<std::size_t>(y) * image.width * 3);
    }
    png_write_end(png, nullptr);
  }
  png_destroy_write_struct(png != nullptr ? &png : nullptr, info != nullptr ? &info : nullptr);
  const bool closed = file != nullptr ? std::fclose(file) == 0 : ::close(fd) == 0;
  if (!ok || !closed) {
    std::error_code ec;
    fs::remove(path, ec);  // our own partial file
    throw std::runtime_error(path.string() + ": cannot write the PNG");
  }
}

fs::path freeScreenshotPath(const fs::path& dir) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  std::error_code ec;
  for (int k = 1;; ++k) {
    std::string name = "loopsim-";
    name.append(stamp);
    if (k > 1) name.append("-").append(std::to_string(k));
    name.append(".png");
    const fs::path candidate = dir / name;
    if (!fs::exists(fs::symlink_status(candidate, ec))) return candidate;
  }
}

}  // namespace loopsim::render
