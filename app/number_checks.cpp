#include "number_checks.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include <loopsim/model/errors.hpp>

namespace loopsim::app {

CLI::Validator positiveNumberCheck() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0.0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(value) && value > 0.0) return "";
        return "must be a finite number > 0 (got '" + text + "')";
      },
      "X>0");
}

CLI::Validator wholeNumberAtLeastOneCheck() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        int value = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && ptr == text.data() + text.size() && value >= 1) return "";
        return "must be a whole number >= 1 (got '" + text + "')";
      },
      "N>=1");
}

void requireAtLeastOne(int value, const char* option) {
  if (value < 1) throw ModelError("", option, "must be at least 1, got " + std::to_string(value));
}

}  // namespace loopsim::app
