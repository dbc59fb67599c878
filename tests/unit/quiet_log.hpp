#pragma once
// Lowers spdlog's level for one test's scope (the loaders' info lines would
// flood the test output) and restores it afterwards.
#include <spdlog/spdlog.h>

namespace loopsim::test {

struct QuietLog {
  spdlog::level::level_enum saved = spdlog::get_level();
  explicit QuietLog(spdlog::level::level_enum level = spdlog::level::warn) { spdlog::set_level(level); }
  ~QuietLog() { spdlog::set_level(saved); }
};

}  // namespace loopsim::test
