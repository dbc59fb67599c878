#pragma once
// A one-line progress bar redrawn in place ("\r") on a terminal. Redraws are
// throttled to a few per second so that drawing never shows in the timings.
#include <chrono>
#include <cstdio>

namespace loopsim::app {

class ProgressBar {
 public:
  /// total: the amount that means 100% (simulated seconds for `run`).
  ProgressBar(double total, std::FILE* out);
  /// Redraws when enough wall time has passed since the last draw.
  void update(double done);
  /// Draws the final state and ends the line.
  void finish(double done);

 private:
  void draw(double done);

  double total_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

/// True when the stream is a terminal (progress bars only make sense there).
bool isTerminal(std::FILE* stream);

}  // namespace loopsim::app
