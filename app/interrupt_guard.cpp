#include "interrupt_guard.hpp"

namespace loopsim::app {

namespace {
volatile std::sig_atomic_t g_received = 0;
extern "C" void recordSignal(int signal) { g_received = signal; }
}  // namespace

InterruptGuard::InterruptGuard() {
  g_received = 0;
  struct sigaction action {};
  action.sa_handler = recordSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous_int_);
  sigaction(SIGTERM, &action, &previous_term_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

int InterruptGuard::received() const { return g_received; }

const char* signalName(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

}  // namespace loopsim::app
