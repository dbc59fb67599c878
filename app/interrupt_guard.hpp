#pragma once
// Turns SIGINT and SIGTERM into a flag that a long loop polls, so the loop can
// stop between steps, print its summary and remove its partial files instead
// of dying mid-write. The previous handlers come back on destruction.
#include <csignal>

namespace loopsim::app {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// The signal received (SIGINT or SIGTERM), or 0.
  int received() const;

 private:
  struct sigaction previous_int_ {}, previous_term_ {};
};

/// "SIGINT", "SIGTERM", else "signal N".
const char* signalName(int signal);

}  // namespace loopsim::app
