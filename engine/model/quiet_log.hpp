#pragma once
// Raises spdlog's level to at least `level` for its lifetime (restored on
// every exit, a throw included): for loops of work that would log once per
// item (a bench's projections, a slider move's re-projections).
#include <algorithm>

#include <spdlog/spdlog.h>

namespace loopsim {

class QuietLogAtLeast {
 public:
  explicit QuietLogAtLeast(spdlog::level::level_enum level) : saved_(spdlog::get_level()) {
    spdlog::set_level(std::max(saved_, level));
  }
  ~QuietLogAtLeast() { spdlog::set_level(saved_); }
  QuietLogAtLeast(const QuietLogAtLeast&) = delete;
  QuietLogAtLeast& operator=(const QuietLogAtLeast&) = delete;

 private:
  spdlog::level::level_enum saved_;
};

}  // namespace loopsim
