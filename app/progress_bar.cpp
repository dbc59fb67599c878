#include "progress_bar.hpp"

#include <unistd.h>

#include <algorithm>

namespace loopsim::app {

namespace {
constexpr int kWidth = 40;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
}  // namespace

bool isTerminal(std::FILE* stream) { return ::isatty(::fileno(stream)) == 1; }

ProgressBar::ProgressBar(double total, std::FILE* out)
    : total_(total), out_(out), start_(std::chrono::steady_clock::now()), last_draw_(start_) {
  draw(0.0);
}

void ProgressBar::update(double done) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  draw(done);
}

void ProgressBar::finish(double done) {
  draw(done);
  std::fputc('\n', out_);
  std::fflush(out_);
}

void ProgressBar::draw(double done) {
  const double fraction = total_ > 0.0 ? std::clamp(done / total_, 0.0, 1.0) : 1.0;
  const int filled = static_cast<int>(fraction * kWidth + 0.5);
  char bar[kWidth + 1];
  for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '.';
  bar[kWidth] = '\0';
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(out_, "\r[%s] %3.0f%%  t = %.3g / %.3g s  wall %.1f s", bar, 100.0 * fraction, done, total_, wall);
  std::fflush(out_);
}

}  // namespace loopsim::app
