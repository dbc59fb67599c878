#include "thread_option.hpp"

#include <charconv>
#include <string>

#include <loopsim/parallel/machine_limits.hpp>
#include <loopsim/parallel/parallel_chunks.hpp>

namespace loopsim::app {

CLI::Option* addThreadsOption(CLI::App* sub, int& threads, const std::string& description) {
  threads = hardwareThreads();
  // Own check: CLI11's range and type messages would not say what is allowed.
  const CLI::Validator whole_positive(
      [](std::string& text) -> std::string {
        long long value = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && ptr == text.data() + text.size() && value >= 1) return threadCountProblem(value);
        return "must be a whole number >= 1 (got '" + text + "'; default: all " +
               std::to_string(hardwareThreads()) + " cores)";
      },
      "N>=1");
  return sub->add_option("--threads", threads, description + " (default: all cores, here " +
                                                   std::to_string(hardwareThreads()) + ")")
      ->check(whole_positive);
}

}  // namespace loopsim::app
